package io.kubeloop.client.interop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.kubeloop.apiserver.EmbeddedApiServer;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.client.config.ClientConfig;
import io.kubeloop.client.errors.AlreadyExistsException;
import io.kubeloop.client.errors.BadRequestException;
import io.kubeloop.client.errors.ConflictException;
import io.kubeloop.client.errors.ExpiredException;
import io.kubeloop.client.errors.InvalidException;
import io.kubeloop.client.errors.KubernetesApiException;
import io.kubeloop.client.errors.NotFoundException;
import io.kubeloop.client.resource.DeleteOptions;
import io.kubeloop.client.resource.ListOptions;
import io.kubeloop.client.resource.ListPage;
import io.kubeloop.client.resource.PatchOptions;
import io.kubeloop.client.resource.PatchType;
import io.kubeloop.client.resource.ResourceClient;
import io.kubeloop.client.transport.RateLimiter;
import io.kubeloop.client.watch.Watch;
import io.kubeloop.client.watch.WatchEvent;
import io.kubeloop.model.WatchEventType;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The same calls through kubeloop's {@link KubernetesClient} against the embedded API server and against fabric8's
 * {@code KubernetesMockServer} in CRUD mode (kubernetes-server-mock 8.0.0), both over plain HTTP.
 *
 * <p>The {@code @ParameterizedTest}s are the scenario both servers agree on. Every other test is named after one
 * way the mock differs, and asserts what each server actually does, so that docs/interop.md is checked rather than
 * remembered: when fabric8 changes the mock, the test that documents the old behaviour fails.
 */
class Fabric8MockInteropIT {

    enum Server {
        EMBEDDED,
        FABRIC8_MOCK
    }

    /** Vert.x logs every request of the mock at INFO through java.util.logging; kept strongly reachable. */
    private static final Logger MOCK_LOG = Logger.getLogger("io.fabric8.mockwebserver");

    private static EmbeddedApiServer embedded;
    private static KubernetesMockServer mock;
    private static KubernetesClient embeddedClient;
    private static KubernetesClient mockClient;

    @BeforeAll
    static void start() {
        MOCK_LOG.setLevel(Level.WARNING);
        embedded = EmbeddedApiServer.builder().start();
        mock = new KubernetesMockServer(
                new Context(), new MockWebServer(), new HashMap<>(), new KubernetesCrudDispatcher(), false);
        mock.start();
        embeddedClient = clientFor(embedded.url().toString(), Duration.ofSeconds(60));
        mockClient = clientFor(mock.url("/"), Duration.ofSeconds(60));
    }

    @AfterAll
    static void stop() {
        if (embeddedClient != null) {
            embeddedClient.close();
            mockClient.close();
        }
        if (embedded != null) {
            embedded.close();
        }
        if (mock != null) {
            mock.shutdown();
        }
    }

    private static KubernetesClient clientFor(String url, Duration requestTimeout) {
        return KubernetesClient.builder(
                        ClientConfig.builder().server(url).namespace("default").build())
                .rateLimiter(RateLimiter.unlimited())
                .requestTimeout(requestTimeout)
                .build();
    }

    private static KubernetesClient client(Server server) {
        return server == Server.EMBEDDED ? embeddedClient : mockClient;
    }

    /**
     * ConfigMaps in a fresh namespace (the embedded server, like a cluster, refuses objects in a missing one). On the
     * embedded server, as on a cluster, a new namespace gets its kube-root-ca.crt in the background: waited for here,
     * so that every test starts from the same state; {@link #names} leaves it out.
     */
    private static ResourceClient<ConfigMap> configMaps(Server server, String namespace) {
        KubernetesClient client = client(server);
        client.resources(Namespace.class)
                .create(new NamespaceBuilder()
                        .withNewMetadata()
                        .withName(namespace)
                        .endMetadata()
                        .build());
        ResourceClient<ConfigMap> configMaps = client.resources(ConfigMap.class).inNamespace(namespace);
        if (server == Server.EMBEDDED) {
            org.awaitility.Awaitility.await()
                    .atMost(Duration.ofSeconds(10))
                    .pollInterval(Duration.ofMillis(10))
                    .until(() -> configMaps.list().items().stream()
                            .anyMatch(cm -> cm.getMetadata().getName().equals(SEEDED)));
        }
        return configMaps;
    }

    /** The ConfigMap every namespace of a cluster has. */
    private static final String SEEDED = "kube-root-ca.crt";

