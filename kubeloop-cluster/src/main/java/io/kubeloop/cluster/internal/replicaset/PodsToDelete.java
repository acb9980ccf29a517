package io.kubeloop.cluster.internal.replicaset;

import io.fabric8.kubernetes.api.model.Pod;
import io.kubeloop.cluster.internal.workloads.PodConditions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Which pods a ReplicaSet deletes first when it scales down: kube's {@code getPodsToDelete} with
 * {@code ActivePodsWithRanks} (controller_utils.go, the LogarithmicScaleDown and PodDeletionCost features on, as in
 * 1.32). Earlier in the order is deleted first:
 * <ol>
 *   <li>unassigned (no {@code spec.nodeName}) before assigned;</li>
 *   <li>Pending before Unknown before Running;</li>
 *   <li>not ready before ready;</li>
 *   <li>lower {@code controller.kubernetes.io/pod-deletion-cost} before higher (invalid or missing: 0);</li>
 *   <li>more active related pods on the same node before fewer (the co-location rank; related pods are those of
 *       every ReplicaSet with the same controller, e.g. the Deployment's — none for a ReplicaSet without one);</li>
 *   <li>both ready: ready for less time before more, compared on a log2 scale of the time since (equal rank: by
 *       uid); a missing time first;</li>
 *   <li>more container restarts before fewer;</li>
 *   <li>newer before older creation, on the same log2 scale (equal rank: by uid); a missing time first.</li>
 * </ol>
 * Deleting all of them needs no order (kube skips the sort then).
 */
final class PodsToDelete {

    static final String DELETION_COST = "controller.kubernetes.io/pod-deletion-cost";

    private PodsToDelete() {}

    /** The first {@code count} of {@code pods} in deletion order; {@code related} gives the co-location ranks. */
    static List<Pod> choose(List<Pod> pods, List<Pod> related, int count, Instant now) {
        if (count >= pods.size()) {
            return List.copyOf(pods);
        }
        Map<String, Integer> onNode = new HashMap<>();
        for (Pod p : related) {
            if (PodConditions.isActive(p)) {
                onNode.merge(nodeName(p), 1, Integer::sum);
            }
        }
        List<Ranked> ranked = new ArrayList<>(pods.size());
        for (Pod p : pods) {
            ranked.add(new Ranked(p, onNode.getOrDefault(nodeName(p), 0)));
        }
        ranked.sort(order(now));
        return ranked.subList(0, count).stream().map(Ranked::pod).toList();
    }

    record Ranked(Pod pod, int rank) {}

    static Comparator<Ranked> order(Instant now) {
        return (a, b) -> less(a, b, now) ? -1 : less(b, a, now) ? 1 : 0;
    }

    /** {@code ActivePodsWithRanks.Less}. */
    private static boolean less(Ranked ri, Ranked rj, Instant now) {
        Pod i = ri.pod();
        Pod j = rj.pod();
        String ni = nodeName(i);
        String nj = nodeName(j);
        if (!ni.equals(nj) && (ni.isEmpty() || nj.isEmpty())) {
            return ni.isEmpty();
        }
        int pi = phaseOrdinal(i);
        int pj = phaseOrdinal(j);
        if (pi != pj) {
            return pi < pj;
        }
        boolean readyI = PodConditions.isReady(i);
        boolean readyJ = PodConditions.isReady(j);
        if (readyI != readyJ) {
            return !readyI;
        }
        int ci = deletionCost(i);
        int cj = deletionCost(j);
        if (ci != cj) {
            return ci < cj;
        }
        if (ri.rank() != rj.rank()) {
            return ri.rank() > rj.rank();
        }
        if (readyI) {
            Optional<Instant> ti = PodConditions.readySince(i);
            Optional<Instant> tj = PodConditions.readySince(j);
            if (!ti.equals(tj)) {
                return newerOnLogScale(ti, tj, now, i, j);
            }
        }
        int restartsI = PodConditions.maxContainerRestarts(i);
        int restartsJ = PodConditions.maxContainerRestarts(j);
        if (restartsI != restartsJ) {
            return restartsI > restartsJ;
        }
        Optional<Instant> ci2 = PodConditions.parseTime(i.getMetadata().getCreationTimestamp());
        Optional<Instant> cj2 = PodConditions.parseTime(j.getMetadata().getCreationTimestamp());
        if (!ci2.equals(cj2)) {
            return newerOnLogScale(ci2, cj2, now, i, j);
        }
        return false;
    }

    /** kube's {@code afterOrZero} or {@code logarithmicRankDiff}: the newer (or unset) time first. */
    private static boolean newerOnLogScale(Optional<Instant> ti, Optional<Instant> tj, Instant now, Pod i, Pod j) {
        if (ti.isEmpty() || tj.isEmpty()) {
            return ti.isEmpty();
        }
        long diff = logRank(ti.get(), now) - logRank(tj.get(), now);
        if (diff == 0) {
            return uid(i).compareTo(uid(j)) < 0;
        }
        return diff < 0;
    }

    /** {@code int64(math.Log2(float64(now - t)))} in nanoseconds, -1 when {@code t} is not before now. */
    private static long logRank(Instant t, Instant now) {
        long d = Duration.between(t, now).toNanos();
        return d > 0 ? 63 - Long.numberOfLeadingZeros(d) : -1; // floor(log2(d)), exact
    }

    private static int phaseOrdinal(Pod p) {
        String phase = p.getStatus() == null ? null : p.getStatus().getPhase();
        if ("Unknown".equals(phase)) {
            return 1;
        }
        return "Running".equals(phase) ? 2 : 0;
    }

    /** {@code getDeletionCostFromPodAnnotations}: an int32 without a plus sign or leading zeros, else 0. */
    static int deletionCost(Pod p) {
        Map<String, String> annotations = p.getMetadata().getAnnotations();
        String v = annotations == null ? null : annotations.get(DELETION_COST);
        if (v == null || v.isEmpty()) {
            return 0;
        }
        char first = v.charAt(0);
        if (!(first == '-' || v.equals("0") || (first >= '1' && first <= '9'))) {
            return 0;
        }
        try {
            return Integer.parseInt(v);
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private static String nodeName(Pod p) {
        String n = p.getSpec() == null ? null : p.getSpec().getNodeName();
        return n == null ? "" : n;
    }

    private static String uid(Pod p) {
        String u = p.getMetadata().getUid();
        return u == null ? "" : u;
    }
}
