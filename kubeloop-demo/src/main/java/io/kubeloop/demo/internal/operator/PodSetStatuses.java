package io.kubeloop.demo.internal.operator;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.kubeloop.demo.PodSet;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A PodSet's status from what a reconcile observed, and whether it differs from the stored one (the operator writes
 * only a changed status: a write would come back as an event and reconcile the PodSet again).
 *
 * <p>Conditions, Kubernetes-style:
 * <ul>
 *   <li>{@code Available}: {@code True}/{@code AllReplicasReady} when at least {@code spec.replicas} pods are ready,
 *       else {@code False}/{@code ReplicasNotReady};</li>
 *   <li>{@code Progressing}: {@code True} while the operator still has work — {@code ScalingUp} (too few pods),
 *       {@code ScalingDown} (too many), {@code WaitingForReady} (enough pods, not all ready) —, {@code False}/
 *       {@code ReplicasReady} once it has none.</li>
 * </ul>
 * A condition's {@code lastTransitionTime} changes only when its {@code status} does.
 */
final class PodSetStatuses {
    private PodSetStatuses() {}

    static final String AVAILABLE = "Available";
    static final String PROGRESSING = "Progressing";

    /** The label selector of a PodSet's pods, as the scale subresource reports it. */
    static String selector(String podSetName) {
        return PodSet.NAME_LABEL + "=" + podSetName;
    }

    static PodSet.Status compute(PodSet podSet, int desired, int active, int ready, Instant now) {
        PodSet.Status old = podSet.getStatus();
        long generation = podSet.getMetadata().getGeneration() == null
                ? 0
                : podSet.getMetadata().getGeneration();
        PodSet.Status s = new PodSet.Status();
        s.setReplicas(active);
        s.setReadyReplicas(ready);
        s.setObservedGeneration(generation);
        s.setSelector(selector(podSet.getMetadata().getName()));
        String progress = ready + " of " + desired + " pods ready, " + active + " pods";
        Condition available = ready >= desired
                ? condition(AVAILABLE, "True", "AllReplicasReady", progress, generation)
                : condition(AVAILABLE, "False", "ReplicasNotReady", progress, generation);
        Condition progressing;
        if (active < desired) {
            progressing = condition(PROGRESSING, "True", "ScalingUp", progress, generation);
        } else if (active > desired) {
            progressing = condition(PROGRESSING, "True", "ScalingDown", progress, generation);
        } else if (ready < desired) {
            progressing = condition(PROGRESSING, "True", "WaitingForReady", progress, generation);
        } else {
            progressing = condition(PROGRESSING, "False", "ReplicasReady", progress, generation);
        }
        List<Condition> conditions = new ArrayList<>();
        String timestamp = DateTimeFormatter.ISO_INSTANT.format(now.truncatedTo(ChronoUnit.SECONDS));
        for (Condition c : List.of(available, progressing)) {
            Condition previous = find(old, c.getType());
            c.setLastTransitionTime(
                    previous != null
                                    && Objects.equals(previous.getStatus(), c.getStatus())
                                    && previous.getLastTransitionTime() != null
                            ? previous.getLastTransitionTime()
                            : timestamp);
            conditions.add(c);
        }
        // conditions someone else added are kept, after ours
        if (old != null && old.getConditions() != null) {
            for (Condition c : old.getConditions()) {
                if (!AVAILABLE.equals(c.getType()) && !PROGRESSING.equals(c.getType())) {
                    conditions.add(c);
                }
            }
        }
        s.setConditions(conditions);
        return s;
    }

    /** Whether {@code a} and {@code b} say the same (field by field; conditions in order). */
    static boolean same(PodSet.Status a, PodSet.Status b) {
        if (a == null || b == null) {
            return a == b;
        }
        if (!Objects.equals(a.getReplicas(), b.getReplicas())
                || !Objects.equals(a.getReadyReplicas(), b.getReadyReplicas())
                || !Objects.equals(a.getObservedGeneration(), b.getObservedGeneration())
                || !Objects.equals(a.getSelector(), b.getSelector())) {
            return false;
        }
        List<Condition> ca = a.getConditions() == null ? List.of() : a.getConditions();
        List<Condition> cb = b.getConditions() == null ? List.of() : b.getConditions();
        if (ca.size() != cb.size()) {
            return false;
        }
        for (int i = 0; i < ca.size(); i++) {
            Condition x = ca.get(i);
            Condition y = cb.get(i);
            if (!Objects.equals(x.getType(), y.getType())
                    || !Objects.equals(x.getStatus(), y.getStatus())
                    || !Objects.equals(x.getReason(), y.getReason())
                    || !Objects.equals(x.getMessage(), y.getMessage())
                    || !Objects.equals(x.getLastTransitionTime(), y.getLastTransitionTime())
                    || !Objects.equals(x.getObservedGeneration(), y.getObservedGeneration())) {
                return false;
            }
        }
        return true;
    }

    private static Condition find(PodSet.Status status, String type) {
        if (status == null || status.getConditions() == null) {
            return null;
        }
        return status.getConditions().stream()
                .filter(c -> type.equals(c.getType()))
                .findFirst()
                .orElse(null);
    }

    private static Condition condition(String type, String status, String reason, String message, long generation) {
        return new ConditionBuilder()
                .withType(type)
                .withStatus(status)
                .withReason(reason)
                .withMessage(message)
                .withObservedGeneration(generation)
                .build();
    }
}