    private static ConfigMap configMap(String name, Map<String, String> labels) {
        return new ConfigMapBuilder()
                .withNewMetadata()
                .withName(name)
                .withLabels(labels)
                .endMetadata()
                .addToData("k", "v")
                .build();
    }

    private static List<String> names(ListPage<? extends HasMetadata> page) {
        return page.items().stream()
                .map(o -> o.getMetadata().getName())
                .filter(name -> !name.equals(SEEDED))
                .sorted()
                .toList();
    }

    private static ListOptions byName(String name) {
        return ListOptions.builder().fieldSelector("metadata.name=" + name).build();
    }

    // ---- the shared scenario: both servers answer alike ------------------------------------------------------

    @ParameterizedTest(name = "{0}")
    @EnumSource(Server.class)
    void configMapCreateGetUpdatePatchDelete(Server server) {
        ResourceClient<ConfigMap> cms = configMaps(server, "crud");
        ConfigMap created = cms.create(configMap("a", Map.of("app", "web")));
        assertThat(created.getMetadata().getUid()).isNotBlank();
        assertThat(created.getMetadata().getNamespace()).isEqualTo("crud");
        assertThat(created.getMetadata().getResourceVersion()).isNotBlank();

        ConfigMap read = cms.get("a").orElseThrow();
        assertThat(read.getData()).isEqualTo(Map.of("k", "v"));

        read.setData(Map.of("k", "v2"));
        ConfigMap updated = cms.update(read);
        assertThat(updated.getData()).isEqualTo(Map.of("k", "v2"));
        assertThat(updated.getMetadata().getResourceVersion())
                .isNotEqualTo(read.getMetadata().getResourceVersion());

        assertThat(cms.patch("a", PatchType.MERGE, "{\"data\":{\"m\":\"1\"}}", PatchOptions.none())
                        .getData())
                .isEqualTo(Map.of("k", "v2", "m", "1"));
        assertThat(cms.patch(
                                "a",
                                PatchType.JSON,
                                "[{\"op\":\"replace\",\"path\":\"/data/k\",\"value\":\"v3\"}]",
                                PatchOptions.none())
                        .getData())
                .isEqualTo(Map.of("k", "v3", "m", "1"));

        assertThat(cms.delete("a"))
                .get()
                .extracting(c -> c.getMetadata().getName())
                .isEqualTo("a");
        assertThat(names(cms.list())).isEmpty();
        assertThat(catchThrowableOfType(NotFoundException.class, () -> cms.delete("a"))
                        .code())
                .isEqualTo(404);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Server.class)
    void listWithEqualityLabelSelectorsAndAFieldSelector(Server server) {
        ResourceClient<ConfigMap> cms = configMaps(server, "selectors");
        cms.create(configMap("a", Map.of("app", "web")));
        cms.create(configMap("b", Map.of("app", "web", "tier", "front")));
        cms.create(configMap("c", Map.of("app", "db")));
        cms.create(configMap("d", Map.of()));

        assertThat(names(cms.list())).containsExactly("a", "b", "c", "d");
        assertThat(names(cms.list(ListOptions.builder().labelSelector("app=web").build())))
                .containsExactly("a", "b");
        assertThat(names(cms.list(ListOptions.builder()
                        .labelSelector("app=web,tier=front")
                        .build())))
                .containsExactly("b");
        assertThat(names(
                        cms.list(ListOptions.builder().labelSelector("app!=web").build())))
                .containsExactly("c", "d");
        assertThat(names(cms.list(byName("c")))).containsExactly("c");
        assertThat(names(cms.inAnyNamespace()
                        .list(ListOptions.builder().labelSelector("app=db").build())))
                .contains("c");
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Server.class)
    void staleResourceVersionIsRefusedWith409OnUpdateAndPatch(Server server) {
        ResourceClient<ConfigMap> cms = configMaps(server, "stale");
        ConfigMap first = cms.create(configMap("a", Map.of()));
        ConfigMap second = cms.get("a").orElseThrow();
        second.setData(Map.of("k", "second"));
        cms.update(second);

        first.setData(Map.of("k", "first"));
        assertThat(catchThrowableOfType(KubernetesApiException.class, () -> cms.update(first))
                        .code())
                .isEqualTo(409);
        String stalePatch = "{\"metadata\":{\"resourceVersion\":\""
                + first.getMetadata().getResourceVersion() + "\"},\"data\":{\"k\":\"patched\"}}";
        assertThat(catchThrowableOfType(
                                KubernetesApiException.class,
                                () -> cms.patch("a", PatchType.MERGE, stalePatch, PatchOptions.none()))
                        .code())
                .isEqualTo(409);
        assertThat(cms.get("a").orElseThrow().getData()).isEqualTo(Map.of("k", "second"));

        // without a resourceVersion an update is unconditional on both
        ConfigMap blind = configMap("a", Map.of());
        blind.setData(Map.of("k", "blind"));
        assertThat(cms.update(blind).getData()).isEqualTo(Map.of("k", "blind"));
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Server.class)
    void typedPodAndGenericDeployment(Server server) {
        configMaps(server, "workloads");
        ResourceClient<Pod> pods = client(server).resources(Pod.class).inNamespace("workloads");
        Pod pod = pods.create(new PodBuilder()
                .withNewMetadata()
                .withName("p")
                .addToLabels("app", "web")
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("c")
                .withImage("busybox")
                .endContainer()
                .endSpec()
                .build());
        assertThat(pod.getSpec().getContainers()).extracting(c -> c.getImage()).containsExactly("busybox");
        assertThat(pods.get("p"))
                .get()
                .extracting(p -> p.getMetadata().getLabels())
                .isEqualTo(Map.of("app", "web"));
        assertThat(names(
                        pods.list(ListOptions.builder().labelSelector("app=web").build())))
                .containsExactly("p");
        assertThat(pods.delete("p")).isPresent();
        assertThat(pods.list().items()).isEmpty();

        ResourceClient<GenericKubernetesResource> deployments = client(server)
                .genericResources("apps", "v1", "Deployment", "deployments", true)
                .inNamespace("workloads");
        GenericKubernetesResource deployment = new GenericKubernetesResource();
        deployment.setApiVersion("apps/v1");
        deployment.setKind("Deployment");
        deployment.setMetadata(
                new ObjectMetaBuilder().withName("d").addToLabels("app", "web").build());
        deployment.setAdditionalProperty(
                "spec",
                Map.of(
                        "replicas",
                        1,
                        "selector",
                        Map.of("matchLabels", Map.of("app", "web")),
                        "template",
                        Map.of(
                                "metadata",
                                Map.of("labels", Map.of("app", "web")),
                                "spec",
                                Map.of("containers", List.of(Map.of("name", "c", "image", "busybox"))))));
        GenericKubernetesResource created = deployments.create(deployment);
        assertThat(created.getKind()).isEqualTo("Deployment");
        assertThat(created.getMetadata().getUid()).isNotBlank();
        GenericKubernetesResource patched =
                deployments.patch("d", PatchType.MERGE, "{\"spec\":{\"replicas\":3}}", PatchOptions.none());
        assertThat(patched.<Integer>get("spec", "replicas")).isEqualTo(3);
        assertThat(deployments.list().items())
                .singleElement()
                .satisfies(d -> assertThat(d.getApiVersion()).isEqualTo("apps/v1"))
                .satisfies(d -> assertThat(d.<Integer>get("spec", "replicas")).isEqualTo(3));
        assertThat(deployments.delete("d")).isPresent();
        assertThat(deployments.list().items()).isEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Server.class)
    void deleteCollectionByLabel(Server server) {
        ResourceClient<ConfigMap> cms = configMaps(server, "collection");
        cms.create(configMap("a", Map.of("app", "web")));
        cms.create(configMap("b", Map.of("app", "web")));
        cms.create(configMap("c", Map.of("app", "db")));

        List<ConfigMap> deleted = cms.deleteCollection(
                ListOptions.builder().labelSelector("app=web").build(), DeleteOptions.defaults());
        assertThat(deleted).extracting(c -> c.getMetadata().getName()).containsExactlyInAnyOrder("a", "b");
        assertThat(names(cms.list())).containsExactly("c");
    }

