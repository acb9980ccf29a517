package io.kubeloop.informer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Version;
import io.kubeloop.apiserver.EmbeddedApiServer;
import io.kubeloop.apiserver.fault.Failure;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.client.codec.Decoding;
import io.kubeloop.client.codec.UndecodableObject;
import io.kubeloop.client.codec.UndecodableObjects;
import io.kubeloop.client.config.ClientConfig;
import io.kubeloop.client.resource.PatchOptions;
import io.kubeloop.client.resource.PatchType;
import io.kubeloop.client.resource.ResourceClient;
import io.kubeloop.client.transport.RateLimiter;
import io.kubeloop.clock.FakeClock;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.Serializable;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.ValueDeserializer;
import tools.jackson.databind.annotation.JsonDeserialize;

/**
 * An informer of a custom resource class that some stored objects do not fit (the CRD's schema allows both shapes;
 * the class says {@code int replicas} and {@code List<String> tags}): by default it syncs with the others, leaves the
 * bad ones out of its cache (logged, counted, in {@code health()}), keeps following every other object, takes a bad
 * object in once it is fixed, drops a cached one that turns bad, and forgets a bad one that is deleted; with
 * {@code undecodableObjects(FAIL)} it does not sync until the bad object is fixed (client-go's behaviour).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class UndecodableObjectsIT {

    private static final Duration WAIT = Duration.ofSeconds(30);
    /** Stands for a secret in an object: it must never reach a log line, an error or the health. */
    private static final String SECRET = "s3cr3t-three";

    private static EmbeddedApiServer server;
    private static KubernetesClient client;

    @Group("example.com")
    @Version("v1")
    @Kind("Gadget")
    @Plural("gadgets")
    @JsonDeserialize(using = ValueDeserializer.None.class) // as fabric8's own classes: not HasMetadata's by-kind lookup
    public static final class Gadget implements HasMetadata, Namespaced {
        private static final long serialVersionUID = 1L;

        private String apiVersion = "example.com/v1";
        private ObjectMeta metadata;
        private GadgetSpec spec;

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
            // always Gadget
        }

        public GadgetSpec getSpec() {
            return spec;
        }

        public void setSpec(GadgetSpec spec) {
            this.spec = spec;
        }
    }

    public static final class GadgetSpec implements Serializable {
        private static final long serialVersionUID = 1L;

        private int replicas;

        @SuppressWarnings("serial")
        private List<String> tags;

        public int getReplicas() {
            return replicas;
        }

        public void setReplicas(int replicas) {
            this.replicas = replicas;
        }

        public List<String> getTags() {
            return tags;
        }

        public void setTags(List<String> tags) {
            this.tags = tags;
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
        client.genericResources("apiextensions.k8s.io/v1", "CustomResourceDefinition")
                .create(Decoding.standard().mapper().readValue("""
                {"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
                 "metadata":{"name":"gadgets.example.com"},
                 "spec":{"group":"example.com","scope":"Namespaced",
                  "names":{"kind":"Gadget","plural":"gadgets","singular":"gadget","listKind":"GadgetList"},
                  "versions":[{"name":"v1","served":true,"storage":true,
                   "schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}}
                """, GenericKubernetesResource.class));
        for (String ns : List.of("skip", "fail")) {
            client.resources(Namespace.class)
                    .create(new NamespaceBuilder()
                            .withNewMetadata()
                            .withName(ns)
                            .endMetadata()
                            .build());
        }
        await().atMost(WAIT).ignoreExceptions().until(() -> gadgets("skip").list() != null);
    }

    @AfterAll
    static void stopServer() {
        client.close();
        server.close();
    }

    private static ResourceClient<GenericKubernetesResource> gadgets(String ns) {
        return client.genericResources("example.com/v1", "Gadget").inNamespace(ns);
    }

    private static void create(String ns, String name, String spec) {
        gadgets(ns)
                .create(Decoding.standard()
                        .mapper()
                        .readValue("""
                                {"apiVersion":"example.com/v1","kind":"Gadget",
                                 "metadata":{"name":"%s","namespace":"%s"},"spec":%s}
                                """.formatted(name, ns, spec), GenericKubernetesResource.class));
    }

    private static void patchSpec(String ns, String name, String spec) {
        gadgets(ns).patch(name, PatchType.MERGE, "{\"spec\":" + spec + "}", PatchOptions.none());
    }

    private static String rv(String ns, String name) {
        return gadgets(ns).get(name).orElseThrow().getMetadata().getResourceVersion();
    }

    private static double decodeErrors(SimpleMeterRegistry registry, String informer) {
        Counter c =
                registry.find("reflector.decode.errors").tag("name", informer).counter();
        return c == null ? -1 : c.count();
    }

    private static List<String> cachedNames(SharedIndexInformer<Gadget> informer) {
        return informer.indexer().list().stream()
                .map(g -> g.getMetadata().getName())
                .sorted()
                .toList();
    }

    private record Deletion(String name, boolean finalStateUnknown) {}

    @Test
    void skipsAnUndecodableObjectAndKeepsEveryOtherFlowing() {
        create("skip", "good-1", "{\"replicas\":1,\"tags\":[\"a\"]}");
        create("skip", "bad-1", "{\"replicas\":\"" + SECRET + "\"}");
        String badRv = rv("skip", "bad-1");
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        SharedInformerFactory factory = SharedInformerFactory.builder(client)
                .namespace("skip")
                .meterRegistry(registry)
                .build();
        try {
            SharedIndexInformer<Gadget> informer = factory.informerFor(Gadget.class);
            List<Deletion> deletions = new CopyOnWriteArrayList<>();
            informer.addEventHandler(new ResourceEventHandler<>() {
                @Override
                public void onAdd(Gadget g, boolean isInInitialList) {}

                @Override
                public void onUpdate(Gadget oldGadget, Gadget g) {}

                @Override
                public void onDelete(Gadget g, boolean finalStateUnknown) {
                    deletions.add(new Deletion(g.getMetadata().getName(), finalStateUnknown));
                }
            });
            factory.start();

            // 1. It syncs with the good object; the bad one is left out, counted and shown in the health.
            await().atMost(WAIT).until(informer::hasSynced);
            assertThat(cachedNames(informer)).containsExactly("good-1");
            InformerHealth health = informer.health();
            assertThat(health.isReady()).isTrue();
            assertThat(health.allDecoded()).isFalse();
            assertThat(health.undecodableCount()).isEqualTo(1);
            UndecodableObject bad = health.undecodableObjects().get(0);
            assertThat(bad.key()).isEqualTo("skip/bad-1");
            assertThat(bad.resourceVersion()).isEqualTo(badRv);
            assertThat(bad.error()).contains("Gadget").contains("replicas").doesNotContain(SECRET);
            assertThat(health.toString()).doesNotContain(SECRET);
            assertThat(decodeErrors(registry, informer.name())).isEqualTo(1);

            // 2. Later good objects flow.
            create("skip", "good-2", "{\"replicas\":2}");
            await().atMost(WAIT).until(() -> cachedNames(informer).equals(List.of("good-1", "good-2")));

            // 3. A relist (the next watch is answered 500) lists the bad object again at the same resourceVersion:
            // not counted (nor logged) a second time.
            server.faults()
                    .fail(Failure.status(500).count(1).resource("gadgets").verb("watch"));
            server.faults().closeWatches("gadgets");
            await().atMost(WAIT)
                    .until(() -> registry.find("reflector.relists").counters().stream()
                                    .mapToDouble(Counter::count)
                                    .sum()
                            >= 1);
            await().atMost(WAIT).until(informer::isWatching);
            assertThat(decodeErrors(registry, informer.name())).isEqualTo(1);
            assertThat(informer.health().undecodableCount()).isEqualTo(1);

            // 4. A cached object changed into something undecodable (a map where the class has a list) is dropped:
            // the cache never keeps a state the server has left behind; handlers hear a deletion whose final state
            // is unknown, with the last good version.
            patchSpec("skip", "good-1", "{\"tags\":{\"not\":\"a list\"}}");
            await().atMost(WAIT).until(() -> cachedNames(informer).equals(List.of("good-2")));
            await().atMost(WAIT).until(() -> deletions.contains(new Deletion("good-1", true)));
            assertThat(informer.health().undecodableObjects())
                    .extracting(UndecodableObject::name)
                    .containsExactly("bad-1", "good-1");
            assertThat(decodeErrors(registry, informer.name())).isEqualTo(2);

            // 5. Fixing the bad object brings it into the cache.
            patchSpec("skip", "bad-1", "{\"replicas\":3}");
            await().atMost(WAIT).until(() -> cachedNames(informer).equals(List.of("bad-1", "good-2")));
            assertThat(informer.lister()
                            .namespace("skip")
                            .get("bad-1")
                            .orElseThrow()
                            .getSpec()
                            .getReplicas())
                    .isEqualTo(3);
            assertThat(informer.health().undecodableObjects())
                    .extracting(UndecodableObject::name)
                    .containsExactly("good-1");

            // 6. Deleting an object while it is undecodable forgets it (its metadata alone is decoded).
            gadgets("skip").delete("good-1");
            await().atMost(WAIT).until(() -> informer.health().allDecoded());
            assertThat(cachedNames(informer)).containsExactly("bad-1", "good-2");
            assertThat(decodeErrors(registry, informer.name())).isEqualTo(2);
        } finally {
            factory.shutdown();
        }
    }

    @Test
    void failModeDoesNotSyncUntilTheObjectIsFixed() {
        create("fail", "good", "{\"replicas\":1}");
        create("fail", "bad", "{\"replicas\":\"" + SECRET + "\"}");
        FakeClock clock = new FakeClock();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (KubernetesClient onClock = KubernetesClient.builder(
                        ClientConfig.builder().server(server.url()).build())
                .rateLimiter(RateLimiter.unlimited())
                .clock(clock)
                .build()) {
            SharedInformerFactory factory = SharedInformerFactory.builder(onClock)
                    .namespace("fail")
                    .undecodableObjects(UndecodableObjects.FAIL)
                    .meterRegistry(registry)
                    .build();
            try {
                SharedIndexInformer<Gadget> informer = factory.informerFor(Gadget.class);
                factory.start();

                // The list fails and the informer backs off (on the fake clock), naming the object.
                await().atMost(WAIT).until(() -> informer.health().state() == InformerHealth.State.BACKING_OFF);
                InformerHealth health = informer.health();
                assertThat(health.synced()).isFalse();
                assertThat(health.lastError()).contains("fail/bad").doesNotContain(SECRET);
                assertThat(health.undecodableObjects())
                        .extracting(UndecodableObject::key)
                        .containsExactly("fail/bad");

                // Each relist fails again; the object is counted once (same resourceVersion).
                clock.step(Duration.ofSeconds(31));
                await().atMost(WAIT).until(() -> informer.health().consecutiveFailures() >= 2);
                assertThat(informer.hasSynced()).isFalse();
                assertThat(decodeErrors(registry, informer.name())).isEqualTo(1);

                // Fixed: the next relist succeeds and the informer syncs with both objects.
                patchSpec("fail", "bad", "{\"replicas\":2}");
                await().atMost(WAIT).until(() -> {
                    clock.step(Duration.ofSeconds(31)); // past the longest backoff delay
                    return informer.hasSynced();
                });
                assertThat(cachedNames(informer)).containsExactly("bad", "good");
                assertThat(informer.health().allDecoded()).isTrue();
            } finally {
                factory.shutdown();
            }
        }
    }
}
