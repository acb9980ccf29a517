package io.kubeloop.client.resource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.kubeloop.apiserver.EmbeddedApiServer;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.client.codec.Decoding;
import io.kubeloop.client.config.ClientConfig;
import io.kubeloop.client.errors.AlreadyExistsException;
import io.kubeloop.client.errors.ConflictException;
import io.kubeloop.client.errors.InvalidException;
import io.kubeloop.client.errors.NotFoundException;
import io.kubeloop.client.transport.RateLimiter;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

/** Every verb and option of {@link ResourceClient} over HTTP against the embedded API server. */
class ResourceClientIT {

    private static EmbeddedApiServer server;
    private static KubernetesClient client;

    @BeforeAll
    static void start() {
        server = EmbeddedApiServer.builder().start();
        client = KubernetesClient.builder(ClientConfig.builder()
                        .server(server.url())
                        .namespace("default")
                        .build())
                .rateLimiter(RateLimiter.unlimited())
                .build();
    }

    @AfterAll
    static void stop() {
        client.close();
        server.close();
    }

    @Test
    void createGetUpdateAndAStaleUpdateIsAConflict() {
        ResourceClient<ConfigMap> cms = ConfigMaps.in(client, "crud");
        ConfigMap created = cms.create(ConfigMaps.of("a", Map.of("app", "web"), Map.of("k", "v")));
        assertThat(created.getMetadata().getUid()).isNotBlank();
        assertThat(created.getMetadata().getNamespace()).isEqualTo("crud");
        // the server names the field manager after the User-Agent: kubeloop/<version>
        assertThat(created.getMetadata().getManagedFields())
                .extracting(f -> f.getManager())
                .containsExactly("kubeloop");

        assertThat(cms.get("a")).get().extracting(ConfigMap::getData).isEqualTo(Map.of("k", "v"));
        assertThat(cms.get("missing")).isEmpty();
        assertThatThrownBy(() -> cms.create(ConfigMaps.of("a", Map.of(), Map.of())))
                .isInstanceOf(AlreadyExistsException.class);

        created.setData(Map.of("k", "v2"));
        ConfigMap updated = cms.update(created);
        assertThat(updated.getData()).containsEntry("k", "v2");
        assertThat(updated.getMetadata().getResourceVersion())
                .isNotEqualTo(created.getMetadata().getResourceVersion());

        created.setData(Map.of("k", "v3")); // still the old resourceVersion
        assertThatThrownBy(() -> cms.update(created))
                .isInstanceOf(ConflictException.class)
                .hasMessageContaining("PUT /api/v1/namespaces/crud/configmaps/a");

        assertThatThrownBy(() -> cms.create(ConfigMaps.of(null, Map.of(), Map.of())))
                .isInstanceOf(InvalidException.class);
    }

    @Test
    void aMissingResourceTypeIsNotAnEmptyGet() {
        ResourceClient<GenericKubernetesResource> nothing =
                client.genericResources("example.com", "v1", "Nothing", "nothings", true);
        assertThatThrownBy(() -> nothing.get("x")).isInstanceOf(NotFoundException.class);
    }

    @Test
    void theNamespaceOfAWriteComesFromTheObjectOrTheClientAndMustAgree() {
        ResourceClient<ConfigMap> cms = ConfigMaps.in(client, "ns-a");
        ConfigMaps.in(client, "ns-b");
        ConfigMap other = ConfigMaps.of("x", Map.of(), Map.of());
        other.getMetadata().setNamespace("ns-b");
        assertThatThrownBy(() -> cms.create(other))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("\"ns-b\" is not this client's namespace \"ns-a\"");
        assertThat(cms.inAnyNamespace().create(other).getMetadata().getNamespace())
                .isEqualTo("ns-b");
        assertThatThrownBy(() -> cms.inAnyNamespace().create(ConfigMaps.of("y", Map.of(), Map.of())))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("inNamespace");
        assertThatThrownBy(() -> cms.inAnyNamespace().get("x")).isInstanceOf(IllegalStateException.class);
        // the config's namespace is the default
        assertThat(client.resources(ConfigMap.class).namespace()).contains("default");
    }