    // ---- where the mock differs: each test asserts what both servers actually do ------------------------------

    @Test
    void mockStaleWriteIsInvalidNotConflict() {
        for (Server server : Server.values()) {
            ResourceClient<ConfigMap> cms = configMaps(server, "conflict-type");
            ConfigMap stale = cms.create(configMap("a", Map.of()));
            cms.patch("a", PatchType.MERGE, "{\"data\":{\"k\":\"new\"}}", PatchOptions.none());
            KubernetesApiException e = catchThrowableOfType(KubernetesApiException.class, () -> cms.update(stale));
            assertThat(e.code()).isEqualTo(409);
            if (server == Server.EMBEDDED) {
                assertThat(e).isInstanceOf(ConflictException.class);
                assertThat(e.reason()).isEqualTo("Conflict");
            } else {
                // reason "Invalid" with code 409: a `catch (ConflictException e)` retry loop never sees it
                assertThat(e).isInstanceOf(InvalidException.class).isNotInstanceOf(ConflictException.class);
                assertThat(e.reason()).isEqualTo("Invalid");
            }
        }
    }

    @Test
    void mockDuplicateCreateIsInvalidNotAlreadyExists() {
        for (Server server : Server.values()) {
            ResourceClient<ConfigMap> cms = configMaps(server, "duplicate");
            cms.create(configMap("a", Map.of()));
            KubernetesApiException e =
                    catchThrowableOfType(KubernetesApiException.class, () -> cms.create(configMap("a", Map.of())));
            assertThat(e.code()).isEqualTo(409);
            if (server == Server.EMBEDDED) {
                assertThat(e).isInstanceOf(AlreadyExistsException.class);
                assertThat(e.status().getDetails().getName()).isEqualTo("a");
            } else {
                assertThat(e).isInstanceOf(InvalidException.class).isNotInstanceOf(AlreadyExistsException.class);
                assertThat(e.status().getDetails().getName()).isNull();
            }
        }
    }

