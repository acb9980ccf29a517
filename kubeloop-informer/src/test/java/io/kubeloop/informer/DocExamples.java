package io.kubeloop.informer;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.client.config.ClientConfig;
import io.kubeloop.client.resource.ResourceClient;
import io.kubeloop.informer.audit.AuditResult;
import io.kubeloop.informer.audit.CacheAuditor;
import io.kubeloop.informer.cache.Indexer;
import io.kubeloop.informer.cache.Indexers;
import io.kubeloop.informer.cache.Keys;
import io.kubeloop.informer.cache.Lister;
import io.kubeloop.informer.cache.ObjectName;
import io.kubeloop.informer.reflector.ListerWatcher;
import io.kubeloop.informer.reflector.ListerWatchers;
import io.kubeloop.informer.reflector.Reflector;
import io.kubeloop.informer.reflector.ReflectorStore;
import io.kubeloop.model.selector.LabelSelector;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;

/**
 * The Java examples of the module's README and docs, as they are printed there (declarations added), compiled with
 * the tests so that a change of the API that breaks an example breaks the build. They are not run (they need a real
 * cluster); what they show is tested by the informer, factory, cache, reflector and audit tests. The DeltaFIFO's
 * example runs in {@code fifo.DeltaFIFODocExampleTest}.
 */
@SuppressWarnings("unused")
final class DocExamples {

    private DocExamples() {}

    /** README.md, "Quick start". */
    static void readmeQuickStart(MeterRegistry registry, Queue<String> queue) {
        try (KubernetesClient client = KubernetesClient.create(ClientConfig.autodetect())) {
            SharedInformerFactory factory = SharedInformerFactory.builder(client)
                    .defaultResync(Duration.ofMinutes(10))
                    .transform(Transforms.stripManagedFields())
                    .meterRegistry(registry)
                    .build();

            SharedIndexInformer<Pod> pods = factory.informerFor(Pod.class);
            pods.addIndexers(Map.of("node", pod -> List.of(pod.getSpec().getNodeName())));
            ResourceEventHandlerRegistration handler = pods.addEventHandler(new ResourceEventHandler<>() {
                @Override
                public void onAdd(Pod pod, boolean isInInitialList) {
                    queue.add(Keys.META_NAMESPACE.keyOf(pod));
                }

                @Override
                public void onUpdate(Pod oldPod, Pod pod) {
                    queue.add(Keys.META_NAMESPACE.keyOf(pod));
                }

                @Override
                public void onDelete(Pod pod, boolean finalStateUnknown) {
                    queue.add(Keys.META_NAMESPACE.keyOf(pod));
                }
            });

            factory.start();
            if (!SharedIndexInformer.waitForCacheSync(Duration.ofMinutes(2), pods::hasSynced, handler::hasSynced)) {
                throw new IllegalStateException("not synced: " + pods.health());
            }
            Optional<Pod> web = pods.lister().namespace("shop").get("web-0");
            List<Pod> running = pods.lister().list(LabelSelector.parse("app=web"));
            List<Pod> onNode1 = pods.indexer().byIndex("node", "node-1");
            factory.shutdown();
        }
    }