    @Test
    void listPagesWithSelectorsAndAResourceVersion() {
        ResourceClient<ConfigMap> cms = ConfigMaps.in(client, "listing");
        for (int i = 0; i < 7; i++) {
            cms.create(ConfigMaps.of("cm-" + i, Map.of("app", i % 2 == 0 ? "even" : "odd"), Map.of()));
        }
        ListPage<ConfigMap> all = cms.list();
        assertThat(all.items()).hasSize(8); // and the namespace's kube-root-ca.crt
        assertThat(all.hasMore()).isFalse();
        assertThat(all.items()).allSatisfy(cm -> assertThat(cm.getKind()).isEqualTo("ConfigMap"));

        ListPage<ConfigMap> even =
                cms.list(ListOptions.builder().labelSelector("app=even").build());
        assertThat(even.items())
                .extracting(cm -> cm.getMetadata().getName())
                .containsExactly("cm-0", "cm-2", "cm-4", "cm-6");
        assertThat(cms.list(ListOptions.builder()
                                .fieldSelector("metadata.name=cm-3")
                                .build())
                        .items())
                .extracting(cm -> cm.getMetadata().getName())
                .containsExactly("cm-3");

        assertThat(cms.list(ListOptions.builder()
                                .labelSelector("app in (odd),app notin (even)")
                                .build())
                        .items())
                .hasSize(3);
        ListPage<ConfigMap> first = cms.list(ListOptions.builder().limit(3).build());
        assertThat(first.items()).hasSize(3);
        assertThat(first.hasMore()).isTrue();
        assertThat(first.remainingItemCount()).isEqualTo(5L);
        ListPage<ConfigMap> second = cms.list(ListOptions.builder()
                .limit(3)
                .continueToken(first.continueToken())
                .build());
        assertThat(second.items()).extracting(cm -> cm.getMetadata().getName()).containsExactly("cm-3", "cm-4", "cm-5");
        assertThat(second.resourceVersion()).isEqualTo(first.resourceVersion());

        ListPage<ConfigMap> notOlder = cms.list(ListOptions.builder()
                .resourceVersion(all.resourceVersion())
                .resourceVersionMatch("NotOlderThan")
                .timeoutSeconds(5)
                .build());
        assertThat(notOlder.items()).hasSize(8);
        ListPage<ConfigMap> everything =
                cms.listAll(2, ListOptions.builder().labelSelector("app=odd").build());
        assertThat(everything.items())
                .extracting(cm -> cm.getMetadata().getName())
                .containsExactly("cm-1", "cm-3", "cm-5");
        assertThat(everything.continueToken()).isNull();

        assertThat(cms.inAnyNamespace()
                        .list(ListOptions.builder().labelSelector("app=odd").build())
                        .items())
                .hasSizeGreaterThanOrEqualTo(3);
    }

