package io.kubeloop.bench.informer;

import io.kubernetes.client.informer.ResourceEventHandler;
import io.kubernetes.client.informer.SharedIndexInformer;
import io.kubernetes.client.informer.SharedInformerFactory;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodList;
import io.kubernetes.client.util.ClientBuilder;
import java.util.Map;

/**
 * The official Java client 24.0.0: {@code SharedInformerFactory.sharedIndexInformerFor(...)} over
 * {@code listPodForAllNamespaces}, no resync, read timeout off (a watch body has none).
 */
final class ClientJavaInformer implements InformerUnderTest {

    private SharedInformerFactory factory;
    private SharedIndexInformer<V1Pod> informer;

    @Override
    public void start(String url, Deliveries deliveries) throws java.io.IOException {
        ApiClient api = ClientBuilder.standard(false).setBasePath(url).build();
        api.setReadTimeout(0);
        CoreV1Api core = new CoreV1Api(api);
        factory = new SharedInformerFactory(api);
        informer = factory.sharedIndexInformerFor(
                params -> core.listPodForAllNamespaces()
                        .resourceVersion(params.resourceVersion)
                        .timeoutSeconds(params.timeoutSeconds)
                        .watch(params.watch)
                        .buildCall(null),
                V1Pod.class,
                V1PodList.class);
        informer.addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(V1Pod pod) {
                deliveries.added();
            }

            @Override
            public void onUpdate(V1Pod oldPod, V1Pod pod) {
                String seq = null;
                if (Deliveries.LATENCY_POD.equals(pod.getMetadata().getName())) {
                    Map<String, String> a = pod.getMetadata().getAnnotations();
                    seq = a == null ? null : a.get(Deliveries.SEQ_ANNOTATION);
                }
                deliveries.updated(pod.getMetadata().getResourceVersion(), seq);
            }

            @Override
            public void onDelete(V1Pod pod, boolean finalStateUnknown) {}
        });
        factory.startAllRegisteredInformers();
    }

    @Override
    public boolean hasSynced() {
        return informer.hasSynced();
    }

    @Override
    public int cacheSize() {
        return informer.getIndexer().list().size();
    }

    @Override
    public void close() {
        factory.stopAllRegisteredInformers();
    }
}
