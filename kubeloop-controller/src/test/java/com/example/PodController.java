package com.example;

import io.fabric8.kubernetes.api.model.Pod;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.client.config.ClientConfig;
import io.kubeloop.controller.Controller;
import io.kubeloop.controller.ControllerClient;
import io.kubeloop.controller.Manager;
import io.kubeloop.controller.Result;
import java.io.PrintStream;

/** The pod controller of seed 001 §6.1: every read from the cache, four workers, one line per reconcile. */
public final class PodController {
    public static Controller register(Manager manager, PrintStream out) {
        ControllerClient cache = manager.client();
        return manager.newControllerFor(Pod.class)
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
    }

    public static void main(String[] args) throws Exception {
        var client = KubernetesClient.create(ClientConfig.autodetect()); // kubeconfig, or in-cluster in a pod
        Manager manager = Manager.builder(client).namespace("default").build(); // caches only this namespace
        register(manager, System.out);
        manager.start(); // endpoints, informers, wait for the caches to sync, then the workers
        Runtime.getRuntime().addShutdownHook(new Thread(manager::close)); // let reconciles finish, release
        manager.awaitTermination();
    }
}
