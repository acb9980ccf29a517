package io.kubeloop.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.client.config.ClientConfig;
import io.kubeloop.cluster.EmbeddedCluster;
import io.kubeloop.demo.PodGuardian;
import io.kubeloop.demo.PodSet;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kubeloop run} without {@code --class}: the pod-guardian operator, run through {@link Main} on a thread of its
 * own against an embedded cluster's kubeconfig, keeps a PodSet's pods running, answers its probes, holds the lease
 * (in the kubeconfig context's namespace, as no --lease-namespace is given), and stops on an interrupt (as on
 * Ctrl-C).
 */
class RunPodGuardianIT {

    private static final String NS = "guarded";
    private static final Pattern PROBES = Pattern.compile("probes on [^:,]*:(\\d+)");
    private static final Pattern METRICS = Pattern.compile("metrics on [^:,]*:(\\d+)");

    @Test
    void runsPodGuardianAgainstAKubeconfigUntilStopped(@TempDir Path tmp) throws Exception {
        try (EmbeddedCluster cluster = EmbeddedCluster.builder().nodes(1).start()) {
            Path kubeconfig = cluster.apiServer().writeKubeconfig(tmp.resolve("kubeconfig"));
            try (KubernetesClient admin = KubernetesClient.create(ClientConfig.fromKubeconfig(kubeconfig))) {
                admin.resources(CustomResourceDefinition.class).create(PodGuardian.crd());
                admin.resources(Namespace.class)
                        .create(new NamespaceBuilder()
                                .withNewMetadata()
                                .withName(NS)
                                .endMetadata()
                                .build());
                Awaitility.await()
                        .atMost(Duration.ofSeconds(20))
                        .ignoreExceptions()
                        .until(() -> admin.resources(PodSet.class)
                                .inNamespace(NS)
                                .list()
                                .items()
                                .isEmpty());

                ByteArrayOutputStream out = new ByteArrayOutputStream();
                AtomicInteger exit = new AtomicInteger(-1);
                PrintStream originalOut = System.out;
                System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8)); // picocli's out is taken at run
                Thread run;
                try {
                    run = Thread.ofPlatform()
                            .name("kubeloop-run-it")
                            .start(() -> exit.set(Main.run(
                                    "run",
                                    "--kubeconfig",
                                    kubeconfig.toString(),
                                    "--namespace",
                                    NS,
                                    "--leader-election",
                                    "--identity",
                                    "it-1",
                                    "--metrics-port",
                                    "0",
                                    "--health-port",
                                    "0",
                                    "--bind-address",
                                    "127.0.0.1")));
                    Awaitility.await()
                            .atMost(Duration.ofSeconds(60))
                            .until(() -> out.toString(StandardCharsets.UTF_8).contains("kubeloop: pod-guardian")
                                    || !run.isAlive());
                } finally {
                    System.setOut(originalOut);
                }
                try {
                    String printed = out.toString(StandardCharsets.UTF_8);
                    assertThat(printed)
                            .as("exit %s", exit.get())
                            .contains("kubeloop: pod-guardian running against "
                                    + cluster.apiServer().url()
                                    + ", namespace guarded, leader election on lease default/pod-guardian as it-1; "
                                    + "metrics on 127.0.0.1:");
                    int probes = port(PROBES, printed);
                    int metrics = port(METRICS, printed);

                    Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> get(probes, "/readyz") == 200);
                    Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> admin.resources(Lease.class)
                            .inNamespace("default") // the kubeconfig context's: no --lease-namespace
                            .get(PodGuardian.LEASE)
                            .map(l -> "it-1".equals(l.getSpec().getHolderIdentity()))
                            .orElse(false));

                    admin.resources(PodSet.class).inNamespace(NS).create(podSet("web", 2));
                    Awaitility.await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                        PodSet web = admin.resources(PodSet.class)
                                .inNamespace(NS)
                                .get("web")
                                .orElseThrow();
                        assertThat(web.getStatus()).isNotNull();
                        assertThat(web.getStatus().getReadyReplicas()).isEqualTo(2);
                    });
                    List<Pod> pods =
                            admin.resources(Pod.class).inNamespace(NS).list().items();
                    assertThat(pods).hasSize(2).allSatisfy(p -> assertThat(
                                    p.getMetadata().getLabels())
                            .containsEntry(PodSet.NAME_LABEL, "web"));
                    assertThat(get(metrics, "/metrics")).isEqualTo(200);
                } finally {
                    run.interrupt();
                    run.join(Duration.ofSeconds(30));
                }
                assertThat(run.isAlive()).isFalse();
                assertThat(exit.get()).isZero();
            }
        }
    }

    private static int port(Pattern pattern, String printed) {
        Matcher m = pattern.matcher(printed);
        assertThat(m.find()).as(printed).isTrue();
        return Integer.parseInt(m.group(1));
    }

    private static int get(int port, String path) throws Exception {
        try (HttpClient http = HttpClient.newHttpClient()) {
            return http.send(
                            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                                    .timeout(Duration.ofSeconds(5))
                                    .build(),
                            HttpResponse.BodyHandlers.discarding())
                    .statusCode();
        }
    }

    private static PodSet podSet(String name, int replicas) {
        PodSet ps = new PodSet();
        ps.setMetadata(new ObjectMetaBuilder().withName(name).build());
        PodSet.Spec spec = new PodSet.Spec();
        spec.setReplicas(replicas);
        spec.setTemplate(new PodTemplateSpecBuilder()
                .withNewMetadata()
                .addToLabels("app", name)
                .endMetadata()
                .withNewSpec()
                .withTerminationGracePeriodSeconds(0L)
                .addNewContainer()
                .withName("app")
                .withImage("nginx")
                .endContainer()
                .endSpec()
                .build());
        ps.setSpec(spec);
        return ps;
    }
}
