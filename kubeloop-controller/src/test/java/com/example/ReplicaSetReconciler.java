package com.example;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetStatusBuilder;
import io.kubeloop.controller.*;
import java.util.List;

/** Seed 000 §3.2's reconcile template: desired state → actual state → difference → act → report status. */
public final class ReplicaSetReconciler implements Reconciler<ReplicaSet> {
    private final ControllerClient client;

    private ReplicaSetReconciler(ControllerClient client) { this.client = client; }

    public static Controller register(Manager manager) {
        return manager.newControllerFor(ReplicaSet.class)
                .owns(Pod.class) // a pod's events reach the ReplicaSet that controls it
                .maxRetries(10)  // then an ERROR log, a Warning Event and a metric (seed 000 §3.1)
                .complete(new ReplicaSetReconciler(manager.client()));
    }

    @Override
    public Result reconcile(Request request) {
        var found = client.get(ReplicaSet.class, request); // 1. the desired state, a copy from the cache
        if (found.isEmpty()) return Result.done(); // deleted: the garbage collector removes its pods
        ReplicaSet rs = found.get();
        List<Pod> pods = client.listReadOnly(Pod.class, request.namespace()).stream() // 2. the actual state
                .filter(pod -> pod.getMetadata().getDeletionTimestamp() == null)
                .filter(pod -> OwnerReferences.controllerOf(pod)
                        .map(ref -> ref.getUid().equals(rs.getMetadata().getUid())).orElse(false))
                .toList();
        int missing = rs.getSpec().getReplicas() - pods.size(); // 3. the difference
        for (int i = 0; i < missing; i++) { // 4. act
            Pod pod = new PodBuilder().withNewMetadataLike(rs.getSpec().getTemplate().getMetadata())
                    .withGenerateName(rs.getMetadata().getName() + "-").withNamespace(request.namespace())
                    .endMetadata().withSpec(rs.getSpec().getTemplate().getSpec()).build();
            OwnerReferences.setControllerReference(rs, pod);
            client.create(pod);
        }
        pods.stream().limit(Math.max(0, -missing)).forEach(client::delete);
        rs.setStatus(new ReplicaSetStatusBuilder().withReplicas(pods.size()) // as observed; the next event updates it
                .withObservedGeneration(rs.getMetadata().getGeneration()).build());
        client.updateStatus(rs); // 5. report; a 409 Conflict is requeued and counted, not logged as an error
        return Result.done();
    }
}
