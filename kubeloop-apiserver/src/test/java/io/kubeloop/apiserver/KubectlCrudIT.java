package io.kubeloop.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/** Everyday kubectl commands against the embedded server, as a user would type them. */
class KubectlCrudIT extends KubectlTest {

    @Test
    void createGetLabelAnnotateScaleDelete() throws Exception {
        assertThat(kubectl.runWithInput(DEPLOYMENT_YAML, "create", "-f", "-")
                        .ok()
                        .out())
                .contains("deployment.apps/web created");
        assertThat(kubectl.run("get", "deployments").ok().out()).contains("web");
        assertThat(kubectl.run("get", "deploy", "web", "-o", "yaml").ok().out())
                .contains("name: web")
                .contains("image: nginx:1.25")
                .contains("resourceVersion:");
        assertThat(kubectl.run("get", "deploy", "web", "-o", "jsonpath={.spec.replicas}")
                        .ok()
                        .out())
                .isEqualTo("2");

        assertThat(kubectl.run("label", "deploy", "web", "tier=front").ok().out())
                .contains("deployment.apps/web labeled");
        assertThat(kubectl.run("annotate", "deploy", "web", "owner=team-a").ok().out())
                .contains("annotated");
        assertThat(kubectl.run("get", "deploy", "-l", "tier=front", "-o", "name")
                        .ok()
                        .out()
                        .strip())
                .isEqualTo("deployment.apps/web");

        assertThat(kubectl.run("scale", "deploy", "web", "--replicas=5").ok().out())
                .contains("scaled");
        assertThat(kubectl.run("scale", "deploy", "web", "--current-replicas=5", "--replicas=3")
                        .ok()
                        .out())
                .contains("scaled");
        assertThat(kubectl.run("get", "deploy", "web", "-o", "jsonpath={.spec.replicas}")
                        .ok()
                        .out())
                .isEqualTo("3");

        assertThat(kubectl.run("delete", "deploy", "web").ok().out()).contains("deployment.apps \"web\" deleted");
        Kubectl.Result gone = kubectl.run("get", "deploy", "web");
        assertThat(gone.exit()).isEqualTo(1);
        assertThat(gone.err()).contains("Error from server (NotFound): deployments.apps \"web\" not found");
    }

    @Test
    void patchInEveryType() throws Exception {
        kubectl.runWithInput(DEPLOYMENT_YAML, "create", "-f", "-").ok();
        kubectl.run("patch", "deploy", "web", "--type", "merge", "-p", "{\"spec\":{\"replicas\":4}}")
                .ok();
        kubectl.run(
                        "patch",
                        "deploy",
                        "web",
                        "--type",
                        "json",
                        "-p",
                        "[{\"op\":\"add\",\"path\":\"/metadata/labels/x\",\"value\":\"z\"}]")
                .ok();
        kubectl.run(
                        "patch",
                        "deploy",
                        "web",
                        "-p",
                        "{\"spec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":\"nginx\",\"image\":\"nginx:1.27\"}]}}}}")
                .ok();
        String yaml = kubectl.run("get", "deploy", "web", "-o", "yaml").ok().out();
        assertThat(yaml).contains("replicas: 4").contains("x: z").contains("image: nginx:1.27");
    }

    @Test
    void namespacesConfigMapsAndAllNamespaces() throws Exception {
        kubectl.runWithInput(
                        "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"team\"}}",
                        "create",
                        "-f",
                        "-")
                .ok();
        kubectl.runWithInput(
                        "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"cfg\"},"
                                + "\"data\":{\"a\":\"1\"}}",
                        "create",
                        "-n",
                        "team",
                        "-f",
                        "-")
                .ok();
        assertThat(kubectl.run("get", "cm", "-A").ok().out()).contains("team").contains("cfg");
        assertThat(kubectl.run("get", "ns").ok().out())
                .contains("default")
                .contains("kube-system")
                .contains("team");
        Kubectl.Result missing = kubectl.runWithInput(
                "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\"," + "\"metadata\":{\"name\":\"x\"}}",
                "create",
                "-n",
                "nope",
                "-f",
                "-");
        assertThat(missing.exit()).isEqualTo(1);
        assertThat(missing.err()).contains("namespaces \"nope\" not found");
        assertThat(kubectl.run("get", "pods", "--field-selector", "spec.nodeName=")
                        .ok()
                        .err())
                .contains("No resources found");
    }

