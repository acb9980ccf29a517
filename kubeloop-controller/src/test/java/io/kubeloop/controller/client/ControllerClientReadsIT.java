package io.kubeloop.controller.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.controller.ControllerClient;
import io.kubeloop.controller.Manager;
import io.kubeloop.controller.Request;
import io.kubeloop.informer.cache.CacheMutationDetector;
import io.kubeloop.informer.cache.CacheMutationException;
import io.kubeloop.model.selector.FieldSelector;
import io.kubeloop.model.selector.LabelSelector;
import io.kubeloop.testkit.KubeloopTest;
import io.kubeloop.testkit.TestNamespace;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Cached reads of {@link ControllerClient} over HTTP against the embedded API server. */
@KubeloopTest
class ControllerClientReadsIT {

    private Manager manager;

    @AfterEach
    void close() {
        if (manager != null) {
            manager.close();
        }
    }

    private Manager started(KubernetesClient client, Manager.Builder builder, Class<?>... watched) throws Exception {
        manager = builder.cacheSyncTimeout(Duration.ofSeconds(20)).build();
        for (Class<?> type : watched) {
            manager.informerFactory().informerFor(type.asSubclass(io.fabric8.kubernetes.api.model.HasMetadata.class));
        }
        manager.start();
        return manager;
    }

    private static ConfigMap configMap(String ns, String name, Map<String, String> labels) {
        return new ConfigMapBuilder()
                .withNewMetadata()
                .withNamespace(ns)
                .withName(name)
                .withLabels(labels)
                .endMetadata()
                .withData(Map.of("k", "v"))
                .build();
    }

    @Test
    void getReturnsACopyThatTheReconcilerMayChange(KubernetesClient client, @TestNamespace String ns) throws Exception {
        client.resources(ConfigMap.class).create(configMap(ns, "a", Map.of()));
        ControllerClient cc = started(
                        client, Manager.builder(client).metricsPort(0).healthProbePort(0), ConfigMap.class)
                .client();

        ConfigMap copy = cc.get(ConfigMap.class, ns, "a").orElseThrow();
        copy.getData().put("k", "changed");
        copy.getMetadata().getLabels().put("new", "label");

        ConfigMap cached = cc.getReadOnly(ConfigMap.class, ns, "a").orElseThrow();
        assertThat(cached).isNotSameAs(copy);
        assertThat(cached.getData()).containsEntry("k", "v");
        assertThat(cached.getMetadata().getLabels()).doesNotContainKey("new");
        assertThat(cc.get(ConfigMap.class, Request.of(ns, "a")).orElseThrow().getData())
                .containsEntry("k", "v");
        assertThat(cc.get(ConfigMap.class, ns, "missing")).isEmpty();
    }

    @Test
    void readOnlyReturnsTheSharedCachedObject(KubernetesClient client, @TestNamespace String ns) throws Exception {
        client.resources(ConfigMap.class).create(configMap(ns, "a", Map.of("app", "web")));
        ControllerClient cc = started(
                        client, Manager.builder(client).metricsPort(0).healthProbePort(0), ConfigMap.class)
                .client();

        ConfigMap first = cc.getReadOnly(ConfigMap.class, Request.of(ns, "a")).orElseThrow();
        assertThat(cc.getReadOnly(ConfigMap.class, ns, "a")).get().isSameAs(first);
        assertThat(cc.listReadOnly(ConfigMap.class, ns, LabelSelector.everything(), FieldSelector.everything()))
                .filteredOn(cm -> !cm.getMetadata().getName().equals("kube-root-ca.crt")) // every namespace has it
                .singleElement()
                .isSameAs(first);
        assertThat(manager.informerFactory()
                        .informerFor(ConfigMap.class)
                        .indexer()
                        .getByKey(ns + "/a"))
                .get()
                .isSameAs(first);
        assertThat(cc.list(ConfigMap.class, ns))
                .filteredOn(cm -> !cm.getMetadata().getName().equals("kube-root-ca.crt"))
                .singleElement()
                .isNotSameAs(first)
                .isEqualTo(first);
    }

    @Test
    void theMutationDetectorCatchesAChangeToAReadOnlyObject(KubernetesClient client, @TestNamespace String ns)
            throws Exception {
        String before = System.getProperty(CacheMutationDetector.SYSTEM_PROPERTY);
        System.setProperty(CacheMutationDetector.SYSTEM_PROPERTY, "true");
        try {
            client.resources(ConfigMap.class).create(configMap(ns, "a", Map.of()));
            ControllerClient cc = started(
                            client, Manager.builder(client).metricsPort(0).healthProbePort(0), ConfigMap.class)
                    .client();
            CacheMutationDetector.checkNow(); // nothing reported before

            cc.get(ConfigMap.class, ns, "a").orElseThrow().getData().put("k", "fine: a copy");
            CacheMutationDetector.checkNow();

            cc.getReadOnly(ConfigMap.class, ns, "a").orElseThrow().getData().put("k", "a bug: the cached object");
            assertThatThrownBy(CacheMutationDetector::checkNow)
                    .isInstanceOf(CacheMutationException.class)
                    .hasMessageContaining(ns + "/a");
        } finally {
            if (before == null) {
                System.clearProperty(CacheMutationDetector.SYSTEM_PROPERTY);
            } else {
                System.setProperty(CacheMutationDetector.SYSTEM_PROPERTY, before);
            }
        }
    }

