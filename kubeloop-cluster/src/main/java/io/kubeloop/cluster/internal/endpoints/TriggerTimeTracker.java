package io.kubeloop.cluster.internal.endpoints;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * kube's {@code TriggerTimeTracker}: computes the {@code endpoints.kubernetes.io/last-change-trigger-time}
 * annotation — the earliest time of the changes (a pod's Ready transition, the Service's creation) that the current
 * sync of a Service is the first to see.
 *
 * <p>State per Service: the Service's creation time and each selected pod's Ready transition time as seen by the
 * last sync. The first sync of a Service answers the Service's creation time; later ones the minimum of the times
 * that advanced since, or null (no annotation). As upstream, an object that changed twice between two syncs is
 * reported with its later change. Safe for concurrent calls on different Services; never called concurrently for
 * one Service (the work queue's guarantee).
 *
 * <p>Invariant: the state advances only when a sync {@linkplain #commit commits} it, that is when its write landed or
 * there was nothing to write; a sync whose write failed leaves it as it was, so the retry reports the same trigger
 * time instead of none.
 */
final class TriggerTimeTracker {

    record State(Instant serviceTime, Map<String, Instant> podTimes) {}

    private final Map<String, State> states = new ConcurrentHashMap<>();

    /** What one sync computed: the trigger time to write (null: none) and the state to keep once it wrote. */
    record Pending(String key, Instant time, State next) {}

    /** Records what a sync saw, once its write landed (or nothing needed writing). */
    void commit(Pending pending) {
        states.put(pending.key(), pending.next());
    }

    /** The trigger time to write for this sync of {@code service} with {@code pods}; see {@link #commit}. */
    Pending compute(Service service, List<Pod> pods) {
        String key = service.getMetadata().getNamespace() + "/"
                + service.getMetadata().getName();
        State previous = states.get(key);
        Map<String, Instant> lastPodTimes = previous == null ? Map.of() : previous.podTimes();
        Instant minChanged = null;
        Map<String, Instant> podTimes = new HashMap<>();
        for (Pod pod : pods) {
            Instant t = PodEndpoints.readyTransitionTime(pod);
            if (t == null) {
                continue;
            }
            String name = pod.getMetadata().getName();
            podTimes.put(name, t);
            Instant last = lastPodTimes.get(name);
            if (last == null || t.isAfter(last)) {
                minChanged = min(minChanged, t);
            }
        }
        Instant serviceTime = PodEndpoints.parseTime(service.getMetadata().getCreationTimestamp());
        if (serviceTime != null
                && (previous == null
                        || previous.serviceTime() == null
                        || serviceTime.isAfter(previous.serviceTime()))) {
            minChanged = min(minChanged, serviceTime);
        }
        return new Pending(key, previous == null ? serviceTime : minChanged, new State(serviceTime, podTimes));
    }

    void deleteService(String namespace, String name) {
        states.remove(namespace + "/" + name);
    }

    private static Instant min(Instant current, Instant candidate) {
        return current == null || candidate.isBefore(current) ? candidate : current;
    }
}
