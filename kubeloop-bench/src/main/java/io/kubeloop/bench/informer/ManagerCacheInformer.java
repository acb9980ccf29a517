package io.kubeloop.bench.informer;

import io.fabric8.kubernetes.api.model.Pod;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.client.config.ClientConfig;
import io.kubeloop.controller.Manager;
import io.kubeloop.informer.ResourceEventHandler;
import io.kubeloop.informer.SharedIndexInformer;

/**
 * Runner {@code kubeloop-manager}: the pod informer of a controller {@link Manager}'s shared informer factory with
 * every default of {@code Manager.builder(client).build()} (whatever decoding and transform the Manager gives its
 * cache: compact decoding and managedFields stripped, at the time of writing), one handler, no resync. Only the
 * informer factory is started, not the manager's endpoints, so that the retained heap is the cache's.
 */
final class ManagerCacheInformer implements InformerUnderTest {

    private KubernetesClient client;
    private Manager manager;
    private SharedIndexInformer<Pod> informer;

    @Override
    public void start(String url, Deliveries deliveries) {
        client = KubernetesClient.create(ClientConfig.builder().server(url).build());
        manager = Manager.builder(client).build();
        informer = manager.informerFactory().informerFor(Pod.class);
        informer.addEventHandler(new ResourceEventHandler<Pod>() {
            @Override
            public void onAdd(Pod pod, boolean isInInitialList) {
                deliveries.added();
            }

            @Override
            public void onUpdate(Pod oldPod, Pod pod) {
                deliveries.updated(pod.getMetadata().getResourceVersion(), BaselineInformer.seq(pod));
            }
        });
        manager.informerFactory().start();
    }

    @Override
    public boolean hasSynced() {
        return informer.hasSynced();
    }

    @Override
    public int cacheSize() {
        return informer.indexer().listKeys().size();
    }

    @Override
    public void close() {
        manager.close();
        client.close();
    }
}
