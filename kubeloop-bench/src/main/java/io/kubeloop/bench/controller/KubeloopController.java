package io.kubeloop.bench.controller;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.client.config.ClientConfig;
import io.kubeloop.controller.ControllerClient;
import io.kubeloop.controller.Manager;
import io.kubeloop.controller.Result;
import java.util.Map;
import java.util.Optional;

/**
 * kubeloop's controller runtime with every default but the endpoints' ports (free ones, still served):
 * {@code Manager.builder(client).namespace(ns).metricsPort(0).healthProbePort(0).build()}, one
 * controller from {@code manager.newControllerFor(ConfigMap.class).complete(reconciler)} (the Manager's default
 * cache, its default rate limiter and queue; workers: the builder's default of 1 unless told), and a reconciler
 * that reads the object from the cache through {@code manager.client().getReadOnly(ConfigMap.class, request)}
 * (the shared cached object, no copy, as the peers' reconcilers read theirs). The client is {@code KubernetesClient.create(config)} with its defaults.
 */
public final class KubeloopController implements ControllerUnderTest {

    @Override
    public int defaultWorkers() {
        return 1;
    }

    @Override
    public void start(String url, int workers, Tally tally) throws Exception {
        KubernetesClient client =
                KubernetesClient.create(ClientConfig.builder().server(url).build());
        // Endpoints on free ports instead of 8080/8081, which other processes on the machine may hold.
        Manager manager = Manager.builder(client)
                .namespace(ControllerBench.NAMESPACE)
                .metricsPort(0)
                .healthProbePort(0)
                .build();
        ControllerClient cache = manager.client();
        manager.newControllerFor(ConfigMap.class).workers(workers).complete(request -> {
            long entry = System.nanoTime();
            Optional<ConfigMap> cm = cache.getReadOnly(ConfigMap.class, request);
            Map<String, String> data = cm.map(ConfigMap::getData).orElse(null);
            tally.reconciled(request.name(), data == null ? null : data.get("seq"), entry);
            return Result.done();
        });
        manager.start(); // returns once the cache has synced and the workers run
    }
}
