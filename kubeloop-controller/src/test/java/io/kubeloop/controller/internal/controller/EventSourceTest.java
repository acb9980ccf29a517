package io.kubeloop.controller.internal.controller;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.kubeloop.clock.FakeClock;
import io.kubeloop.controller.EventFilter;
import io.kubeloop.controller.Request;
import io.kubeloop.informer.ResourceEventHandler;
import io.kubeloop.informer.cache.DeletedFinalStateUnknown;
import io.kubeloop.workqueue.WorkQueue;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** How each kind of watch turns an informer's events into requests. */
class EventSourceTest {

    private final RequestQueue queue =
            new RequestQueue(WorkQueue.<Request>builder().clock(new FakeClock()).buildPriority(), new FakeClock());

    private List<Request> drain() throws InterruptedException {
        List<Request> out = new ArrayList<>();
        while (queue.len() > 0) {
            Request r = queue.get().request();
            out.add(r);
            queue.done(r);
        }
        return out;
    }

    private static ConfigMap cm(String name, String ns, Map<String, String> labels, OwnerReference... owners) {
        return new ConfigMapBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace(ns)
                .withResourceVersion("1")
                .withLabels(labels)
                .withOwnerReferences(owners)
                .endMetadata()
                .build();
    }

    private static OwnerReference owner(String apiVersion, String kind, String name, Boolean controller) {
        return new OwnerReferenceBuilder()
                .withApiVersion(apiVersion)
                .withKind(kind)
                .withName(name)
                .withUid("u-" + name)
                .withController(controller)
                .build();
    }

    private <S extends io.fabric8.kubernetes.api.model.HasMetadata> ResourceEventHandler<S> handler(
            EventSource<S> source) {
        return source.handler(() -> queue, "test", LoggerFactory.getLogger(EventSourceTest.class));
    }

    @Test
    void theForTypeEnqueuesTheObjectOnEveryEventIncludingTombstones() throws Exception {
        var h = handler(EventSource.forObject(ConfigMap.class, null));
        h.onAdd(cm("a", "ns", null), true);
        h.onUpdate(cm("b", "ns", null), cm("b", "ns", null));
        h.onDelete(new DeletedFinalStateUnknown<>("ns/c", cm("c", "ns", null)));
        // the deletion first: the initial list and the resync are low priority
        assertThat(drain()).containsExactly(Request.of("ns", "c"), Request.of("ns", "a"), Request.of("ns", "b"));
    }

    @Test
    void theInitialListAndResyncsAreLowPriorityEverythingElseNormal() throws Exception {
        var h = handler(EventSource.forObject(ConfigMap.class, null));
        ConfigMap v1 = cm("x", "ns", null);
        ConfigMap v2 = new ConfigMapBuilder(v1)
                .editMetadata()
                .withResourceVersion("2")
                .endMetadata()
                .build();
        List<Integer> priorities = new ArrayList<>();
        Runnable take = () -> {
            try {
                RequestQueue.Taken t = queue.get();
                priorities.add(t.priority());
                queue.done(t.request());
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        };
        h.onAdd(v1, true);
        take.run();
        h.onAdd(v1, false);
        take.run();
        h.onUpdate(v1, v1); // a resync: the same object
        take.run();
        h.onUpdate(v1, new ConfigMapBuilder(v1).build()); // a resync: equal resourceVersions
        take.run();
        h.onUpdate(v1, v2);
        take.run();
        h.onDelete(v2);
        take.run();
        h.onDelete(new DeletedFinalStateUnknown<>("ns/x", v2));
        take.run();
        assertThat(priorities).containsExactly(-100, 0, -100, -100, 0, 0, 0);
    }

    @Test
    void ownsEnqueuesOnlyTheControllingOwnerOfTheForTypesGroupAndKind() throws Exception {
        var h = handler(EventSource.controllerOwner(ConfigMap.class, null, "apps", "Deployment", true));
        h.onAdd(cm("1", "ns", null, owner("apps/v1", "Deployment", "web", true)), false);
        h.onAdd(cm("2", "ns", null, owner("apps/v1", "Deployment", "not-controller", false)), false);
        h.onAdd(cm("3", "ns", null, owner("extensions/v1beta1", "Deployment", "other-group", true)), false);
        h.onAdd(cm("4", "ns", null, owner("apps/v1", "StatefulSet", "other-kind", true)), false);
        h.onAdd(cm("5", "ns", null), false);
        h.onAdd(
                cm(
                        "6",
                        "ns",
                        null,
                        owner("apps/v1", "Deployment", "plain-owner", null),
                        owner("apps/v1", "Deployment", "second", true)),
                false);
        assertThat(drain()).containsExactly(Request.of("ns", "web"), Request.of("ns", "second"));
    }

    @Test
    void aClusterScopedOwnerIsRequestedWithoutANamespace() throws Exception {
        var h = handler(EventSource.controllerOwner(ConfigMap.class, null, "", "Node", false));
        h.onAdd(cm("1", "ns", null, owner("v1", "Node", "node-1", true)), false);
        assertThat(drain()).containsExactly(Request.clusterScoped("node-1"));
    }

    @Test
    void anUpdateEnqueuesTheOwnersOfTheOldAndTheNewObjectOnce() throws Exception {
        var h = handler(EventSource.controllerOwner(ConfigMap.class, null, "apps", "Deployment", true));
        ConfigMap before = cm("1", "ns", null, owner("apps/v1", "Deployment", "old", true));
        ConfigMap after = new ConfigMapBuilder(cm("1", "ns", null, owner("apps/v1", "Deployment", "new", true)))
                .editMetadata()
                .withResourceVersion("2")
                .endMetadata()
                .build();
        h.onUpdate(before, after);
        h.onUpdate(after, after);
        assertThat(drain()).containsExactly(Request.of("ns", "old"), Request.of("ns", "new"));
    }

    @Test
    void aMapperRunsOnTheOldAndTheNewObjectAndItsRequestsAreDeduplicated() throws Exception {
        var h = handler(EventSource.<ConfigMap>mapped(
                ConfigMap.class,
                null,
                o -> List.of(Request.of("ns", o.getMetadata().getLabels().get("target")), Request.of("ns", "all"))));
        h.onUpdate(cm("x", "ns", Map.of("target", "t1")), cm("x", "ns", Map.of("target", "t2")));
        assertThat(drain()).containsExactly(Request.of("ns", "t1"), Request.of("ns", "all"), Request.of("ns", "t2"));
    }

    @Test
    void aFilterDecidesPerEventAndAFailingMapperDropsOnlyItsEvent() throws Exception {
        var h = handler(EventSource.<ConfigMap>mapped(ConfigMap.class, EventFilter.labelSelector("app=web"), o -> {
            if (o.getMetadata().getName().equals("boom")) {
                throw new IllegalStateException("mapper bug");
            }
            return List.of(Request.of(o));
        }));
        h.onAdd(cm("other", "ns", Map.of("app", "db")), false);
        h.onAdd(cm("boom", "ns", Map.of("app", "web")), false);
        h.onAdd(cm("web", "ns", Map.of("app", "web")), false);
        assertThat(drain()).containsExactly(Request.of("ns", "web"));
    }
}
