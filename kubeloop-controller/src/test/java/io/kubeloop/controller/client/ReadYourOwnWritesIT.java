package io.kubeloop.controller.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.kubeloop.apiserver.fault.Faults;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.controller.ControllerClient;
import io.kubeloop.controller.Manager;
import io.kubeloop.informer.ResourceEventHandler;
import io.kubeloop.testkit.KubeloopTest;
import io.kubeloop.testkit.TestNamespace;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Read-your-own-writes, made deterministic by a fault: the server holds every config map watch event for a while
 * ({@code Faults.stall}), so the cache lags behind the writes exactly as a busy watch would.
 */
@KubeloopTest(faults = true)
class ReadYourOwnWritesIT {

    private static final Duration STALL = Duration.ofSeconds(2);

    private Manager manager;

    @AfterEach
    void close() {
        if (manager != null) {
            manager.close();
        }
    }

    private ControllerClient client(Manager.Builder builder) throws Exception {
        manager = builder.build();
        manager.informerFactory().informerFor(ConfigMap.class);
        manager.start();
        return manager.client();
    }

    private static ConfigMap configMap(String ns, String name, String value) {
        return new ConfigMapBuilder()
                .withNewMetadata()
                .withNamespace(ns)
                .withName(name)
                .endMetadata()
                .withData(new HashMap<>(Map.of("k", value)))
                .build();
    }

    @Test
    void aReadAfterAWriteSeesTheWrite(KubernetesClient kc, Faults faults, @TestNamespace String ns) throws Exception {
        ControllerClient client =
                client(Manager.builder(kc).metricsPort(0).healthProbePort(0).readYourOwnWrites(true));
        client.create(configMap(ns, "a", "1"));
        assertThat(client.get(ConfigMap.class, ns, "a")).isPresent();

        faults.stall(STALL, "configmaps");
        ConfigMap copy = client.get(ConfigMap.class, ns, "a").orElseThrow();
        copy.getData().put("k", "2");
        ConfigMap written = client.update(copy);

        ConfigMap read = client.get(ConfigMap.class, ns, "a").orElseThrow();
        assertThat(read.getData()).containsEntry("k", "2");
        assertThat(read.getMetadata().getResourceVersion())
                .isEqualTo(written.getMetadata().getResourceVersion());

        faults.stall(STALL, "configmaps");
        client.create(configMap(ns, "b", "1"));
        assertThat(client.list(ConfigMap.class, ns))
                .extracting(cm -> cm.getMetadata().getName())
                .contains("a", "b");

        faults.stall(STALL, "configmaps");
        client.delete(read);
        assertThat(client.get(ConfigMap.class, ns, "a")).isEmpty();
    }

    @Test
    void withoutReadYourOwnWritesAReadRightAfterAWriteMaySeeTheStateBeforeIt(
            KubernetesClient kc, Faults faults, @TestNamespace String ns) throws Exception {
        ControllerClient client = client(Manager.builder(kc).metricsPort(0).healthProbePort(0)); // the default: off
        client.create(configMap(ns, "a", "1"));
        await().until(() -> client.get(ConfigMap.class, ns, "a").isPresent());

        faults.stall(STALL, "configmaps");
        ConfigMap copy = client.get(ConfigMap.class, ns, "a").orElseThrow();
        copy.getData().put("k", "2");
        client.update(copy);

        assertThat(client.get(ConfigMap.class, ns, "a").orElseThrow().getData())
                .as("stale: the cache has not seen the write yet")
                .containsEntry("k", "1");
        await().atMost(Duration.ofSeconds(10))
                .until(
                        () -> client.get(ConfigMap.class, ns, "a")
                                .orElseThrow()
                                .getData()
                                .get("k"),
                        "2"::equals);
    }

    @Test
    void theWaitIsBoundedAndThenTheReadReturnsWhatTheCacheHas(
            KubernetesClient kc, Faults faults, @TestNamespace String ns) throws Exception {
        ControllerClient client = client(Manager.builder(kc)
                .metricsPort(0)
                .healthProbePort(0)
                .readYourOwnWrites(true)
                .readYourOwnWritesTimeout(Duration.ofMillis(300)));
        client.create(configMap(ns, "a", "1"));
        assertThat(client.get(ConfigMap.class, ns, "a")).isPresent();

        faults.stall(Duration.ofSeconds(5), "configmaps");
        ConfigMap copy = client.get(ConfigMap.class, ns, "a").orElseThrow();
        copy.getData().put("k", "2");
        client.update(copy);

        long start = System.nanoTime();
        ConfigMap read = client.get(ConfigMap.class, ns, "a").orElseThrow();
        Duration waited = Duration.ofNanos(System.nanoTime() - start);
        assertThat(read.getData()).as("the stall outlasts the bound").containsEntry("k", "1");
        assertThat(waited).isBetween(Duration.ofMillis(250), Duration.ofSeconds(3));
        faults.clear();
    }

    @Test
    void noEventIsFilteredAnotherWritersChangeRightAfterOurOwnWriteReachesHandlers(
            KubernetesClient kc, Faults faults, @TestNamespace String ns) throws Exception {
        ControllerClient client =
                client(Manager.builder(kc).metricsPort(0).healthProbePort(0).readYourOwnWrites(true));
        List<String> seen = new CopyOnWriteArrayList<>();
        manager.informerFactory().informerFor(ConfigMap.class).addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onUpdate(ConfigMap oldObject, ConfigMap newObject) {
                seen.add(
                        newObject.getData().get("k") + "/" + newObject.getData().get("other"));
            }
        });
        client.create(configMap(ns, "a", "1"));
        assertThat(client.get(ConfigMap.class, ns, "a")).isPresent();

        faults.stall(Duration.ofSeconds(1), "configmaps");
        ConfigMap mine = client.get(ConfigMap.class, ns, "a").orElseThrow();
        mine.getData().put("k", "mine");
        client.update(mine);
        kc.resources(ConfigMap.class).inNamespace(ns).edit("a", cm -> {
            cm.getData().put("other", "theirs");
            return cm;
        });

        ConfigMap read = client.get(ConfigMap.class, ns, "a").orElseThrow();
        assertThat(read.getData()).containsEntry("k", "mine");
        await().atMost(Duration.ofSeconds(10)).until(() -> seen.contains("mine/theirs"));
    }
}
