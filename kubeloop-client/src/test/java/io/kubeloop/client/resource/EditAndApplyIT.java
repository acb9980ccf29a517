package io.kubeloop.client.resource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntry;
import io.kubeloop.apiserver.EmbeddedApiServer;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.client.codec.Decoding;
import io.kubeloop.client.config.ClientConfig;
import io.kubeloop.client.errors.ConflictException;
import io.kubeloop.client.errors.InvalidException;
import io.kubeloop.client.errors.NotFoundException;
import io.kubeloop.client.transport.RateLimiter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** {@link ResourceClient#edit} and {@link ResourceClient#serverSideApply} over HTTP against the embedded API server. */
class EditAndApplyIT {

    private static EmbeddedApiServer server;
    private static SimpleMeterRegistry meters;
    private static KubernetesClient client;

    @BeforeAll
    static void start() {
        server = EmbeddedApiServer.builder().start();
        meters = new SimpleMeterRegistry();
        client = KubernetesClient.builder(ClientConfig.builder()
                        .server(server.url())
                        .namespace("default")
                        .build())
                .rateLimiter(RateLimiter.unlimited())
                .meterRegistry(meters)
                .build();
    }

    @AfterAll
    static void stop() {
        client.close();
        server.close();
    }

    private static double patches() {
        return meters.find("rest.client.requests").tag("method", "PATCH").counters().stream()
                .mapToDouble(c -> c.count())
                .sum();
    }

    @Test
    void editSendsWhatTheFunctionChangedAndKeepsTheRest() {
        ResourceClient<ConfigMap> cms = ConfigMaps.in(client, "edit");
        cms.create(ConfigMaps.of("a", Map.of("app", "web", "tier", "front"), Map.of("k1", "v1", "k2", "v2")));

        ConfigMap edited = cms.edit("a", cm -> {
            cm.getData().put("k1", "changed");
            cm.getData().remove("k2");
            cm.getData().put("k3", "new");
            cm.getMetadata().getLabels().remove("tier");
            return cm;
        });

        assertThat(edited.getData()).isEqualTo(Map.of("k1", "changed", "k3", "new"));
        assertThat(edited.getMetadata().getLabels()).isEqualTo(Map.of("app", "web"));
        assertThat(cms.get("a")).get().extracting(ConfigMap::getData).isEqualTo(edited.getData());
    }

    @Test
    void aChangeBetweenTheReadAndThePatchIsAConflictAndNothingOfTheEditIsWritten() {
        ResourceClient<ConfigMap> cms = ConfigMaps.in(client, "edit-conflict");
        cms.create(ConfigMaps.of("a", Map.of(), Map.of("k", "v")));

        assertThatThrownBy(() -> cms.edit("a", cm -> {
                    // another writer changes a different field after edit read the object
                    cms.patch(
                            "a",
                            PatchType.MERGE,
                            "{\"metadata\":{\"labels\":{\"other\":\"writer\"}}}",
                            PatchOptions.none());
                    cm.getData().put("k", "mine");
                    return cm;
                }))
                .isInstanceOf(ConflictException.class);

        ConfigMap stored = cms.get("a").orElseThrow();
        assertThat(stored.getData()).containsEntry("k", "v");
        assertThat(stored.getMetadata().getLabels()).containsEntry("other", "writer");

        // read again and edit again: the usual retry
        assertThat(cms.edit("a", cm -> {
                            cm.getData().put("k", "mine");
                            return cm;
                        })
                        .getData())
                .containsEntry("k", "mine");
    }

    @Test
    void anEditThatChangesNothingSendsNoPatch() {
        ResourceClient<ConfigMap> cms = ConfigMaps.in(client, "edit-noop");
        ConfigMap created = cms.create(ConfigMaps.of("a", Map.of(), Map.of("k", "v")));
        double before = patches();

        ConfigMap same = cms.edit("a", cm -> {
            cm.getMetadata().setResourceVersion("1"); // ignored: edit guards with the version it read
            return cm;
        });

        assertThat(patches()).isEqualTo(before);
        assertThat(same.getMetadata().getResourceVersion())
                .isEqualTo(created.getMetadata().getResourceVersion());
        cms.edit("a", cm -> new ConfigMapBuilder(cm).addToData("k2", "v2").build()); // a new object is fine too
        assertThat(patches()).isEqualTo(before + 1);
    }

    @Test
    void theEditedCopyIsMutableWhateverTheDecodingAndTheOriginalIsUntouched() {
        ResourceClient<ConfigMap> cms = ConfigMaps.in(client, "edit-compact").withDecoding(Decoding.compact());
        cms.create(ConfigMaps.of("a", Map.of(), Map.of("k", "v")));
        Map<String, String> seen = new HashMap<>();

        ConfigMap edited = cms.edit("a", cm -> {
            seen.putAll(cm.getData());
            cm.getData().put("k", "v2");
            return cm;
        });

        assertThat(seen).isEqualTo(Map.of("k", "v"));
        assertThat(edited.getData()).containsEntry("k", "v2");
    }

    @Test
    void editErrorsAreTyped() {
        ResourceClient<ConfigMap> cms = ConfigMaps.in(client, "edit-errors");
        cms.create(ConfigMaps.of("a", Map.of(), Map.of("k", "v")));

        assertThatThrownBy(() -> cms.edit("missing", cm -> cm)).isInstanceOf(NotFoundException.class);
        assertThatThrownBy(() -> cms.edit("a", cm -> null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("returned null");
    }

    @Test
    void anEditTheSchemaRefusesIsInvalid() {
        client.genericResources("apiextensions.k8s.io/v1", "CustomResourceDefinition")
                .create(generic("""
                {"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
                 "metadata":{"name":"gadgets.example.com"},
                 "spec":{"group":"example.com","scope":"Namespaced",
                  "names":{"kind":"Gadget","plural":"gadgets","singular":"gadget","listKind":"GadgetList"},
                  "versions":[{"name":"v1","served":true,"storage":true,
                   "schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object",
                    "properties":{"size":{"type":"integer","minimum":1}}}}}}}]}}
                """));
        ResourceClient<GenericKubernetesResource> gadgets = client.genericResources("example.com/v1", "Gadget");
        gadgets.create(generic("""
                {"apiVersion":"example.com/v1","kind":"Gadget","metadata":{"name":"g"},"spec":{"size":2}}"""));

        assertThatThrownBy(() -> gadgets.edit("g", g -> {
                    g.setAdditionalProperty("spec", Map.of("size", 0));
                    return g;
                }))
                .isInstanceOf(InvalidException.class)
                .hasMessageContaining("spec.size");
        assertThat(gadgets.get("g").orElseThrow().<Integer>get("spec", "size")).isEqualTo(2);

        assertThat(gadgets.edit("g", g -> {
                            g.setAdditionalProperty("spec", Map.of("size", 5));
                            return g;
                        })
                        .<Integer>get("spec", "size"))
                .isEqualTo(5);
    }

    private static GenericKubernetesResource generic(String json) {
        return Decoding.standard().mapper().readValue(json, GenericKubernetesResource.class);
    }

    @Test
    void aDryRunEditIsAnsweredButNotStored() {
        ResourceClient<ConfigMap> cms = ConfigMaps.in(client, "edit-dry");
        cms.create(ConfigMaps.of("a", Map.of(), Map.of("k", "v")));

        ConfigMap answered = cms.dryRun().edit("a", cm -> {
            cm.getData().put("k", "dry");
            return cm;
        });

        assertThat(answered.getData()).containsEntry("k", "dry");
        assertThat(cms.get("a").orElseThrow().getData()).containsEntry("k", "v");
    }

    @Test
    void serverSideApplyCreatesOwnsAndRemovesWhatTheManagerNoLongerSends() {
        ResourceClient<ConfigMap> cms = ConfigMaps.in(client, "apply");

        ConfigMap created = cms.serverSideApply(
                ConfigMaps.of("a", Map.of("app", "web"), Map.of("k1", "v1", "k2", "v2")), "my-controller", false);
        assertThat(created.getData()).isEqualTo(Map.of("k1", "v1", "k2", "v2"));
        assertThat(created.getMetadata().getManagedFields())
                .extracting(ManagedFieldsEntry::getManager, ManagedFieldsEntry::getOperation)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("my-controller", "Apply"));

        ConfigMap applied = cms.serverSideApply(
                ConfigMaps.of("a", Map.of("app", "web"), Map.of("k1", "v1b")), "my-controller", false);
        assertThat(applied.getData()).isEqualTo(Map.of("k1", "v1b"));

        // an object read back from the server (managedFields and all) can be applied again
        ConfigMap readBack = cms.get("a").orElseThrow();
        assertThat(readBack.getMetadata().getManagedFields()).isNotEmpty();
        assertThat(cms.serverSideApply(readBack, "my-controller", true).getData())
                .isEqualTo(Map.of("k1", "v1b"));
    }

    @Test
    void serverSideApplyOfAGenericObjectFillsInApiVersionAndKind() {
        ConfigMaps.in(client, "apply-generic");
        ResourceClient<GenericKubernetesResource> cms =
                client.genericResources("v1", "ConfigMap").inNamespace("apply-generic");
        GenericKubernetesResource cm = new GenericKubernetesResource();
        cm.setMetadata(ConfigMaps.of("g", Map.of(), Map.of()).getMetadata());
        cm.setAdditionalProperty("data", Map.of("k", "v"));

        GenericKubernetesResource applied = cms.serverSideApply(cm, "my-controller", false);

        assertThat(applied.getKind()).isEqualTo("ConfigMap");
        assertThat(applied.getAdditionalProperties()).containsEntry("data", Map.of("k", "v"));
    }

    @Test
    void serverSideApplyErrorsAreTyped() {
        ResourceClient<ConfigMap> cms = ConfigMaps.in(client, "apply-errors");
        ConfigMap first = cms.serverSideApply(ConfigMaps.of("a", Map.of(), Map.of("k", "v")), "my-controller", false);
        cms.patch("a", PatchType.MERGE, "{\"data\":{\"k\":\"other\"}}", PatchOptions.none());

        ConfigMap stale = ConfigMaps.of("a", Map.of(), Map.of("k", "mine"));
        stale.getMetadata().setResourceVersion(first.getMetadata().getResourceVersion());
        assertThatThrownBy(() -> cms.serverSideApply(stale, "my-controller", false))
                .isInstanceOf(ConflictException.class);
        assertThatThrownBy(() ->
                        cms.serverSideApply(ConfigMaps.of("Not_A_Name", Map.of(), Map.of()), "my-controller", false))
                .isInstanceOf(InvalidException.class)
                .hasMessageContaining("metadata.name");
        assertThat(cms.get("a").orElseThrow().getData()).containsEntry("k", "other");

        assertThatThrownBy(() -> cms.serverSideApply(ConfigMaps.of("a", Map.of(), Map.of()), " ", false))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("fieldManager");
        assertThatThrownBy(() -> cms.serverSideApply(new ConfigMap(), "my-controller", false))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("metadata.name");
    }

    @Test
    void theCopyIsTakenPerCall() {
        ResourceClient<ConfigMap> cms = ConfigMaps.in(client, "edit-calls");
        cms.create(ConfigMaps.of("a", Map.of(), Map.of("n", "0")));
        AtomicInteger calls = new AtomicInteger();
        for (int i = 1; i <= 3; i++) {
            cms.edit("a", cm -> {
                calls.incrementAndGet();
                cm.getData()
                        .put("n", Integer.toString(Integer.parseInt(cm.getData().get("n")) + 1));
                return cm;
            });
        }
        assertThat(calls).hasValue(3);
        assertThat(cms.get("a").orElseThrow().getData()).containsEntry("n", "3");
    }
}
