package io.kubeloop.controller;

import static io.kubeloop.controller.ControllerHarness.eventually;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.clock.Clock;
import io.kubeloop.testkit.KubeloopTest;
import io.kubeloop.testkit.TestNamespace;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The builder's watches, filters, names and errors, on the embedded API server over HTTP. */
@KubeloopTest(shared = true)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ControllerBuilderTest {

    private ControllerHarness h;
    private KubernetesClient client;
    private final Recorder<ConfigMap> recorder = new Recorder<>();

    @BeforeEach
    void setUp(KubernetesClient client, @TestNamespace String namespace) {
        this.client = client;
        h = new ControllerHarness(client, namespace, Clock.system());
    }

    @AfterEach
    void tearDown() {
        h.close();
    }

    @Test
    void theForTypesCreatesUpdatesAndDeletesEnqueueTheObject() throws Exception {
        Controller c = h.manager.newControllerFor(ConfigMap.class).complete(recorder);
        h.create("before-start"); // part of the initial list
        h.start();
        eventually().until(() -> recorder.count("before-start") == 1);
        h.create("a");
        eventually().until(() -> recorder.count("a") == 1);
        h.setData("a", "k", "v");
        eventually().until(() -> recorder.count("a") == 2);
        h.configMaps.delete("a");
        eventually().until(() -> recorder.count("a") == 3);
        assertThat(c.name()).isEqualTo("configmap");
    }

    @Test
    void ownsEnqueuesTheControllingOwnerFromItsChildrenEvents() throws Exception {
        h.manager.newControllerFor(ConfigMap.class).owns(Secret.class).complete(recorder);
        h.start(ConfigMap.class, Secret.class);
        ConfigMap parent = h.create("parent");
        eventually().until(() -> recorder.count("parent") == 1);
        client.resources(Secret.class)
                .inNamespace(parent.getMetadata().getNamespace())
                .create(new SecretBuilder()
                        .withNewMetadata()
                        .withName("child")
                        .withOwnerReferences(new OwnerReferenceBuilder()
                                .withApiVersion("v1")
                                .withKind("ConfigMap")
                                .withName("parent")
                                .withUid(parent.getMetadata().getUid())
                                .withController(true)
                                .build())
                        .endMetadata()
                        .build());
        eventually().until(() -> recorder.count("parent") == 2);
        assertThat(recorder.count("child")).isZero();
    }

    @Test
    void watchesEnqueuesWhatTheMapperReturnsForTheOldAndTheNewObject() throws Exception {
        h.manager
                .newControllerFor(ConfigMap.class)
                .watches(
                        Secret.class,
                        s -> s.getMetadata().getLabels() == null
                                ? List.of()
                                : List.of(Request.of(
                                        s.getMetadata().getNamespace(),
                                        s.getMetadata().getLabels().get("for"))))
                .complete(recorder);
        h.start(ConfigMap.class, Secret.class);
        var secrets = client.resources(Secret.class)
                .inNamespace(h.configMaps.namespace().orElseThrow());
        secrets.create(new SecretBuilder()
                .withNewMetadata()
                .withName("s")
                .withLabels(Map.of("for", "first"))
                .endMetadata()
                .build());
        eventually().until(() -> recorder.count("first") == 1);
        secrets.edit("s", s -> new SecretBuilder(s)
                .editMetadata()
                .withLabels(Map.of("for", "second"))
                .endMetadata()
                .build());
        eventually().until(() -> recorder.count("first") == 2 && recorder.count("second") == 1);
    }

    @Test
    void anEventHandlerKnowsTheKindOfEventAndEnqueuesNowOrLater() throws Exception {
        List<String> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
        h.manager
                .newControllerFor(ConfigMap.class)
                .watches(Secret.class, new EventHandler<Secret>() {
                    @Override
                    public void onCreate(Secret s, boolean isInInitialList, EventHandler.Queue queue) {
                        seen.add("create " + s.getMetadata().getName());
                        queue.add(Request.of(s.getMetadata().getNamespace(), "created"));
                    }

                    @Override
                    public void onUpdate(Secret old, Secret s, EventHandler.Queue queue) {
                        seen.add("update " + s.getMetadata().getName());
                        queue.addAfter(Request.of(s.getMetadata().getNamespace(), "updated"), Duration.ofMillis(200));
                    }

                    @Override
                    public void onDelete(Secret s, boolean finalStateUnknown, EventHandler.Queue queue) {
                        seen.add("delete " + s.getMetadata().getName());
                        queue.add(Request.of(s.getMetadata().getNamespace(), "deleted"));
                    }
                })
                .complete(recorder);
        h.start(ConfigMap.class, Secret.class);
        var secrets = client.resources(Secret.class)
                .inNamespace(h.configMaps.namespace().orElseThrow());
        secrets.create(new SecretBuilder()
                .withNewMetadata()
                .withName("s")
                .endMetadata()
                .build());
        eventually().until(() -> recorder.count("created") == 1);
        long before = System.nanoTime();
        secrets.edit("s", s -> new SecretBuilder(s)
                .editMetadata()
                .withLabels(Map.of("k", "v"))
                .endMetadata()
                .build());
        eventually().until(() -> recorder.count("updated") == 1);
        assertThat(Duration.ofNanos(System.nanoTime() - before)).isGreaterThanOrEqualTo(Duration.ofMillis(200));
        secrets.delete("s");
        eventually().until(() -> recorder.count("deleted") == 1);
        assertThat(seen).containsExactly("create s", "update s", "delete s");
    }

    @Test
    void anEventFilterKeepsOtherObjectsOutOfTheQueue() throws Exception {
        h.manager
                .newControllerFor(ConfigMap.class)
                .withEventFilter(EventFilter.not(EventFilter.labelSelector("skip=yes")))
                .complete(recorder);
        h.start();
        h.configMaps.create(new io.fabric8.kubernetes.api.model.ConfigMapBuilder()
                .withNewMetadata()
                .withName("skipped")
                .withLabels(Map.of("skip", "yes"))
                .endMetadata()
                .build());
        h.create("kept");
        eventually().until(() -> recorder.count("kept") == 1);
        h.assertStillAt(recorder, "skipped", 0);
    }

    @Test
    void twoControllersOfOneTypeShareOneInformerAndBothReconcile() throws Exception {
        Recorder<ConfigMap> other = new Recorder<>();
        h.manager.newControllerFor(ConfigMap.class).complete(recorder);
        h.manager.newControllerFor(ConfigMap.class).named("configmap-audit").complete(other);
        h.start();
        h.create("x");
        eventually().until(() -> recorder.count("x") == 1 && other.count("x") == 1);
        assertThat(h.informer(ConfigMap.class)).isSameAs(h.informer(ConfigMap.class));
    }

    @Test
    void aControllerAddedToARunningManagerStartsItsInformersAndWaitsForThem() throws Exception {
        h.manager.newControllerFor(ConfigMap.class).complete(recorder);
        h.start();
        Recorder<Secret> late = new Recorder<>();
        h.manager.newControllerFor(Secret.class).complete(late); // the manager runs: started at once
        assertThat(h.informer(Secret.class).hasSynced())
                .as("synced before the workers start")
                .isTrue();
        client.resources(Secret.class)
                .inNamespace(h.configMaps.namespace().orElseThrow())
                .create(new SecretBuilder()
                        .withNewMetadata()
                        .withName("late")
                        .endMetadata()
                        .build());
        eventually().until(() -> late.count("late") == 1);
    }

    @Test
    void theControllerViewListsItsTypesAndWorkers() {
        Controller c = h.manager
                .newControllerFor(Deployment.class)
                .owns(Secret.class)
                .watches(ConfigMap.class, cm -> List.of())
                .workers(3)
                .complete(request -> Result.done());
        assertThat(c.name()).isEqualTo("deployment");
        assertThat(c.forType()).isEqualTo(Deployment.class);
        assertThat(c.ownedTypes()).isEqualTo(Set.of(Secret.class));
        assertThat(c.watchedTypes()).isEqualTo(Set.of(Deployment.class, Secret.class, ConfigMap.class));
        assertThat(c.workers()).isEqualTo(3);
        assertThat(c.queueDepth()).isZero();
        assertThat(h.gauge("controller.runtime.max.concurrent.reconciles", "controller", "deployment"))
                .isEqualTo(3);
    }

    @Test
    void buildErrorsSayWhatIsWrong() {
        h.manager.newControllerFor(ConfigMap.class).complete(recorder);
        assertThatThrownBy(() -> h.manager.newControllerFor(ConfigMap.class).complete(recorder))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("already has a controller named \"configmap\"")
                .hasMessageContaining("named(");
        assertThatThrownBy(() -> h.manager.newControllerFor(ConfigMap.class).named("has space"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("invalid controller name \"has space\"");
        assertThatThrownBy(() -> h.manager.newControllerFor(ConfigMap.class).workers(0))
                .hasMessageContaining("at least 1 worker");
        assertThatThrownBy(() -> h.manager.newControllerFor(ConfigMap.class).maxRetries(-1))
                .hasMessageContaining("maxRetries");
        assertThatThrownBy(() -> h.manager.newControllerFor(ConfigMap.class).reconcileTimeout(Duration.ZERO))
                .hasMessageContaining("must be positive");
        ControllerBuilder<Secret> once = h.manager.newControllerFor(Secret.class);
        once.complete(request -> Result.done());
        assertThatThrownBy(() -> once.complete(request -> Result.done()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("complete() was already called");
        assertThatThrownBy(() -> h.manager.newControllerFor(io.fabric8.kubernetes.api.model.HasMetadata.class))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a resource type");
    }
}
