package io.kubeloop.apiserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.kubeloop.clock.FakeClock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The seed articles' experiment: pull an informer's network cable for 30 seconds while the cluster changes, and
 * it must come back in sync; end its watches after compacting the history, and it must relist.
 */
class InformerUnderFaultsIT {

    private static final String NS = "default";
    private static final String AGENT = "informer-under-test/1.0";
    private static final Duration WAIT = Duration.ofSeconds(30);

    private final FakeClock clock = new FakeClock();
    private final EmbeddedApiServer server =
            EmbeddedApiServer.builder().clock(clock).faultInjection(true).start();
    private final KubernetesClient writer = client(null);
    private final KubernetesClient watched = client(AGENT);

    @AfterEach
    void stop() {
        watched.close();
        writer.close();
        server.close();
    }

    private KubernetesClient client(String userAgent) {
        Config config = Config.fromKubeconfig(server.kubeconfig());
        config.setWatchReconnectInterval(100);
        if (userAgent != null) {
            config.setUserAgent(userAgent);
        }
        return new KubernetesClientBuilder().withConfig(config).build();
    }

    private static ConfigMap configMap(String name, String v) {
        return new ConfigMapBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace(NS)
                .endMetadata()
                .withData(Map.of("v", v))
                .build();
    }

    private static Map<String, String> byName(List<ConfigMap> items) {
        return items.stream()
                .filter(cm -> !cm.getMetadata().getName().equals("kube-root-ca.crt")) // every namespace has it
                .collect(Collectors.toMap(
                        cm -> cm.getMetadata().getName(), cm -> cm.getData().get("v"), (a, b) -> a, TreeMap::new));
    }

    private Map<String, String> serverState() {
        return byName(writer.configMaps().inNamespace(NS).list().getItems());
    }

    /** Deletes, edits and creates behind the informer's back. */
    private void changeThings() {
        var cms = writer.configMaps().inNamespace(NS);
        for (int i = 0; i < 10; i += 3) {
            cms.withName("cm-" + i).delete();
        }
        for (int i = 1; i < 10; i += 3) {
            cms.withName("cm-" + i)
                    .edit(cm -> new ConfigMapBuilder(cm).addToData("v", "2").build());
        }
        for (int i = 10; i < 13; i++) {
            cms.resource(configMap("cm-" + i, "new")).create();
        }
    }

    private SharedIndexInformer<ConfigMap> syncedInformer() {
        for (int i = 0; i < 10; i++) {
            writer.configMaps()
                    .inNamespace(NS)
                    .resource(configMap("cm-" + i, "1"))
                    .create();
        }
        SharedIndexInformer<ConfigMap> informer =
                watched.configMaps().inNamespace(NS).inform();
        await().atMost(WAIT).until(informer::hasSynced);
        await().atMost(WAIT).until(informer::isWatching);
        assertThat(byName(informer.getStore().list())).hasSize(10);
        return informer;
    }

    @Test
    void anInformerCutOffForThirtySecondsCatchesUpWhenTheCableIsBack() {
        try (SharedIndexInformer<ConfigMap> informer = syncedInformer()) {
            Map<String, String> before = byName(informer.getStore().list());
            server.faults().partition(Duration.ofSeconds(30), "informer-under-test");
            changeThings();
            Map<String, String> expected = serverState();
            assertThat(expected).isNotEqualTo(before);
            await().during(Duration.ofMillis(500))
                    .atMost(WAIT)
                    .until(() -> byName(informer.getStore().list()).equals(before));

            clock.step(Duration.ofSeconds(30));
            await().atMost(WAIT).until(() -> byName(informer.getStore().list()).equals(expected));
            writer.configMaps()
                    .inNamespace(NS)
                    .resource(configMap("after", "1"))
                    .create();
            await().atMost(WAIT).until(() -> byName(informer.getStore().list()).containsKey("after"));
            assertThat(informer.isWatching()).isTrue();
        }
    }

    @Test
    void anInformerWhoseWatchEndsAfterACompactionRelistsAndCatchesUp() {
        try (SharedIndexInformer<ConfigMap> informer = syncedInformer()) {
            server.faults().stall(Duration.ofSeconds(60)); // its watch takes the first change and holds it
            changeThings();
            Map<String, String> expected = serverState();
            server.faults().compact();
            // Ending the watch drops the changes it had not taken; resuming after the one it holds gets 410.
            assertThat(server.faults().closeWatches("configmaps")).isEqualTo(1);
            server.faults().clear();
            await().atMost(WAIT).until(() -> byName(informer.getStore().list()).equals(expected));
            writer.configMaps()
                    .inNamespace(NS)
                    .resource(configMap("after", "1"))
                    .create();
            await().atMost(WAIT).until(() -> byName(informer.getStore().list()).containsKey("after"));
        }
    }
}
