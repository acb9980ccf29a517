package io.kubeloop.demo.deploy;

import static org.assertj.core.api.Assertions.fail;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.client.config.ClientConfig;
import io.kubeloop.controller.Manager;
import io.kubeloop.demo.PodGuardian;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.dataformat.yaml.YAMLMapper;
import tools.jackson.dataformat.yaml.YAMLWriteFeature;

/**
 * The repository's {@code deploy/} directory and {@code docs/operations.md}, and the generated files in it: the
 * CRD, the RBAC and the dashboard ConfigMap are derived from the code (or from another file), and a test compares.
 * With {@code -Dkubeloop.deploy.update=true} a test writes the derived text into the file instead of failing;
 * otherwise a mismatch leaves the expected text in {@code target/deploy-expected/} and says how to copy it.
 */
final class DeployFiles {

    /** The repository root: the nearest directory upwards that holds {@code deploy/00-namespace.yaml}. */
    static final Path ROOT = findRoot();

    static final Path DEPLOY = ROOT.resolve("deploy");
    static final Path MONITORING = DEPLOY.resolve("monitoring");
    /** The Grafana dashboard; in a subdirectory, because {@code kubectl apply -f deploy/monitoring/} reads every
     * {@code .json} file too, and a dashboard is no Kubernetes object. */
    static final Path DASHBOARD = MONITORING.resolve("dashboards/grafana-dashboard.json");

    static final Path OPERATIONS = ROOT.resolve("docs/operations.md");

    static final YAMLMapper YAML = YAMLMapper.builder()
            .disable(YAMLWriteFeature.WRITE_DOC_START_MARKER)
            .disable(YAMLWriteFeature.SPLIT_LINES)
            .build();
    static final JsonMapper JSON = JsonMapper.builder().build();

    /** The name of the Namespace, ServiceAccount, roles, bindings and Lease. */
    static final String NAME = "pod-guardian";

    private DeployFiles() {}

    private static Path findRoot() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("deploy/00-namespace.yaml"))) {
                return dir;
            }
        }
        throw new IllegalStateException(
                "no deploy/00-namespace.yaml in " + Path.of("").toAbsolutePath() + " or any parent");
    }

    static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every YAML document of {@code file} (documents separated by {@code ---} lines), comments dropped. */
    static List<JsonNode> documents(Path file) {
        List<JsonNode> docs = new ArrayList<>();
        for (String doc : read(file).split("(?m)^---\\s*$")) {
            JsonNode node = YAML.readTree(doc);
            if (node != null && !node.isMissingNode() && !node.isNull()) {
                docs.add(node);
            }
        }
        return docs;
    }

    /** The one document of {@code file} of kind {@code kind}. */
    static JsonNode document(Path file, String kind) {
        List<JsonNode> found = documents(file).stream()
                .filter(d -> d.path("kind").asString().equals(kind))
                .toList();
        if (found.size() != 1) {
            fail("expected one " + kind + " in " + ROOT.relativize(file) + ", found " + found.size());
        }
        return found.getFirst();
    }

    /**
     * Asserts that {@code file} holds exactly {@code expected}; in update mode writes it. {@code how} says what the
     * text is derived from.
     */
    static void assertGenerated(Path file, String expected, String how) {
        String relative = ROOT.relativize(file).toString();
        String actual = Files.exists(file) ? read(file) : null;
        if (expected.equals(actual)) {
            return;
        }
        try {
            if (Boolean.getBoolean("kubeloop.deploy.update")) {
                Files.writeString(file, expected);
                System.out.println("DeployFiles: wrote " + relative + " (" + how + ")");
                return;
            }
            Path out = ROOT.resolve("kubeloop-demo/target/deploy-expected").resolve(relative);
            Files.createDirectories(out.getParent());
            Files.writeString(out, expected);
            fail(relative + " differs from " + how + ". The expected text is in " + ROOT.relativize(out)
                    + ": review it and copy it (cp " + ROOT.relativize(out) + " " + relative + "), or run\n"
                    + "  mvn -B -ntp -o -pl kubeloop-demo -am test -Dtest='DeployManifestsTest' "
                    + "-Dsurefire.failIfNoSpecifiedTests=false -Dkubeloop.deploy.update=true\n"
                    + "--- expected ---\n" + expected + "\n--- actual ---\n" + actual);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@code deploy/10-crd.yaml}'s text: {@link PodGuardian#crd()} as YAML, with a header. */
    static String crdYaml() {
        CustomResourceDefinition crd = PodGuardian.crd();
        return "# The PodSet CustomResourceDefinition: PodGuardian.crd() as YAML. Generated; do not edit by hand:\n"
                + "# DeployManifestsTest checks it, and -Dkubeloop.deploy.update=true rewrites it (deploy/README.md).\n"
                + YAML.writeValueAsString(JSON.valueToTree(crd));
    }

    /**
     * {@code deploy/30-rbac.yaml}'s text: the RBAC that {@code kubeloop run --leader-election} needs, derived by the
     * manager from the same builder calls (all namespaces, the Lease in namespace pod-guardian). Building the
     * manager sends no request, so the client points nowhere.
     */
    static String rbacYaml() {
        try (KubernetesClient client = KubernetesClient.create(
                        ClientConfig.builder().server("http://127.0.0.1:9").build());
                Manager manager =
                        PodGuardian.builder(client).leaderElection(NAME).build()) {
            return manager.rbac(NAME);
        }
    }

    /** {@code deploy/monitoring/grafana-dashboard-configmap.yaml}: the dashboard JSON in a ConfigMap. */
    static String dashboardConfigMap(String dashboardJson) {
        StringBuilder b = new StringBuilder();
        b.append("# dashboards/grafana-dashboard.json as a ConfigMap for Grafana's dashboard sidecar"
                + " (kube-prometheus-stack loads\n");
        b.append("# every ConfigMap labelled grafana_dashboard: \"1\"). Generated from the JSON; DeployManifestsTest"
                + " checks they are equal\n");
        b.append("# (mvn -pl kubeloop-demo test -Dtest=DeployManifestsTest -Dkubeloop.deploy.update=true regenerates"
                + " it).\n");
        b.append("""
                apiVersion: v1
                kind: ConfigMap
                metadata:
                  name: pod-guardian-dashboard
                  namespace: pod-guardian
                  labels:
                    app.kubernetes.io/name: pod-guardian
                    app.kubernetes.io/part-of: kubeloop
                    grafana_dashboard: "1"
                data:
                  pod-guardian.json: |
                """);
        dashboardJson.lines().forEach(line -> b.append(line.isBlank() ? "" : "    " + line)
                .append('\n'));
        return b.toString();
    }
}
