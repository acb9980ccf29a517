package io.kubeloop.demo.operator;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.demo.PodSet;
import java.util.List;

/** Test helpers: a PodSet, its pods, its events. */
final class PodSets {
    private PodSets() {}

    /** A PodSet of {@code replicas} nginx pods whose containers stop {@code graceSeconds} after a delete. */
    static PodSet podSet(String name, int replicas, long graceSeconds) {
        PodSet ps = new PodSet();
        ps.setMetadata(new ObjectMetaBuilder().withName(name).build());
        PodSet.Spec spec = new PodSet.Spec();
        spec.setReplicas(replicas);
        spec.setTemplate(new PodTemplateSpecBuilder()
                .withNewMetadata()
                .addToLabels("app", name)
                .endMetadata()
                .withNewSpec()
                .withTerminationGracePeriodSeconds(graceSeconds)
                .addNewContainer()
                .withName("app")
                .withImage("nginx")
                .endContainer()
                .endSpec()
                .build());
        ps.setSpec(spec);
        return ps;
    }

    /** The pods of PodSet {@code name} (by label), terminating ones included. */
    static List<Pod> pods(KubernetesClient client, String name) {
        return client.resources(Pod.class).list().items().stream()
                .filter(p -> p.getMetadata().getLabels() != null
                        && name.equals(p.getMetadata().getLabels().get(PodSet.NAME_LABEL)))
                .toList();
    }

    /** The pods of PodSet {@code name} that are not being deleted. */
    static List<Pod> active(KubernetesClient client, String name) {
        return pods(client, name).stream()
                .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
                .toList();
    }

    static boolean running(Pod pod) {
        return pod.getStatus() != null && "Running".equals(pod.getStatus().getPhase());
    }

    /** Reasons of the Events about {@code kind} {@code name}, as {@code Type Reason: message}. */
    static List<String> events(KubernetesClient client, String kind, String name) {
        return client.resources(Event.class).list().items().stream()
                .filter(e -> kind.equals(e.getInvolvedObject().getKind())
                        && name.equals(e.getInvolvedObject().getName()))
                .map(e -> e.getType() + " " + e.getReason() + ": " + e.getMessage())
                .toList();
    }
}