    @Test
    void replaceAndWatch() throws Exception {
        kubectl.runWithInput(DEPLOYMENT_YAML, "create", "-f", "-").ok();
        Path watchOut = dir.resolve("watch.txt");
        Process watch = kubectl.start(watchOut, "get", "deploy", "-w", "-o", "name");
        try {
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> Files.readString(
                            watchOut, StandardCharsets.UTF_8)
                    .contains("deployment.apps/web"));
            kubectl.runWithInput(DEPLOYMENT_YAML.replace("replicas: 2", "replicas: 6"), "replace", "-f", "-")
                    .ok();
            kubectl.run("delete", "deploy", "web").ok();
            Awaitility.await()
                    .atMost(Duration.ofSeconds(30))
                    .until(() -> Files.readString(watchOut, StandardCharsets.UTF_8)
                                    .lines()
                                    .filter(l -> l.equals("deployment.apps/web"))
                                    .count()
                            >= 3);
        } finally {
            watch.destroy();
            watch.waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void applyCreatesThenUpdatesClientSideAndServerSide() throws Exception {
        assertThat(kubectl.runWithInput(DEPLOYMENT_YAML, "apply", "-f", "-")
                        .ok()
                        .out())
                .contains("deployment.apps/web created");
        assertThat(kubectl.runWithInput(DEPLOYMENT_YAML.replace("nginx:1.25", "nginx:1.27"), "apply", "-f", "-")
                        .ok()
                        .out())
                .contains("deployment.apps/web configured");
        assertThat(kubectl.runWithInput(DEPLOYMENT_YAML.replace("nginx:1.25", "nginx:1.27"), "apply", "-f", "-")
                        .ok()
                        .out())
                .contains("deployment.apps/web unchanged");
        assertThat(kubectl.run("get", "deploy", "web", "-o", "yaml").ok().out())
                .contains("image: nginx:1.27")
                .contains("kubectl.kubernetes.io/last-applied-configuration");

        String cm =
                "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"ssa\"},\"data\":{\"a\":\"1\"}}";
        assertThat(kubectl.runWithInput(cm, "apply", "--server-side", "-f", "-")
                        .ok()
                        .out())
                .contains("configmap/ssa serverside-applied");
        assertThat(kubectl.runWithInput(cm.replace("\"1\"", "\"2\""), "apply", "--server-side", "-f", "-")
                        .ok()
                        .out())
                .contains("serverside-applied");
        assertThat(kubectl.run("get", "cm", "ssa", "-o", "jsonpath={.data.a}")
                        .ok()
                        .out())
                .isEqualTo("2");
    }

    @Test
    void editThroughAScriptedEditor() throws Exception {
        kubectl.runWithInput(DEPLOYMENT_YAML, "create", "-f", "-").ok();
        Path editor = dir.resolve("editor.sh");
        Files.writeString(editor, "#!/bin/sh\nsed -i 's/replicas: 2/replicas: 9/' \"$1\"\n");
        editor.toFile().setExecutable(true);
        Kubectl.Result edited =
                kubectl.runWithEnv(java.util.Map.of("KUBE_EDITOR", editor.toString()), "edit", "deploy", "web");
        assertThat(edited.ok().out()).contains("deployment.apps/web edited");
        assertThat(kubectl.run("get", "deploy", "web", "-o", "jsonpath={.spec.replicas}")
                        .ok()
                        .out())
                .isEqualTo("9");
    }
}
