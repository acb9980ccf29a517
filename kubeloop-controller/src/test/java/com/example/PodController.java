package com.example;

import io.fabric8.kubernetes.api.model.Pod;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.controller.ControllerClient;
import io.kubeloop.controller.Manager;
import io.kubeloop.controller.Result;
import java.io.PrintStream;

/** The pod controller of seed 001 §6.1: the pods of one namespace, four workers, every read from the cache. */
public final class PodController {
    public static Manager start(KubernetesClient client, String namespace, PrintStream out) throws Exception {
        Manager manager = Manager.builder(client).namespace(namespace).build(); // caches only this namespace
        ControllerClient cache = manager.client();
        manager.newControllerFor(Pod.class)
                .workers(4) // 2–4 when reconciles write to the API server (seed 001 §6.2)
                .complete(request -> {
                    var found = cache.getReadOnly(Pod.class, request); // from the informer's cache
                    if (found.isEmpty()) {
                        out.printf("pod %s has been deleted, cleanup%n", request);
                        return Result.done();
                    }
                    Pod pod = found.get();
                    String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
                    out.printf("processing pod %s, phase=%s, node=%s%n", request, phase, pod.getSpec().getNodeName());
                    return Result.done(); // throwing instead retries the key with exponential back-off
                });
        manager.start(); // informers, then wait for their caches to sync, then the workers
        return manager;
    }
}
