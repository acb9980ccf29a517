package io.kubeloop.cluster.internal.workloads;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.kubeloop.cluster.ClusterTimings;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Optional;

/**
 * A pod's readiness and availability as kube's {@code podutil} computes them, and which pods a workload controller
 * counts ({@code controller.IsPodActive}).
 *
 * <ul>
 *   <li><b>ready</b>: the {@code Ready} condition is {@code True};</li>
 *   <li><b>available</b>: ready, and either {@code minReadySeconds} is 0 or the Ready condition's
 *       {@code lastTransitionTime} + {@code minReadySeconds} is strictly before now ({@code IsPodAvailable}); the
 *       seconds are cluster time, measured on the clock as {@link ClusterTimings#wall}; a ready pod without a
 *       transition time is never available when {@code minReadySeconds} &gt; 0;</li>
 *   <li><b>active</b>: not {@code Succeeded}, not {@code Failed}, no {@code deletionTimestamp}.</li>
 * </ul>
 *
 * <p>Stateless; never changes the pods it is given (they may be the cache's).
 */
public final class PodConditions {

    private PodConditions() {}

    /** The pod's {@code Ready} condition, if it has one. */
    public static Optional<PodCondition> readyCondition(Pod pod) {
        return condition(pod, "Ready");
    }

    /** The pod's condition of {@code type}, if it has one. */
    public static Optional<PodCondition> condition(Pod pod, String type) {
        if (pod.getStatus() == null || pod.getStatus().getConditions() == null) {
            return Optional.empty();
        }
        for (PodCondition c : pod.getStatus().getConditions()) {
            if (type.equals(c.getType())) {
                return Optional.of(c);
            }
        }
        return Optional.empty();
    }

    /** {@code podutil.IsPodReady}: the Ready condition is True. */
    public static boolean isReady(Pod pod) {
        return readyCondition(pod).map(c -> "True".equals(c.getStatus())).orElse(false);
    }

    /**
     * When the pod became ready (its Ready condition's {@code lastTransitionTime}), if it is ready and the time is
     * set and parses.
     */
    public static Optional<Instant> readySince(Pod pod) {
        return readyCondition(pod)
                .filter(c -> "True".equals(c.getStatus()))
                .flatMap(c -> parseTime(c.getLastTransitionTime()));
    }

    /** {@code podutil.IsPodAvailable}, with {@code minReadySeconds} in cluster time (see the type's rules). */
    public static boolean isAvailable(Pod pod, int minReadySeconds, Instant now, ClusterTimings timings) {
        if (!isReady(pod)) {
            return false;
        }
        if (minReadySeconds <= 0) {
            return true;
        }
        return availableAfter(pod, minReadySeconds, timings)
                .map(t -> t.isBefore(now))
                .orElse(false);
    }

    /**
     * The instant after which a ready pod counts as available (its Ready transition time + the clock time of
     * {@code minReadySeconds}); empty when it is not ready or has no transition time. A controller that saw a pod
     * ready but not yet available looks again just after this instant.
     */
    public static Optional<Instant> availableAfter(Pod pod, int minReadySeconds, ClusterTimings timings) {
        return readySince(pod).map(t -> t.plus(timings.wallSeconds(Math.max(0, minReadySeconds))));
    }

    /** {@code controller.IsPodActive}: not Succeeded, not Failed, and not being deleted. */
    public static boolean isActive(Pod pod) {
        String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
        return !"Succeeded".equals(phase)
                && !"Failed".equals(phase)
                && (pod.getMetadata() == null || pod.getMetadata().getDeletionTimestamp() == null);
    }

    /** The highest {@code restartCount} of the pod's (regular) containers, 0 without statuses. */
    public static int maxContainerRestarts(Pod pod) {
        if (pod.getStatus() == null) {
            return 0;
        }
        int max = 0;
        for (ContainerStatus s : nullToEmpty(pod.getStatus().getContainerStatuses())) {
            if (s.getRestartCount() != null) {
                max = Math.max(max, s.getRestartCount());
            }
        }
        return max;
    }

    /** An RFC 3339 timestamp of an object, empty when unset or unparsable (Go's zero time). */
    public static Optional<Instant> parseTime(String timestamp) {
        if (timestamp == null || timestamp.isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(Instant.parse(timestamp));
        } catch (DateTimeParseException e) {
            return Optional.empty();
        }
    }

    private static <E> List<E> nullToEmpty(List<E> list) {
        return list == null ? List.of() : list;
    }
}
