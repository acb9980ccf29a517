package io.kubeloop.bench.informer;

import io.fabric8.kubernetes.api.model.Pod;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.client.codec.Decoding;
import io.kubeloop.client.config.ClientConfig;
import io.kubeloop.client.resource.ListPage;
import io.kubeloop.client.resource.ResourceClient;
import io.kubeloop.client.resource.WatchOptions;
import io.kubeloop.client.watch.Watch;
import io.kubeloop.client.watch.WatchEvent;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The naive reference: kubeloop's client lists every pod in one request into a map, then one thread applies the
 * watch to the map and calls the handler inline. No FIFO, no per-handler buffer, no resync, no relist: what any
 * informer costs beyond decoding is the difference to this. Runners {@code baseline-compact},
 * {@code baseline-nomf} and {@code baseline-compact-nomf} decode with {@link Decoding#compact()} and/or
 * {@link Decoding#withoutManagedFields()}.
 */
final class BaselineInformer implements InformerUnderTest {

    private final Map<String, Pod> cache = new ConcurrentHashMap<>();
    /** Called in {@link #start}: the first use of {@code Decoding} builds its mappers, part of the timed start. */
    private final Supplier<Decoding> decoding;

    private KubernetesClient client;
    private volatile boolean synced;
    private volatile Watch<Pod> watch;
    private Thread thread;

    BaselineInformer(Supplier<Decoding> decoding) {
        this.decoding = decoding;
    }

    @Override
    public void start(String url, Deliveries deliveries) {
        client = KubernetesClient.create(ClientConfig.builder().server(url).build());
        ResourceClient<Pod> pods = client.resources(Pod.class).inAnyNamespace().withDecoding(decoding.get());
        thread = Thread.ofPlatform().name("baseline-informer").daemon().start(() -> {
            ListPage<Pod> list = pods.list();
            for (Pod pod : list.items()) {
                cache.put(
                        pod.getMetadata().getNamespace() + "/"
                                + pod.getMetadata().getName(),
                        pod);
                deliveries.added();
            }
            synced = true;
            try (Watch<Pod> w = pods.watch(WatchOptions.builder()
                    .resourceVersion(list.resourceVersion())
                    .build())) {
                watch = w;
                for (WatchEvent<Pod> event : w) {
                    if (event instanceof WatchEvent.Change<Pod> change) {
                        Pod pod = change.object();
                        String key = pod.getMetadata().getNamespace() + "/"
                                + pod.getMetadata().getName();
                        if (change.type() == io.kubeloop.model.WatchEventType.DELETED) {
                            cache.remove(key);
                        } else {
                            cache.put(key, pod);
                            deliveries.updated(pod.getMetadata().getResourceVersion(), seq(pod));
                        }
                    }
                }
            } catch (RuntimeException e) {
                if (watch != null && !Thread.currentThread().isInterrupted()) {
                    System.err.println("baseline watch ended: " + e);
                }
            }
        });
    }

    static String seq(Pod pod) {
        if (!Deliveries.LATENCY_POD.equals(pod.getMetadata().getName())) {
            return null;
        }
        Map<String, String> a = pod.getMetadata().getAnnotations();
        return a == null ? null : a.get(Deliveries.SEQ_ANNOTATION);
    }

    @Override
    public boolean hasSynced() {
        return synced;
    }

    @Override
    public int cacheSize() {
        return cache.size();
    }

    @Override
    public void close() {
        Watch<Pod> w = watch;
        if (w != null) {
            w.close();
        }
        client.close();
    }
}