    @Test
    void mockAnswersAMissingObjectWithAnEmpty404SoGetThrows() {
        ResourceClient<ConfigMap> real = configMaps(Server.EMBEDDED, "missing");
        assertThat(real.get("nothing")).isEmpty();
        NotFoundException realDelete = catchThrowableOfType(NotFoundException.class, () -> real.delete("nothing"));
        assertThat(realDelete.hasServerStatus()).isTrue();
        assertThat(realDelete.status().getDetails().getName()).isEqualTo("nothing");

        // An empty 404 names no object, which kubeloop reads as "this resource type is not served" (as for a CRD
        // that is not installed): get throws instead of answering empty.
        ResourceClient<ConfigMap> fake = configMaps(Server.FABRIC8_MOCK, "missing");
        NotFoundException e = catchThrowableOfType(NotFoundException.class, () -> fake.get("nothing"));
        assertThat(e.hasServerStatus()).isFalse();
        assertThat(e.getMessage()).contains("not a Status").contains("empty body");
        assertThat(catchThrowableOfType(NotFoundException.class, () -> fake.delete("nothing"))
                        .hasServerStatus())
                .isFalse();
    }

    @Test
    void mockIgnoresLimitAndNeverAnswersAContinueToken() {
        for (Server server : Server.values()) {
            ResourceClient<ConfigMap> cms = configMaps(server, "paging");
            for (int i = 0; i < 5; i++) {
                cms.create(configMap("cm-" + i, Map.of()));
            }
            ListPage<ConfigMap> first = cms.list(ListOptions.builder().limit(2).build());
            if (server == Server.EMBEDDED) {
                assertThat(first.items()).hasSize(2);
                assertThat(first.continueToken()).isNotBlank();
                assertThat(first.remainingItemCount())
                        .as("and kube-root-ca.crt")
                        .isEqualTo(4L);
                assertThat(cms.listAll(2, ListOptions.none()).items()).hasSize(6);
            } else {
                assertThat(first.items()).hasSize(5);
                assertThat(first.continueToken()).isNull();
                assertThat(first.remainingItemCount()).isNull();
            }
        }
    }

    @Test
    void mockIgnoresSetBasedLabelSelectors() {
        for (Server server : Server.values()) {
            ResourceClient<ConfigMap> cms = configMaps(server, "set-selectors");
            cms.create(configMap("a", Map.of("app", "web")));
            cms.create(configMap("b", Map.of("app", "db")));
            cms.create(configMap("c", Map.of("app", "cache")));
            cms.create(configMap("d", Map.of()));
            List<String> in = names(cms.list(
                    ListOptions.builder().labelSelector("app in (web,db)").build()));
            assertThat(in).isEqualTo(server == Server.EMBEDDED ? List.of("a", "b") : List.of("a", "b", "c", "d"));
        }
    }

