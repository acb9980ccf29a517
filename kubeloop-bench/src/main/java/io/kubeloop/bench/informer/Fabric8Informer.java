package io.kubeloop.bench.informer;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;

/**
 * fabric8 8.0.0 over the JDK HttpClient (Vert.x excluded): {@code client.pods().inAnyNamespace().inform(handler)},
 * no resync. Its {@code inform} starts the informer; the measuring thread polls {@code hasSynced()}.
 */
final class Fabric8Informer implements InformerUnderTest {

    private KubernetesClient client;
    private volatile SharedIndexInformer<Pod> informer;

    @Override
    public void start(String url, Deliveries deliveries) {
        client = new KubernetesClientBuilder()
                .withConfig(new ConfigBuilder(Config.empty())
                        .withMasterUrl(url)
                        .withRequestTimeout(0)
                        .build())
                .build();
        ResourceEventHandler<Pod> handler = new ResourceEventHandler<>() {
            @Override
            public void onAdd(Pod pod) {
                deliveries.added();
            }

            @Override
            public void onUpdate(Pod oldPod, Pod pod) {
                deliveries.updated(pod.getMetadata().getResourceVersion(), BaselineInformer.seq(pod));
            }

            @Override
            public void onDelete(Pod pod, boolean finalStateUnknown) {}
        };
        // inform(...) blocks until the first list is in; run it aside so hasSynced() is polled like the others.
        Thread.ofPlatform()
                .name("fabric8-inform")
                .daemon()
                .start(() -> informer = client.pods().inAnyNamespace().inform(handler, 0));
    }

    @Override
    public boolean hasSynced() {
        SharedIndexInformer<Pod> i = informer;
        return i != null && i.hasSynced();
    }

    @Override
    public int cacheSize() {
        return informer.getStore().list().size();
    }

    @Override
    public void close() {
        if (informer != null) {
            informer.close();
        }
        client.close();
    }
}
