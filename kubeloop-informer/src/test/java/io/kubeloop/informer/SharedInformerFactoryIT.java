package io.kubeloop.informer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Version;
import io.kubeloop.apiserver.EmbeddedApiServer;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.client.codec.Decoding;
import io.kubeloop.client.config.ClientConfig;
import io.kubeloop.client.transport.RateLimiter;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.ValueDeserializer;
import tools.jackson.databind.annotation.JsonDeserialize;
import tools.jackson.databind.json.JsonMapper;

/** {@link SharedInformerFactory} against the embedded API server: sharing, start, sync, shutdown, options. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SharedInformerFactoryIT {

    private static final Duration WAIT = Duration.ofSeconds(30);

    private static EmbeddedApiServer server;
    private static KubernetesClient client;
    private final TrackingThreadFactory threads = new TrackingThreadFactory();
    private SharedInformerFactory factory;

    /** A custom resource as a user class: the factory resolves it from its annotations. */
    @Group("example.com")
    @Version("v1")
    @Kind("Widget")
    @Plural("widgets")
    @JsonDeserialize(using = ValueDeserializer.None.class) // as fabric8's own classes: not HasMetadata's by-kind lookup
    public static final class Widget implements HasMetadata, Namespaced {
        private static final long serialVersionUID = 1L;

        private String apiVersion = "example.com/v1";
        private ObjectMeta metadata;

        @SuppressWarnings("serial") // like fabric8's own model classes, which no one serializes with Java serialization
        private Map<String, Object> spec;

        @Override
        public ObjectMeta getMetadata() {
            return metadata;
        }

        @Override
        public void setMetadata(ObjectMeta metadata) {
            this.metadata = metadata;
        }

        @Override
        public String getApiVersion() {
            return apiVersion;
        }

        @Override
        public void setApiVersion(String apiVersion) {
            this.apiVersion = apiVersion;
        }

        public void setKind(String kind) {
            // always Widget
        }

        public Map<String, Object> getSpec() {
            return spec;
        }

        public void setSpec(Map<String, Object> spec) {
            this.spec = spec;
        }
    }

    @BeforeAll
    static void startServer() throws Exception {
        server = EmbeddedApiServer.builder()
                .bookmarkInterval(Duration.ofMillis(500))
                .start();
        client = KubernetesClient.builder(
                        ClientConfig.builder().server(server.url()).build())
                .rateLimiter(RateLimiter.unlimited())
                .build();
        for (String ns : List.of("team-a", "team-b")) {
            client.resources(Namespace.class)
                    .create(new NamespaceBuilder()
                            .withNewMetadata()
                            .withName(ns)
                            .endMetadata()
                            .build());
        }
        client.genericResources("apiextensions.k8s.io/v1", "CustomResourceDefinition")
                .create(JsonMapper.builder().build().readValue("""
                {"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
                 "metadata":{"name":"widgets.example.com"},
                 "spec":{"group":"example.com","scope":"Namespaced",
                  "names":{"kind":"Widget","plural":"widgets","singular":"widget","listKind":"WidgetList"},
                  "versions":[{"name":"v1","served":true,"storage":true,
                   "schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}}
                """, GenericKubernetesResource.class));
        for (String ns : List.of("team-a", "team-b")) {
            client.resources(Pod.class).inNamespace(ns).create(pod("web", "web"));
            client.resources(Pod.class).inNamespace(ns).create(pod("db", "db"));
            client.resources(ConfigMap.class)
                    .inNamespace(ns)
                    .create(new ConfigMapBuilder()
                            .withNewMetadata()
                            .withName("settings")
                            .endMetadata()
                            .build());
        }
        await().atMost(WAIT).ignoreExceptions().until(() -> {
            Widget w = new Widget();
            w.setMetadata(new ObjectMetaBuilder().withName("w1").build());
            w.setSpec(Map.of("size", 1));
            client.resources(Widget.class).inNamespace("team-a").create(w);
            return true;
        });
    }

    @AfterAll
    static void stopServer() {
        client.close();
        server.close();
    }

    @AfterEach
    void shutdown() {
        if (factory != null) {
            factory.shutdown();
        }
        assertThat(threads.alive()).as("informer threads left running").isEmpty();
    }

    private static Pod pod(String name, String app) {
        return new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .addToLabels("app", app)
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("c")
                .withImage("nginx")
                .endContainer()
                .endSpec()
                .build();
    }

    private SharedInformerFactory.Builder builder() {
        return SharedInformerFactory.builder(client).threadFactory(threads);
    }

    @Test
    void asksWithTheSameKeyShareOneInformerWhateverTheCallSite() {
        factory = builder().build();
        UnaryOperator<HasMetadata> strip = Transforms.stripManagedFields();
        assertThat(factory.informerFor(Pod.class))
                .isSameAs(factory.informerFor(Pod.class))
                .isSameAs(factory.informerFor(Pod.class, InformerOptions.defaults()));
        assertThat(factory.informerFor(
                        Pod.class,
                        InformerOptions.builder().labelSelector("b=2,a=1").build()))
                .isSameAs(factory.informerFor(
                        Pod.class,
                        InformerOptions.builder().labelSelector("a=1, b=2").build()));
        assertThat(factory.informerFor(
                        Pod.class, InformerOptions.builder().transform(strip).build()))
                .isSameAs(factory.informerFor(
                        Pod.class,
                        InformerOptions.builder()
                                .transform(Transforms.stripManagedFields())
                                .build()));
        assertThat(factory.genericInformerFor("v1", "Pod")).isSameAs(factory.genericInformerFor("v1", "Pod"));

        // ...and every difference in the key is another informer.
        List<SharedIndexInformer<?>> different = List.of(
                factory.informerFor(Pod.class),
                factory.informerFor(
                        Pod.class, InformerOptions.builder().namespace("team-a").build()),
                factory.informerFor(
                        Pod.class, InformerOptions.builder().namespace("team-b").build()),
                factory.informerFor(
                        Pod.class,
                        InformerOptions.builder().labelSelector("a=1,b=2").build()),
                factory.informerFor(
                        Pod.class,
                        InformerOptions.builder()
                                .fieldSelector("metadata.name=web")
                                .build()),
                factory.informerFor(
                        Pod.class, InformerOptions.builder().transform(strip).build()),
                factory.genericInformerFor("v1", "Pod"),
                factory.informerFor(ConfigMap.class));
        assertThat(different).doesNotHaveDuplicates();
        assertThat(factory.informers()).hasSize(different.size());
        assertThat(different)
                .extracting(SharedIndexInformer::name)
                .doesNotHaveDuplicates()
                .contains("pods", "pods in team-a", "pods [a=1,b=2]", "configmaps");
    }

    @Test
    void startStartsOnlyWhatIsNotStartedAndWaitForCacheSyncReportsEachStartedInformer() {
        factory = builder().build();
        SharedIndexInformer<Pod> pods = factory.informerFor(Pod.class);
        factory.start();
        SharedIndexInformer<ConfigMap> configMaps = factory.informerFor(ConfigMap.class);
        Map<InformerKey, Boolean> synced = factory.waitForCacheSync(WAIT);
        assertThat(synced).hasSize(1).containsValue(true);
        assertThat(synced.keySet())
                .singleElement()
                .extracting(InformerKey::objectType)
                .isEqualTo(Pod.class);
        assertThat(configMaps.health().state()).isEqualTo(InformerHealth.State.NOT_STARTED);
        assertThat(pods.indexer().listKeys()).contains("team-a/web", "team-b/db");

        factory.start(); // starts the config maps; the pods informer is not started twice
        assertThat(factory.waitForCacheSync(WAIT)).hasSize(2).doesNotContainValue(false);
        assertThat(configMaps.indexer().listKeys()).contains("team-a/settings", "team-b/settings");
    }

    @Test
    void waitForAllCachesSyncedIsTrueOnlyWhenEveryInformerHandedOutHasStartedAndSynced() {
        factory = builder().build();
        factory.informerFor(Pod.class);
        factory.start();
        SharedIndexInformer<ConfigMap> configMaps = factory.informerFor(ConfigMap.class); // after the start
        assertThat(factory.waitForAllCachesSynced(WAIT))
                .as("config maps were never started")
                .isFalse();
        assertThat(factory.waitForCacheSync(WAIT))
                .as("the map form reports only started informers")
                .hasSize(1)
                .doesNotContainValue(false);

        factory.start();
        assertThat(factory.waitForAllCachesSynced(WAIT)).isTrue();
        assertThat(configMaps.hasSynced()).isTrue();
        assertThat(builder().build().waitForAllCachesSynced(Duration.ZERO))
                .as("nothing to wait for")
                .isTrue();
    }

    /**
     * The factory hands coalesceUpdates to every informer. (Read through a package-private accessor: while an
     * informer's process loop holds the DeltaFIFO's lock its reflector waits, so whether two updates ever meet in
     * the queue is a race a test cannot steer; DeltaFIFOEnqueueTest pins the coalescing itself.)
     */
    @Test
    void theFactoryTurnsUpdateCoalescingOffForEveryInformer() {
        factory = builder().build();
        assertThat(factory.informerFor(Pod.class).coalescesUpdates())
                .as("the default")
                .isTrue();
        factory.shutdown();
        factory = builder().coalesceUpdates(false).build();
        assertThat(factory.informerFor(Pod.class).coalescesUpdates()).isFalse();
        assertThat(factory.informerFor(
                                ConfigMap.class,
                                InformerOptions.builder().namespace("team-a").build())
                        .coalescesUpdates())
                .isFalse();
    }

    @Test
    void theFactorysDecodingFillsTheCacheWithCompactObjectsWithoutManagedFields() {
        factory = builder().decoding(Decoding.compact().withoutManagedFields()).build();
        SharedIndexInformer<Pod> pods = factory.informerFor(Pod.class);
        factory.start();
        assertThat(factory.waitForCacheSync(WAIT)).doesNotContainValue(false);
        Pod web = pods.lister().namespace("team-a").get("web").orElseThrow();
        Pod fromServer =
                client.resources(Pod.class).inNamespace("team-a").get("web").orElseThrow();
        assertThat(fromServer.getMetadata().getManagedFields()).isNotEmpty();
        assertThat(web.getMetadata().getManagedFields()).isNullOrEmpty();
        assertThat(web.getMetadata().getLabels())
                .isEqualTo(fromServer.getMetadata().getLabels());
        // compact objects refuse mutation instead of silently changing what every reader shares
        assertThatThrownBy(() -> web.getSpec().getContainers().add(new Container()))
                .isInstanceOf(UnsupportedOperationException.class);
        fromServer.getSpec().getContainers().add(new Container()); // a plain client's objects stay ordinary
    }

    @Test
    void namespaceTweakAndSelectorsNarrowWhatIsCached() {
        factory = builder()
                .namespace("team-a")
                .tweakListOptions(o -> o.toBuilder().labelSelector("app=web").build())
                .build();
        SharedIndexInformer<Pod> web = factory.informerFor(Pod.class);
        SharedIndexInformer<Pod> dbInTeamB = factory.informerFor(
                Pod.class,
                InformerOptions.builder()
                        .namespace("team-b")
                        .fieldSelector("metadata.name=db")
                        .build());
        factory.start();
        assertThat(factory.waitForCacheSync(WAIT)).doesNotContainValue(false);
        assertThat(web.indexer().listKeys()).containsExactly("team-a/web");
        // the factory's tweak sets app=web on every informer, so name=db in team-b matches nothing
        assertThat(dbInTeamB.indexer().listKeys()).isEmpty();

        client.resources(Pod.class).inNamespace("team-a").create(pod("web-2", "web"));
        client.resources(Pod.class).inNamespace("team-a").create(pod("db-2", "db"));
        await().atMost(WAIT).until(() -> web.indexer().listKeys().contains("team-a/web-2"));
        assertThat(web.indexer().listKeys()).doesNotContain("team-a/db-2");
        client.resources(Pod.class).inNamespace("team-a").delete("web-2");
        client.resources(Pod.class).inNamespace("team-a").delete("db-2");
    }

    @Test
    void customResourceClassesAndGenericResourcesAreServed() {
        factory = builder().build();
        SharedIndexInformer<Widget> typed = factory.informerFor(Widget.class);
        SharedIndexInformer<GenericKubernetesResource> generic = factory.genericInformerFor("example.com/v1", "Widget");
        factory.start();
        assertThat(factory.waitForCacheSync(WAIT)).hasSize(2).doesNotContainValue(false);
        assertThat(typed.indexer().list()).singleElement().satisfies(w -> {
            assertThat(w.getMetadata().getName()).isEqualTo("w1");
            assertThat(w.getSpec()).containsEntry("size", 1);
        });
        assertThat(generic.lister().namespace("team-a").get("w1"))
                .get()
                .extracting(GenericKubernetesResource::getKind)
                .isEqualTo("Widget");
        assertThatThrownBy(() -> factory.genericInformerFor("example.com/v1", "Gadget"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Gadget");
    }

    @Test
    void defaultAndPerTypeResyncAndTheFactoryTransformApply() {
        factory = builder()
                .defaultResync(Duration.ofMinutes(10))
                .resync(Pod.class, Duration.ofMinutes(1))
                .transform(Transforms.stripManagedFields())
                .build();
        assertThat(factory.informerFor(Pod.class)
                        .addEventHandler(new Recorder<>())
                        .resyncPeriod())
                .isEqualTo(Duration.ofMinutes(1));
        assertThat(factory.informerFor(ConfigMap.class)
                        .addEventHandler(new Recorder<>())
                        .resyncPeriod())
                .isEqualTo(Duration.ofMinutes(10));
        factory.start();
        assertThat(factory.waitForCacheSync(WAIT)).doesNotContainValue(false);
        assertThat(factory.informerFor(Pod.class).indexer().list())
                .isNotEmpty()
                .allSatisfy(p -> assertThat(p.getMetadata().getManagedFields()).isNullOrEmpty());
    }

    @Test
    void shutdownStopsEveryInformerAndTheFactoryServesNoMore() {
        factory = builder().build();
        SharedIndexInformer<Pod> pods = factory.informerFor(Pod.class);
        SharedIndexInformer<ConfigMap> configMaps = factory.informerFor(ConfigMap.class);
        factory.start();
        assertThat(factory.waitForCacheSync(WAIT)).doesNotContainValue(false);
        factory.shutdown();
        factory.shutdown(); // idempotent
        assertThat(pods.isStopped()).isTrue();
        assertThat(configMaps.isStopped()).isTrue();
        assertThat(threads.alive()).isEmpty();
        factory.start(); // does nothing
        assertThatThrownBy(() -> factory.informerFor(Pod.class))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("shut down");
    }

    @Test
    void badOptionsAreRejectedWithTheirName() {
        factory = builder().build();
        assertThatThrownBy(() -> factory.informerFor(
                        Pod.class,
                        InformerOptions.builder().labelSelector("a in (b").build()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("label selector \"a in (b\"");
        assertThatThrownBy(() -> factory.informerFor(
                        Pod.class,
                        InformerOptions.builder().fieldSelector("metadata.name").build()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("field selector \"metadata.name\"");
        assertThatThrownBy(() -> factory.informerFor(GenericKubernetesResource.class))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("genericInformerFor");
        assertThatThrownBy(() -> InformerOptions.builder().namespace(" ").build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("namespace");
        assertThatThrownBy(() -> SharedInformerFactory.builder(client).defaultResync(Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("defaultResync");
    }
}