    @Test
    void mockIgnoresResourceVersionOnListAndNeverAnswers410() {
        ResourceClient<ConfigMap> real = configMaps(Server.EMBEDDED, "snapshots");
        ResourceClient<ConfigMap> fake = configMaps(Server.FABRIC8_MOCK, "snapshots");
        for (ResourceClient<ConfigMap> cms : List.of(real, fake)) {
            cms.create(configMap("before", Map.of()));
        }
        String realRv = real.list().resourceVersion();
        String fakeRv = fake.list().resourceVersion();
        real.create(configMap("after", Map.of()));
        fake.create(configMap("after", Map.of()));

        ListOptions realAtRv = ListOptions.builder()
                .resourceVersion(realRv)
                .resourceVersionMatch("Exact")
                .build();
        ListOptions fakeAtRv = ListOptions.builder()
                .resourceVersion(fakeRv)
                .resourceVersionMatch("Exact")
                .build();
        assertThat(names(real.list(realAtRv))).containsExactly("before");
        assertThat(names(fake.list(fakeAtRv))).containsExactly("after", "before");

        embedded.compact();
        assertThat(catchThrowableOfType(ExpiredException.class, () -> real.list(realAtRv))
                        .code())
                .isEqualTo(410);
        assertThat(names(fake.list(fakeAtRv))).containsExactly("after", "before");
    }

    @Test
    void mockRefusesStrategicMergeAndApplyPatchesWith415() {
        String apply = "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"a\"},"
                + "\"data\":{\"applied\":\"yes\"}}";
        for (Server server : Server.values()) {
            ResourceClient<ConfigMap> cms = configMaps(server, "patch-types");
            cms.create(configMap("a", Map.of()));
            if (server == Server.EMBEDDED) {
                assertThat(cms.patch("a", PatchType.STRATEGIC, "{\"data\":{\"s\":\"1\"}}", PatchOptions.none())
                                .getData())
                        .containsEntry("s", "1");
                assertThat(cms.patch("a", PatchType.APPLY, apply, PatchOptions.apply("interop"))
                                .getData())
                        .containsEntry("applied", "yes");
            } else {
                for (PatchType type : List.of(PatchType.STRATEGIC, PatchType.APPLY)) {
                    KubernetesApiException e = catchThrowableOfType(
                            KubernetesApiException.class,
                            () -> cms.patch(
                                    "a",
                                    type,
                                    type == PatchType.APPLY ? apply : "{\"data\":{}}",
                                    PatchOptions.apply("interop")));
                    assertThat(e.code()).as("%s", type).isEqualTo(415);
                    // reason Invalid, so not kubeloop's UnsupportedMediaTypeException either
                    assertThat(e).as("%s", type).isInstanceOf(InvalidException.class);
                }
            }
        }
    }

    @Test
    void mockNeverAnswersAFailedJsonPatchTestOperation() {
        String failingTest = "[{\"op\":\"test\",\"path\":\"/data/k\",\"value\":\"not-v\"}]";
        ResourceClient<ConfigMap> real = configMaps(Server.EMBEDDED, "json-test");
        real.create(configMap("a", Map.of()));
        KubernetesApiException e = catchThrowableOfType(
                KubernetesApiException.class, () -> real.patch("a", PatchType.JSON, failingTest, PatchOptions.none()));
        assertThat(e.code()).isEqualTo(422);

        configMaps(Server.FABRIC8_MOCK, "json-test").create(configMap("a", Map.of()));
        try (KubernetesClient impatient = clientFor(mock.url("/"), Duration.ofSeconds(2))) {
            ResourceClient<ConfigMap> fake =
                    impatient.resources(ConfigMap.class).inNamespace("json-test");
            UncheckedIOException noAnswer = catchThrowableOfType(
                    UncheckedIOException.class,
                    () -> fake.patch("a", PatchType.JSON, failingTest, PatchOptions.none()));
            assertThat(noAnswer).hasRootCauseInstanceOf(HttpTimeoutException.class);
        }
    }

    @Test
    void mockStoresDryRunWrites() {
        for (Server server : Server.values()) {
            ResourceClient<ConfigMap> cms = configMaps(server, "dry-run");
            ConfigMap answered = cms.dryRun().create(configMap("dry", Map.of()));
            assertThat(answered.getMetadata().getName()).isEqualTo("dry");
            assertThat(cms.list(byName("dry")).items()).hasSize(server == Server.EMBEDDED ? 0 : 1);
        }
    }

    @Test
    void mockIgnoresDeletePreconditions() {
        for (Server server : Server.values()) {
            ResourceClient<ConfigMap> cms = configMaps(server, "preconditions");
            ConfigMap created = cms.create(configMap("a", Map.of()));
            DeleteOptions wrongUid = DeleteOptions.defaults()
                    .withPreconditions("not-" + created.getMetadata().getUid(), null);
            if (server == Server.EMBEDDED) {
                assertThat(catchThrowableOfType(ConflictException.class, () -> cms.delete("a", wrongUid))
                                .code())
                        .isEqualTo(409);
                assertThat(cms.list(byName("a")).items()).hasSize(1);
            } else {
                assertThat(cms.delete("a", wrongUid)).isPresent();
                assertThat(cms.list(byName("a")).items()).isEmpty();
            }
        }
    }

