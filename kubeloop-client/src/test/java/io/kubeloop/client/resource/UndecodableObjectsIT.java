package io.kubeloop.client.resource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Version;
import io.kubeloop.apiserver.EmbeddedApiServer;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.client.codec.Decoding;
import io.kubeloop.client.codec.UndecodableObject;
import io.kubeloop.client.codec.UndecodableObjects;
import io.kubeloop.client.config.ClientConfig;
import io.kubeloop.client.transport.RateLimiter;
import io.kubeloop.client.watch.Watch;
import io.kubeloop.client.watch.WatchDecodeException;
import io.kubeloop.client.watch.WatchEvent;
import io.kubeloop.model.WatchEventType;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.ValueDeserializer;
import tools.jackson.databind.annotation.JsonDeserialize;

/**
 * A typed list and watch of custom resources some of which do not decode to the Java class (the server's schema
 * allows what the class does not): {@link UndecodableObjects#FAIL} fails naming the object, {@link
 * UndecodableObjects#SKIP} reports it beside the others, and neither quotes the object's content.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class UndecodableObjectsIT {

    private static final String NS = "gadgets";
    /** A value that must never appear in a message: it stands for a secret in the object. */
    private static final String SECRET = "s3cr3t-three";

    private static EmbeddedApiServer server;
    private static KubernetesClient client;
    private static ResourceClient<GenericKubernetesResource> raw;

    /** The Java class: replicas is an int, tags a list. */
    @Group("example.com")
    @Version("v1")
    @Kind("Gadget")
    @Plural("gadgets")
    @JsonDeserialize(using = ValueDeserializer.None.class)
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
    static void start() throws Exception {
        server = EmbeddedApiServer.builder().start();
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
        client.resources(io.fabric8.kubernetes.api.model.Namespace.class)
                .create(new io.fabric8.kubernetes.api.model.NamespaceBuilder()
                        .withNewMetadata()
                        .withName(NS)
                        .endMetadata()
                        .build());
        raw = client.genericResources("example.com/v1", "Gadget").inNamespace(NS);
        org.awaitility.Awaitility.await()
                .atMost(Duration.ofSeconds(30))
                .ignoreExceptions()
                .until(() -> raw.list() != null);
        raw.create(gadget("a-good", "{\"replicas\":1,\"tags\":[\"x\"]}", ""));
        // Large, so that the object spans several of the parser's buffers: its metadata is read back from its bytes.
        raw.create(gadget("b-bad", "{\"replicas\":\"" + SECRET + "\"}", "x".repeat(100_000)));
        raw.create(gadget("c-good", "{\"replicas\":3}", ""));
    }

    @AfterAll
    static void stop() {
        client.close();
        server.close();
    }

    static GenericKubernetesResource gadget(String name, String spec, String note) {
        return Decoding.standard()
                .mapper()
                .readValue("""
                        {"apiVersion":"example.com/v1","kind":"Gadget",
                         "metadata":{"name":"%s","namespace":"%s","annotations":{"note":"%s"}},"spec":%s}
                        """.formatted(name, NS, note, spec), GenericKubernetesResource.class);
    }

    private static ResourceClient<Gadget> typed() {
        return client.resources(Gadget.class).inNamespace(NS);
    }

    @Test
    void aListFailsByDefaultNamingTheObjectButNotItsContent() {
        assertThat(typed().undecodableObjects()).isEqualTo(UndecodableObjects.FAIL);
        assertThatThrownBy(() -> typed().list())
                .isInstanceOf(UncheckedIOException.class)
                .hasMessageContaining(NS + "/b-bad at resourceVersion ")
                .hasMessageContaining("does not decode to Gadget")
                .hasMessageContaining("spec")
                .hasMessageNotContaining(SECRET);
    }

    @Test
    void aSkippingListReturnsEveryOtherObjectAndReportsTheUndecodableOne() {
        ResourceClient<Gadget> skipping = typed().withUndecodableObjects(UndecodableObjects.SKIP);
        String rv = raw.get("b-bad").orElseThrow().getMetadata().getResourceVersion();

        ListPage<Gadget> all = skipping.list();
        assertThat(all.items()).extracting(g -> g.getMetadata().getName()).containsExactly("a-good", "c-good");
        assertThat(all.items().get(1).getSpec().getReplicas()).isEqualTo(3);
        assertThat(all.undecodable()).hasSize(1);
        UndecodableObject bad = all.undecodable().get(0);
        assertThat(bad.key()).isEqualTo(NS + "/b-bad");
        assertThat(bad.resourceVersion()).isEqualTo(rv);
        assertThat(bad.uid()).isNotBlank();
        assertThat(bad.error()).contains("Gadget").contains("replicas").doesNotContain(SECRET);
        assertThat(bad.toString()).doesNotContain(SECRET);

        // Paged: the undecodable object is reported by the page that held it, and listAll gathers them.
        ListPage<Gadget> first = skipping.list(ListOptions.builder().limit(2).build());
        assertThat(first.items()).hasSize(1);
        assertThat(first.undecodable()).extracting(UndecodableObject::name).containsExactly("b-bad");
        ListPage<Gadget> paged = skipping.listAll(1, ListOptions.none());
        assertThat(paged.items()).hasSize(2);
        assertThat(paged.undecodable()).extracting(UndecodableObject::name).containsExactly("b-bad");
    }

    @Test
    void aSkippingWatchHandsAnUndecodableEventInPlaceAndCarriesOn() throws Exception {
        ResourceClient<Gadget> skipping = typed().withUndecodableObjects(UndecodableObjects.SKIP);
        String rv = skipping.list().resourceVersion();
        try (Watch<Gadget> watch =
                skipping.watch(WatchOptions.builder().resourceVersion(rv).build())) {
            raw.create(gadget("w-bad", "{\"tags\":{\"not\":\"a list\"}}", ""));
            raw.create(gadget("w-good", "{\"replicas\":2}", ""));
            raw.delete("w-bad");
            List<WatchEvent<Gadget>> events = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                events.add(watch.next(Duration.ofSeconds(20)));
            }
            assertThat(events.get(0)).isInstanceOfSatisfying(WatchEvent.Undecodable.class, u -> {
                assertThat(u.type()).isEqualTo(WatchEventType.ADDED);
                assertThat(u.object().key()).isEqualTo(NS + "/w-bad");
                assertThat(u.object().error()).contains("tags");
            });
            assertThat(events.get(1)).isInstanceOfSatisfying(WatchEvent.Change.class, c -> {
                assertThat(c.type()).isEqualTo(WatchEventType.ADDED);
                assertThat(((Gadget) c.object()).getSpec().getReplicas()).isEqualTo(2);
            });
            // The deletion of an undecodable object still names it, so a cache can drop its key.
            assertThat(events.get(2)).isInstanceOfSatisfying(WatchEvent.Undecodable.class, u -> {
                assertThat(u.type()).isEqualTo(WatchEventType.DELETED);
                assertThat(u.object().name()).isEqualTo("w-bad");
            });
        } finally {
            raw.delete("w-good");
        }
    }

    @Test
    void aFailingWatchEndsWithAnErrorNamingTheObject() throws Exception {
        String rv =
                typed().withUndecodableObjects(UndecodableObjects.SKIP).list().resourceVersion();
        try (Watch<Gadget> watch =
                typed().watch(WatchOptions.builder().resourceVersion(rv).build())) {
            raw.create(gadget("f-bad", "{\"replicas\":\"" + SECRET + "\"}", ""));
            assertThatThrownBy(() -> watch.next(Duration.ofSeconds(20)))
                    .isInstanceOf(WatchDecodeException.class)
                    .hasMessageContaining(NS + "/f-bad at resourceVersion ")
                    .hasMessageNotContaining(SECRET);
        } finally {
            raw.delete("f-bad");
        }
    }
}