    @Test
    void patchesOfEveryType() {
        ResourceClient<ConfigMap> cms = ConfigMaps.in(client, "patching");
        cms.create(ConfigMaps.of("p", Map.of(), Map.of("a", "1")));

        assertThat(cms.patch("p", PatchType.MERGE, "{\"data\":{\"b\":\"2\"}}", PatchOptions.none())
                        .getData())
                .isEqualTo(Map.of("a", "1", "b", "2"));
        assertThat(cms.patch("p", PatchType.JSON, "[{\"op\":\"remove\",\"path\":\"/data/a\"}]", PatchOptions.none())
                        .getData())
                .isEqualTo(Map.of("b", "2"));
        assertThat(cms.patch("p", PatchType.STRATEGIC, "{\"metadata\":{\"labels\":{\"s\":\"t\"}}}", PatchOptions.none())
                        .getMetadata()
                        .getLabels())
                .containsEntry("s", "t");

        String apply = "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"p\"},"
                + "\"data\":{\"b\":\"owned-by-alice\"}}";
        assertThatThrownBy(() -> cms.patch("p", PatchType.APPLY, apply, PatchOptions.none()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("fieldManager");
        assertThat(cms.patch("p", PatchType.APPLY, apply, PatchOptions.apply("alice"))
                        .getData())
                .containsEntry("b", "owned-by-alice");
        // bob applies another value of a field alice owns. kube-apiserver answers 409 without force; the embedded
        // server does not implement apply conflicts (kubeloop-apiserver ServerSideApply), so only force is seen here.
        String bobs = apply.replace("owned-by-alice", "owned-by-bob");
        ConfigMap forced =
                cms.patch("p", PatchType.APPLY, bobs, PatchOptions.apply("bob").withForce(true));
        assertThat(forced.getData()).containsEntry("b", "owned-by-bob");
        assertThat(forced.getMetadata().getManagedFields())
                .extracting(f -> f.getManager())
                .contains("alice", "bob", "kubeloop");

        // apply creates
        ConfigMap fresh = cms.patch("q", PatchType.APPLY, apply.replace("\"p\"", "\"q\""), PatchOptions.apply("alice"));
        assertThat(fresh.getMetadata().getUid()).isNotBlank();

        ConfigMap dry = cms.patch(
                "p",
                PatchType.MERGE,
                "{\"data\":{\"dry\":\"run\"}}",
                PatchOptions.none().withDryRun(true));
        assertThat(dry.getData()).containsKey("dry");
        assertThat(cms.get("p").orElseThrow().getData()).doesNotContainKey("dry");
    }

    @Test
    void dryRunWritesAreAnsweredButNotStored() {
        ResourceClient<ConfigMap> cms = ConfigMaps.in(client, "dry");
        ConfigMap answered = cms.dryRun().create(ConfigMaps.of("d", Map.of(), Map.of("k", "v")));
        assertThat(answered.getMetadata().getName()).isEqualTo("d");
        assertThat(cms.get("d")).isEmpty();

        ConfigMap real = cms.create(ConfigMaps.of("d", Map.of(), Map.of("k", "v")));
        real.setData(Map.of("k", "dry"));
        assertThat(cms.dryRun().update(real).getData()).containsEntry("k", "dry");
        assertThat(cms.dryRun().delete("d")).isPresent();
        assertThat(cms.get("d").orElseThrow().getData()).containsEntry("k", "v");
        assertThat(cms.dryRun().deleteCollection(ListOptions.none(), DeleteOptions.defaults()))
                .extracting(cm -> cm.getMetadata().getName())
                .containsExactlyInAnyOrder("d", ConfigMaps.SEEDED);
        assertThat(cms.get("d")).isPresent();
    }

    @Test
    void deleteWithPreconditionsPropagationAndGracePeriod() {
        ResourceClient<ConfigMap> cms = ConfigMaps.in(client, "deleting");
        ConfigMap c = cms.create(ConfigMaps.of("gone", Map.of(), Map.of()));
        assertThatThrownBy(() -> cms.delete("gone", DeleteOptions.defaults().withPreconditions("wrong-uid", null)))
                .isInstanceOf(ConflictException.class);
        assertThatThrownBy(() -> cms.delete("gone", DeleteOptions.defaults().withPreconditions(null, "1")))
                .isInstanceOf(ConflictException.class);
        assertThat(cms.delete(
                        "gone",
                        DeleteOptions.defaults()
                                .withPreconditions(
                                        c.getMetadata().getUid(),
                                        c.getMetadata().getResourceVersion())
                                .withPropagation(DeleteOptions.Propagation.BACKGROUND)
                                .withGracePeriodSeconds(0L)))
                .get()
                .extracting(x -> x.getMetadata().getName())
                .isEqualTo("gone");
        assertThat(cms.get("gone")).isEmpty();
        assertThatThrownBy(() -> cms.delete("gone")).isInstanceOf(NotFoundException.class);

        // a finalizer keeps a foreground-deleted object with its deletionTimestamp
        ConfigMap held = ConfigMaps.of("held", Map.of(), Map.of());
        held.getMetadata().setFinalizers(List.of("example.com/hold"));
        cms.create(held);
        ConfigMap terminating = cms.delete(
                        "held", DeleteOptions.defaults().withPropagation(DeleteOptions.Propagation.FOREGROUND))
                .orElseThrow();
        assertThat(terminating.getMetadata().getDeletionTimestamp()).isNotNull();
        assertThat(cms.get("held")).isPresent();
    }

    @Test
    void deleteCollectionBySelector() {
        ResourceClient<ConfigMap> cms = ConfigMaps.in(client, "collection");
        for (int i = 0; i < 4; i++) {
            cms.create(ConfigMaps.of("c-" + i, Map.of("drop", Boolean.toString(i < 3)), Map.of()));
        }
        List<ConfigMap> deleted = cms.deleteCollection(
                ListOptions.builder().labelSelector("drop=true").build(), DeleteOptions.defaults());
        assertThat(deleted).extracting(cm -> cm.getMetadata().getName()).containsExactlyInAnyOrder("c-0", "c-1", "c-2");
        assertThat(cms.list().items())
                .extracting(cm -> cm.getMetadata().getName())
                .containsExactly("c-3", ConfigMaps.SEEDED);
    }

    @Test
    void podStatusThroughItsSubresourceAndARoundTrip() {
        ConfigMaps.in(client, "pods");
        ResourceClient<Pod> pods = client.resources(Pod.class).inNamespace("pods");
        Pod pod = new PodBuilder()
                .withNewMetadata()
                .withName("p")
                .addToLabels("a", "b")
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("c")
                .withImage("nginx:1.27")
                .addNewPort()
                .withContainerPort(80)
                .endPort()
                .endContainer()
                .endSpec()
                .build();
        Pod created = pods.create(pod);
        assertThat(created.getSpec().getContainers().get(0).getPorts().get(0).getContainerPort())
                .isEqualTo(80);
        assertThat(pods.get("p")).contains(created);

        created.setStatus(new io.fabric8.kubernetes.api.model.PodStatusBuilder()
                .withPhase("Running")
                .build());
        created.getSpec().getContainers().get(0).setImage("ignored:by-status");
        Pod withStatus = pods.updateStatus(created);
        assertThat(withStatus.getStatus().getPhase()).isEqualTo("Running");
        assertThat(withStatus.getSpec().getContainers().get(0).getImage()).isEqualTo("nginx:1.27");

        JsonMapper json = Decoding.standard().mapper();
        assertThat(json.readValue(json.writeValueAsString(withStatus), Pod.class))
                .isEqualTo(withStatus);
    }

    @Test
    void aDeploymentAsAGenericResourceWithItsScale() {
        ConfigMaps.in(client, "apps");
        ResourceClient<GenericKubernetesResource> deployments = client.genericResources(
                        "apps", "v1", "Deployment", "deployments", true)
                .inNamespace("apps");
        GenericKubernetesResource d = Decoding.standard().mapper().readValue("""
                {"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},
                 "spec":{"replicas":1,"selector":{"matchLabels":{"app":"web"}},
                  "template":{"metadata":{"labels":{"app":"web"}},
                   "spec":{"containers":[{"name":"c","image":"nginx"}]}}}}""", GenericKubernetesResource.class);
        GenericKubernetesResource created = deployments.create(d);
        assertThat(created.<Integer>get("spec", "replicas")).isEqualTo(1);
        assertThat(Decoding.standard()
                        .mapper()
                        .readValue(
                                Decoding.standard().mapper().writeValueAsString(created),
                                GenericKubernetesResource.class))
                .isEqualTo(created);
        assertThat(deployments.list().items())
                .singleElement()
                .satisfies(x -> assertThat(x.getApiVersion()).isEqualTo("apps/v1"))
                .satisfies(x -> assertThat(x.getKind()).isEqualTo("Deployment"));

        Scale scale = deployments.getScale("web");
        assertThat(scale.replicas()).isEqualTo(1);
        assertThat(scale.name()).isEqualTo("web");
        Scale scaled = deployments.updateScale("web", 4);
        assertThat(scaled.replicas()).isEqualTo(4);
        assertThat(deployments.get("web").orElseThrow().<Integer>get("spec", "replicas"))
                .isEqualTo(4);

        // the same type through discovery
        ResourceClient<GenericKubernetesResource> discovered = client.genericResources("apps/v1", "Deployment");
        assertThat(discovered.type().plural()).isEqualTo("deployments");
        assertThat(discovered.type().hasScale()).isTrue();
        assertThat(discovered.inNamespace("apps").getScale("web").replicas()).isEqualTo(4);
        assertThatThrownBy(() -> client.genericResources("apps/v1", "Nope"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no kind Nope in apps/v1");
        assertThatThrownBy(() -> client.genericResources("nowhere.example.com/v1", "Thing"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("does not serve");
    }
}