    @Test
    void mockAcceptsObjectsInANamespaceThatDoesNotExist() {
        for (Server server : Server.values()) {
            ResourceClient<ConfigMap> cms =
                    client(server).resources(ConfigMap.class).inNamespace("nowhere");
            if (server == Server.EMBEDDED) {
                NotFoundException e =
                        catchThrowableOfType(NotFoundException.class, () -> cms.create(configMap("a", Map.of())));
                assertThat(e.status().getDetails().getKind()).isEqualTo("namespaces");
            } else {
                assertThat(cms.create(configMap("a", Map.of())).getMetadata().getNamespace())
                        .isEqualTo("nowhere");
            }
        }
    }

    @Test
    void mockGenerateNameAppendsAUidNotFiveCharacters() {
        for (Server server : Server.values()) {
            ResourceClient<ConfigMap> cms = configMaps(server, "generate-name");
            String name = cms.create(new ConfigMapBuilder()
                            .withNewMetadata()
                            .withGenerateName("web-")
                            .endMetadata()
                            .build())
                    .getMetadata()
                    .getName();
            assertThat(name).matches(server == Server.EMBEDDED ? "web-[a-z0-9]{5}" : "web--[0-9a-f-]{36}");
        }
    }

    @Test
    void mockServesNoDiscoveryForBuiltInGroups() {
        assertThat(embeddedClient
                        .genericResources("apps/v1", "Deployment")
                        .type()
                        .plural())
                .isEqualTo("deployments");
        IllegalArgumentException e = catchThrowableOfType(
                IllegalArgumentException.class, () -> mockClient.genericResources("apps/v1", "Deployment"));
        assertThat(e).hasMessageContaining("serves no kind Deployment in apps/v1");
    }

    @Test
    void mockServesWatchesOverWebSocketOnly() throws Exception {
        String path = "/api/v1/namespaces/watching/configmaps";
        ResourceClient<ConfigMap> real = configMaps(Server.EMBEDDED, "watching");
        configMaps(Server.FABRIC8_MOCK, "watching");
        try (HttpClient http =
                HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
            // kubeloop's client (like client-go) watches with a streamed HTTP GET
            String query = "?watch=true&allowWatchBookmarks=true&resourceVersion="
                    + real.list().resourceVersion();
            HttpResponse<InputStream> stream = http.send(
                    HttpRequest.newBuilder(URI.create(embedded.url() + path + query))
                            .timeout(Duration.ofSeconds(10))
                            .build(),
                    HttpResponse.BodyHandlers.ofInputStream());
            assertThat(stream.statusCode()).isEqualTo(200);
            try (Watch<ConfigMap> watch = Watch.start(stream.body(), ConfigMap.class)) {
                real.create(configMap("seen", Map.of()));
                WatchEvent<ConfigMap> event = watch.next(Duration.ofSeconds(10));
                for (int skipped = 0; event instanceof WatchEvent.Bookmark && skipped < 10; skipped++) {
                    event = watch.next(Duration.ofSeconds(10)); // bookmarks, as asked for, may come first
                }
                assertThat(event).isInstanceOfSatisfying(WatchEvent.Change.class, change -> {
                    assertThat(change.type()).isEqualTo(WatchEventType.ADDED);
                    assertThat(((ConfigMap) change.object()).getMetadata().getName())
                            .isEqualTo("seen");
                });
            }

            // the mock answers a watch only as a WebSocket upgrade (fabric8's own client's way), with a plain-text 400
            HttpResponse<byte[]> refused = http.send(
                    HttpRequest.newBuilder(URI.create(mock.url(path + query)))
                            .timeout(Duration.ofSeconds(10))
                            .build(),
                    HttpResponse.BodyHandlers.ofByteArray());
            KubernetesApiException e = KubernetesApiException.fromResponse(
                    refused.statusCode(), refused.headers().map(), refused.body(), "GET", path + query);
            assertThat(e).isInstanceOf(BadRequestException.class);
            assertThat(e.hasServerStatus()).isFalse();
            assertThat(e.getMessage()).contains("400 BadRequest", "not a Status");
            assertThat(new String(refused.body(), StandardCharsets.UTF_8))
                    .isEqualTo("\"Connection\" header must be \"Upgrade\".");
        }
    }
}