    @Test
    void listsByNamespaceLabelSelectorFieldSelectorAndIndex(KubernetesClient client, @TestNamespace String ns)
            throws Exception {
        String other = ns + "-b";
        client.resources(Namespace.class)
                .create(new NamespaceBuilder()
                        .withNewMetadata()
                        .withName(other)
                        .endMetadata()
                        .build());
        try {
            var cms = client.resources(ConfigMap.class).inAnyNamespace();
            cms.create(configMap(ns, "web-1", Map.of("app", "web", "tier", "front")));
            cms.create(configMap(ns, "web-2", Map.of("app", "web", "tier", "back")));
            cms.create(configMap(ns, "db", Map.of("app", "db")));
            cms.create(configMap(other, "web-1", Map.of("app", "web")));
            manager = Manager.builder(client).metricsPort(0).healthProbePort(0).build();
            manager.informerFactory()
                    .informerFor(ConfigMap.class)
                    .addIndexers(Map.of(
                            "tier",
                            cm -> cm.getMetadata().getLabels().containsKey("tier")
                                    ? List.of(cm.getMetadata().getLabels().get("tier"))
                                    : List.of()));
            manager.start();
            ControllerClient cc = manager.client();

            assertThat(names(cc.list(ConfigMap.class, ns))).contains("web-1", "web-2", "db");
            assertThat(names(cc.list(ConfigMap.class, ns, LabelSelector.parse("app=web"))))
                    .containsExactlyInAnyOrder("web-1", "web-2");
            assertThat(keys(cc.list(ConfigMap.class, "", LabelSelector.parse("app=web"))))
                    .contains(ns + "/web-1", ns + "/web-2", other + "/web-1");
            assertThat(keys(cc.list(
                            ConfigMap.class,
                            "",
                            LabelSelector.everything(),
                            FieldSelector.parse("metadata.name=web-1"))))
                    .containsExactlyInAnyOrder(ns + "/web-1", other + "/web-1");
            assertThat(keys(cc.list(
                            ConfigMap.class,
                            "",
                            LabelSelector.parse("app=web"),
                            FieldSelector.parse("metadata.namespace=" + other))))
                    .containsExactly(other + "/web-1");
            assertThat(keys(cc.list(
                            ConfigMap.class, ns, LabelSelector.everything(), FieldSelector.parse("metadata.name!=db"))))
                    .doesNotContain(ns + "/db")
                    .contains(ns + "/web-1", ns + "/web-2");
            assertThat(keys(cc.listByIndex(ConfigMap.class, "", "tier", "front")))
                    .containsExactly(ns + "/web-1");
            assertThat(cc.listByIndex(ConfigMap.class, other, "tier", "front")).isEmpty();
            assertThat(cc.listByIndexReadOnly(ConfigMap.class, ns, "tier", "back"))
                    .singleElement()
                    .isSameAs(cc.getReadOnly(ConfigMap.class, ns, "web-2").orElseThrow());

            assertThatThrownBy(() -> cc.listByIndex(ConfigMap.class, ns, "nope", "x"))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("no index \"nope\"");
            assertThatThrownBy(() ->
                            cc.list(ConfigMap.class, ns, LabelSelector.everything(), FieldSelector.parse("data.k=v")))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("data.k");
        } finally {
            client.resources(Namespace.class).delete(other);
        }
    }

    @Test
    void podsAreSelectedByTheFieldsTheServerSelectsThemBy(KubernetesClient client, @TestNamespace String ns)
            throws Exception {
        var pods = client.resources(Pod.class);
        pods.create(pod(ns, "on-1", "node-1"));
        pods.create(pod(ns, "on-2", "node-2"));
        ControllerClient cc = started(
                        client, Manager.builder(client).metricsPort(0).healthProbePort(0), Pod.class)
                .client();

        FieldSelector onNode1 = FieldSelector.parse("spec.nodeName=node-1");
        assertThat(names(cc.list(Pod.class, ns, LabelSelector.everything(), onNode1)))
                .containsExactly("on-1");
        assertThat(names(cc.list(Pod.class, ns, LabelSelector.everything(), FieldSelector.parse("spec.host=node-2"))))
                .as("the server's alias of spec.nodeName")
                .containsExactly("on-2");
        assertThat(names(cc.apiReader().list(Pod.class, ns, LabelSelector.everything(), onNode1)))
                .as("the same answer as the server")
                .containsExactly("on-1");
    }

    private static Pod pod(String ns, String name, String node) {
        return new PodBuilder()
                .withNewMetadata()
                .withNamespace(ns)
                .withName(name)
                .endMetadata()
                .withNewSpec()
                .withNodeName(node)
                .addNewContainer()
                .withName("c")
                .withImage("nginx")
                .endContainer()
                .endSpec()
                .build();
    }

