package io.kubeloop.bench.controller;

import io.kubernetes.client.extended.controller.Controller;
import io.kubernetes.client.extended.controller.builder.ControllerBuilder;
import io.kubernetes.client.extended.controller.reconciler.Result;
import io.kubernetes.client.informer.SharedIndexInformer;
import io.kubernetes.client.informer.SharedInformerFactory;
import io.kubernetes.client.informer.cache.Lister;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ConfigMapList;
import io.kubernetes.client.util.ClientBuilder;
import java.util.Map;

/**
 * A controller hand-written on the official Java client's extended controller (24.0.0), as its examples do:
 * a {@code SharedInformerFactory} informer on the namespace's ConfigMaps (no resync, read timeout off),
 * {@code ControllerBuilder.defaultBuilder(factory).watch(controllerWatchBuilder(V1ConfigMap.class, queue))},
 * the default work queue and rate limiter, {@code withReadyFunc(informer::hasSynced)}, and a reconciler that
 * reads the object through a {@code Lister} on the informer's indexer. Default workers: the builder's 16.
 */
public final class ClientJavaController implements ControllerUnderTest {

    @Override
    public int defaultWorkers() {
        return 16;
    }

    @Override
    public void start(String url, int workers, Tally tally) throws Exception {
        ApiClient api = ClientBuilder.standard(false).setBasePath(url).build();
        api.setReadTimeout(0);
        CoreV1Api core = new CoreV1Api(api);
        SharedInformerFactory factory = new SharedInformerFactory(api);
        SharedIndexInformer<V1ConfigMap> informer = factory.sharedIndexInformerFor(
                params -> core.listNamespacedConfigMap(ControllerBench.NAMESPACE)
                        .resourceVersion(params.resourceVersion)
                        .timeoutSeconds(params.timeoutSeconds)
                        .watch(params.watch)
                        .buildCall(null),
                V1ConfigMap.class,
                V1ConfigMapList.class);
        Lister<V1ConfigMap> lister = new Lister<>(informer.getIndexer(), ControllerBench.NAMESPACE);
        Controller controller = ControllerBuilder.defaultBuilder(factory)
                .watch(queue -> ControllerBuilder.controllerWatchBuilder(V1ConfigMap.class, queue)
                        .build())
                .withName("bench")
                .withWorkerCount(workers)
                .withReadyFunc(informer::hasSynced)
                .withReconciler(request -> {
                    long entry = System.nanoTime();
                    V1ConfigMap cm = lister.get(request.getName());
                    Map<String, String> data = cm == null ? null : cm.getData();
                    tally.reconciled(request.getName(), data == null ? null : data.get("seq"), entry);
                    return new Result(false);
                })
                .build();
        factory.startAllRegisteredInformers();
        Thread.ofPlatform().name("client-java-controller").daemon().start(controller::run);
    }
}