    /** docs/informers.md, "Building an informer". */
    static void informersBuilding(MeterRegistry registry, Queue<String> queue) {
        KubernetesClient client = KubernetesClient.create(ClientConfig.autodetect());
        ListerWatcher<Pod> source =
                ListerWatchers.forClient(client.resources(Pod.class).inAnyNamespace());

        SharedIndexInformer<Pod> pods = SharedIndexInformer.builder(source, Pod.class)
                .name("pods")
                .resyncPeriod(Duration.ofMinutes(10))
                .indexers(Map.of("node", pod -> List.of(pod.getSpec().getNodeName())))
                .transform(Transforms.stripManagedFields())
                .meterRegistry(registry)
                .build();

        ResourceEventHandlerRegistration registration = pods.addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(Pod pod, boolean isInInitialList) {
                queue.add(Keys.META_NAMESPACE.keyOf(pod));
            }

            @Override
            public void onUpdate(Pod oldPod, Pod pod) {
                queue.add(Keys.META_NAMESPACE.keyOf(pod));
            }

            @Override
            public void onDelete(Pod pod, boolean finalStateUnknown) {
                queue.add(Keys.META_NAMESPACE.keyOf(pod)); // finalStateUnknown: missed by the watch
            }
        });

        pods.start();
        if (!SharedIndexInformer.waitForCacheSync(Duration.ofMinutes(2), pods::hasSynced, registration::hasSynced)) {
            throw new IllegalStateException("pods did not sync: " + pods.health());
        }
        Optional<Pod> web = pods.lister().namespace("shop").get("web-0");
        List<Pod> onNode = pods.indexer().byIndex("node", "node-1");
        boolean ready = pods.health().isReady();
        Duration resync = registration.resyncPeriod();
        pods.stop();
    }

    /** docs/informers.md, "SharedInformerFactory" (a generic informer stands in for the custom resource class). */
    static void informersFactory(KubernetesClient client, MeterRegistry registry, ResourceEventHandler<Pod> handler) {
        SharedInformerFactory factory = SharedInformerFactory.builder(client)
                .namespace("shop")
                .tweakListOptions(o -> o.toBuilder()
                        .labelSelector(o.labelSelector() == null ? "team=a" : o.labelSelector() + ",team=a")
                        .build())
                .defaultResync(Duration.ofMinutes(10))
                .resync(Pod.class, Duration.ofMinutes(1))
                .transform(Transforms.stripManagedFields())
                .meterRegistry(registry)
                .build();

        SharedIndexInformer<Pod> pods = factory.informerFor(Pod.class);
        SharedIndexInformer<Pod> webPods = factory.informerFor(
                Pod.class, InformerOptions.builder().labelSelector("app=web").build());
        SharedIndexInformer<GenericKubernetesResource> gadgets = factory.genericInformerFor("example.com/v1", "Gadget");
        pods.addEventHandler(handler);

        factory.start();
        Map<InformerKey, Boolean> synced = factory.waitForCacheSync(Duration.ofMinutes(2));
        if (!factory.waitForAllCachesSynced(Duration.ofMinutes(2))) {
            throw new IllegalStateException("caches did not sync");
        }
        factory.shutdown();
    }

    /** docs/informers.md, "Building an informer": one line for one resource; the client-go form of onDelete. */
    static void informersOneLine(KubernetesClient client, Queue<String> queue) {
        SharedIndexInformer<Pod> pods =
                SharedIndexInformer.builder(client, Pod.class).build();
        pods.addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onDelete(Object pod) {
                queue.add(Keys.DELETION_HANDLING.keyOf(pod));
            }
        });
    }

    /** docs/cache.md. */
    static void cache(Pod pod) {
        Indexer<Pod> pods = Indexers.newIndexer(
                Keys.DELETION_HANDLING,
                Map.of(
                        Indexers.NAMESPACE_INDEX,
                        Indexers.namespaceIndex(),
                        "byNode",
                        p -> p.getSpec().getNodeName() == null
                                ? List.of()
                                : List.of(p.getSpec().getNodeName())));

        pods.add(pod);
        List<Pod> onNode = pods.byIndex("byNode", "node-1");
        List<String> keys = pods.indexKeys("byNode", "node-1");

        Lister<Pod> lister = Lister.of(pods);
        Optional<Pod> web = lister.namespace("default").get("web-0");
        List<Pod> frontends = lister.namespace("default").list(LabelSelector.parse("tier=frontend"));
        List<Pod> everywhere = lister.list(LabelSelector.parse("app in (web,api)"));

        String key = Keys.META_NAMESPACE.keyOf(pod);
        ObjectName name = Keys.split(key);
    }

    /** docs/reflector.md. */
    static void reflector(ReflectorStore<Pod> store, MeterRegistry registry) throws InterruptedException {
        KubernetesClient client = KubernetesClient.create(ClientConfig.autodetect());
        ResourceClient<Pod> pods = client.resources(Pod.class).inNamespace("default");

        ListerWatcher<Pod> lw = ListerWatchers.forClient(
                pods, options -> options.toBuilder().labelSelector("app=web").build());

        Reflector<Pod> reflector = Reflector.builder(lw, store)
                .name("pods in default")
                .resyncPeriod(Duration.ofMinutes(10))
                .meterRegistry(registry)
                .build();
        Thread.ofVirtual().name("pods-reflector").start(reflector::run);

        reflector.status();
        reflector.stop();
        reflector.awaitTermination(Duration.ofSeconds(5));
    }

    /** docs/audit.md. */
    static void audit(SharedIndexInformer<Pod> pods, ListerWatcher<Pod> source, MeterRegistry registry)
            throws InterruptedException {
        CacheAuditor<Pod> auditor = CacheAuditor.builder(source, pods.indexer())
                .name("pods")
                .settleTime(Duration.ofSeconds(2))
                .meterRegistry(registry)
                .build();

        AuditResult result = auditor.audit();
        if (!result.isClean()) {
            result.missingInCache();
            result.extraInCache();
            result.staleInCache();
        }
        auditor.startPeriodic(Duration.ofMinutes(10));
        auditor.close();
    }
}