    @Test
    void aManagerInOneNamespaceCachesOnlyThatNamespace(KubernetesClient client, @TestNamespace String ns)
            throws Exception {
        client.resources(ConfigMap.class).create(configMap(ns, "a", Map.of()));
        ControllerClient cc = started(
                        client,
                        Manager.builder(client)
                                .metricsPort(0)
                                .healthProbePort(0)
                                .namespace(ns),
                        ConfigMap.class)
                .client();

        assertThat(keys(cc.list(ConfigMap.class, ""))).allMatch(k -> k.startsWith(ns + "/"));
        assertThatThrownBy(() -> cc.get(ConfigMap.class, "default", "kube-root-ca.crt"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("of namespace " + ns + " only")
                .hasMessageContaining("apiReader()");
        assertThatThrownBy(() -> cc.list(ConfigMap.class, "default")).isInstanceOf(IllegalArgumentException.class);
        assertThat(cc.apiReader().list(ConfigMap.class, "default")).isNotNull();
    }

    @Test
    void readingATypeNobodyWatchesStartsItsInformerOnce(KubernetesClient client, @TestNamespace String ns)
            throws Exception {
        client.resources(Secret.class)
                .create(new SecretBuilder()
                        .withNewMetadata()
                        .withNamespace(ns)
                        .withName("s")
                        .endMetadata()
                        .withStringData(Map.of("k", "v"))
                        .build());
        ControllerClient cc = started(
                        client, Manager.builder(client).metricsPort(0).healthProbePort(0), ConfigMap.class)
                .client();
        assertThat(manager.informerFactory().informers().keySet()).noneMatch(k -> k.objectType() == Secret.class);

        String firstRead =
                stderrOf(() -> assertThat(cc.get(Secret.class, ns, "s")).isPresent());
        String secondRead = stderrOf(() -> assertThat(cc.list(Secret.class, ns)).hasSize(1));

        assertThat(firstRead)
                .contains("INFO io.kubeloop.controller.ControllerClient")
                .contains("Secret (secrets) is read but no controller watches it: started an informer for it; "
                        + "it is now cached for every namespace (cluster-wide)");
        assertThat(secondRead).doesNotContain("started an informer");

        assertThat(manager.informerFactory().informers().keySet())
                .filteredOn(k -> k.objectType() == Secret.class)
                .hasSize(1)
                .allMatch(k -> k.namespace() == null);
        assertThat(manager.informerFactory().informerFor(Secret.class).hasSynced())
                .isTrue();
    }

    @Test
    void failOnMissingInformerFailsAtOnceAndStartsNothing(KubernetesClient client, @TestNamespace String ns)
            throws Exception {
        ControllerClient cc = started(
                        client,
                        Manager.builder(client)
                                .metricsPort(0)
                                .healthProbePort(0)
                                .failOnMissingInformer(true),
                        ConfigMap.class)
                .client();

        assertThat(cc.get(ConfigMap.class, ns, "none")).isEmpty();
        assertThatThrownBy(() -> cc.get(Secret.class, ns, "s"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Secret")
                .hasMessageContaining("not cached")
                .hasMessageContaining("apiReader()");
        assertThat(manager.informerFactory().informers().keySet()).noneMatch(k -> k.objectType() == Secret.class);
        assertThat(cc.apiReader().get(Secret.class, ns, "s")).isEmpty();
    }

    @Test
    void aCacheThatCannotSyncFailsTheReadNamingTheTypeAndTheError(KubernetesClient client) throws Exception {
        manager = Manager.builder(client)
                .metricsPort(0)
                .healthProbePort(0)
                .cacheSyncTimeout(Duration.ofSeconds(1))
                .build();
        manager.start();
        ControllerClient cc = manager.client();

        // No CustomResourceDefinition serves widgets: the informer's list fails with a 404 and it backs off.
        assertThatThrownBy(() -> cc.list(Widget.class, ""))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Widget")
                .hasMessageContaining("timed out after PT1S")
                .hasMessageContaining("last error");
        long start = System.nanoTime();
        assertThatThrownBy(() -> cc.get(Widget.class, "", "w"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("has not synced since");
        assertThat(Duration.ofNanos(System.nanoTime() - start))
                .as("a second read fails at once instead of waiting again")
                .isLessThan(Duration.ofMillis(900));
    }

    /** What slf4j-simple (which writes to the System.err of the moment) logged while {@code body} ran. */
    private static String stderrOf(Runnable body) {
        java.io.PrintStream original = System.err;
        java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
        System.setErr(new java.io.PrintStream(captured, true, java.nio.charset.StandardCharsets.UTF_8));
        try {
            body.run();
        } finally {
            System.setErr(original);
        }
        String text = captured.toString(java.nio.charset.StandardCharsets.UTF_8);
        original.print(text);
        return text;
    }

    private static List<String> names(List<? extends io.fabric8.kubernetes.api.model.HasMetadata> objects) {
        return objects.stream().map(o -> o.getMetadata().getName()).toList();
    }

    private static List<String> keys(List<? extends io.fabric8.kubernetes.api.model.HasMetadata> objects) {
        return objects.stream()
                .map(o -> o.getMetadata().getNamespace() + "/" + o.getMetadata().getName())
                .toList();
    }
}
