package io.kubeloop.cluster.internal.deployment;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentCondition;
import io.fabric8.kubernetes.api.model.apps.DeploymentStatus;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.kubeloop.model.Timestamps;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * kube's {@code pkg/controller/deployment/util} for fabric8 objects: revisions and the annotations the controller
 * keeps on ReplicaSets, {@code maxSurge}/{@code maxUnavailable} resolution, conditions, the orderings of ReplicaSets
 * and the replica arithmetic of rollouts and proportional scaling. Pure functions of their arguments; a
 * {@code null} count or replicas field counts as 0, a missing strategy as kube's defaulted RollingUpdate.
 */
final class Deployments {

    static final String REVISION = "deployment.kubernetes.io/revision";
    static final String REVISION_HISTORY = "deployment.kubernetes.io/revision-history";
    static final String DESIRED_REPLICAS = "deployment.kubernetes.io/desired-replicas";
    static final String MAX_REPLICAS = "deployment.kubernetes.io/max-replicas";
    static final String LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";
    static final String DEPRECATED_ROLLBACK_TO = "deprecated.deployment.rollback.to";

    // Progressing reasons.
    static final String REPLICA_SET_UPDATED = "ReplicaSetUpdated";
    static final String FAILED_RS_CREATE = "ReplicaSetCreateError";
    static final String NEW_REPLICA_SET = "NewReplicaSetCreated";
    static final String FOUND_NEW_RS = "FoundNewReplicaSet";
    static final String NEW_RS_AVAILABLE = "NewReplicaSetAvailable";
    static final String TIMED_OUT = "ProgressDeadlineExceeded";
    static final String PAUSED = "DeploymentPaused";
    static final String RESUMED = "DeploymentResumed";
    // Available reasons.
    static final String MINIMUM_REPLICAS_AVAILABLE = "MinimumReplicasAvailable";
    static final String MINIMUM_REPLICAS_UNAVAILABLE = "MinimumReplicasUnavailable";

    static final String PROGRESSING = "Progressing";
    static final String AVAILABLE = "Available";
    static final String REPLICA_FAILURE = "ReplicaFailure";

    /** kube's {@code annotationsToSkip}: never copied from a Deployment to its ReplicaSets. */
    private static final Set<String> SKIPPED_ANNOTATIONS =
            Set.of(LAST_APPLIED, REVISION, REVISION_HISTORY, DESIRED_REPLICAS, MAX_REPLICAS, DEPRECATED_ROLLBACK_TO);

    /** kube's {@code maxRevHistoryLengthInChars}: the revision-history annotation stays within 2,000 characters. */
    static final int MAX_REVISION_HISTORY_CHARS = 2000;

    private Deployments() {}

    // ---- plain fields -------------------------------------------------------------------------------------------

    static int replicas(Deployment d) {
        Integer r = d.getSpec().getReplicas();
        return r == null ? 1 : r;
    }

    static int replicas(ReplicaSet rs) {
        Integer r = rs.getSpec().getReplicas();
        return r == null ? 1 : r;
    }

    static int statusReplicas(ReplicaSet rs) {
        return rs.getStatus() == null ? 0 : nz(rs.getStatus().getReplicas());
    }

    static int readyReplicas(ReplicaSet rs) {
        return rs.getStatus() == null ? 0 : nz(rs.getStatus().getReadyReplicas());
    }

    static int availableReplicas(ReplicaSet rs) {
        return rs.getStatus() == null ? 0 : nz(rs.getStatus().getAvailableReplicas());
    }

    static int nz(Integer i) {
        return i == null ? 0 : i;
    }

    static long nz(Long l) {
        return l == null ? 0 : l;
    }

    static boolean isRecreate(Deployment d) {
        return d.getSpec().getStrategy() != null
                && "Recreate".equals(d.getSpec().getStrategy().getType());
    }

    static boolean isRollingUpdate(Deployment d) {
        return !isRecreate(d);
    }

    static boolean paused(Deployment d) {
        return Boolean.TRUE.equals(d.getSpec().getPaused());
    }

    static Map<String, String> annotations(io.fabric8.kubernetes.api.model.HasMetadata o) {
        if (o.getMetadata().getAnnotations() == null) {
            o.getMetadata().setAnnotations(new HashMap<>());
        }
        return o.getMetadata().getAnnotations();
    }

    // ---- revisions and annotations -------------------------------------------------------------------------------

    /** The revision annotation as a number: 0 when absent; -1 when it does not parse (such ReplicaSets are skipped). */
    static long revision(ReplicaSet rs) {
        Map<String, String> a = rs.getMetadata().getAnnotations();
        String v = a == null ? null : a.get(REVISION);
        if (v == null) {
            return 0;
        }
        try {
            return Long.parseLong(v);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    static long maxRevision(List<ReplicaSet> rss) {
        long max = 0;
        for (ReplicaSet rs : rss) {
            max = Math.max(max, revision(rs));
        }
        return max;
    }

    /** {@code SetNewReplicaSetAnnotations}: whether the ReplicaSet's annotations changed. */
    static boolean setNewReplicaSetAnnotations(Deployment d, ReplicaSet rs, String newRevision, boolean exists) {
        boolean changed = copyDeploymentAnnotations(d, rs);
        Map<String, String> a = annotations(rs);
        String oldRevision = a.get(REVISION);
        long oldRevisionInt;
        if (oldRevision == null || oldRevision.isEmpty()) {
            oldRevisionInt = 0;
        } else {
            try {
                oldRevisionInt = Long.parseLong(oldRevision);
            } catch (NumberFormatException e) {
                return false;
            }
        }
        long newRevisionInt = Long.parseLong(newRevision);
        if (oldRevisionInt < newRevisionInt) {
            a.put(REVISION, newRevision);
            changed = true;
        }
        // A reused ReplicaSet (a rollback) keeps the revisions it served before in revision-history.
        if (oldRevision != null && oldRevisionInt < newRevisionInt) {
            String history = a.getOrDefault(REVISION_HISTORY, "");
            if (history.isEmpty()) {
                a.put(REVISION_HISTORY, oldRevision);
            } else {
                List<String> old = new ArrayList<>(Arrays.asList(history.split(",", -1)));
                int total = history.length() + oldRevision.length() + 1;
                int start = 0;
                while (total > MAX_REVISION_HISTORY_CHARS && start < old.size()) {
                    total -= old.get(start).length() + 1;
                    start++;
                }
                if (total <= MAX_REVISION_HISTORY_CHARS) {
                    List<String> kept = new ArrayList<>(old.subList(start, old.size()));
                    kept.add(oldRevision);
                    a.put(REVISION_HISTORY, String.join(",", kept));
                }
            }
        }
        if (!exists && setReplicasAnnotations(rs, replicas(d), replicas(d) + maxSurge(d))) {
            changed = true;
        }
        return changed;
    }

    /** {@code copyDeploymentAnnotationsToReplicaSet}: every annotation but the skipped ones; whether any changed. */
    static boolean copyDeploymentAnnotations(Deployment d, ReplicaSet rs) {
        boolean changed = false;
        Map<String, String> target = annotations(rs);
        Map<String, String> source = d.getMetadata().getAnnotations();
        if (source == null) {
            return false;
        }
        for (var e : source.entrySet()) {
            if (SKIPPED_ANNOTATIONS.contains(e.getKey())
                    || (target.containsKey(e.getKey()) && Objects.equals(target.get(e.getKey()), e.getValue()))) {
                continue;
            }
            target.put(e.getKey(), e.getValue());
            changed = true;
        }
        return changed;
    }

    static boolean setDeploymentRevision(Deployment d, String revision) {
        Map<String, String> a = annotations(d);
        if (!Objects.equals(a.get(REVISION), revision)) {
            a.put(REVISION, revision);
            return true;
        }
        return false;
    }

    static boolean setReplicasAnnotations(ReplicaSet rs, int desired, int max) {
        boolean updated = false;
        Map<String, String> a = annotations(rs);
        if (!Integer.toString(desired).equals(a.get(DESIRED_REPLICAS))) {
            a.put(DESIRED_REPLICAS, Integer.toString(desired));
            updated = true;
        }
        if (!Integer.toString(max).equals(a.get(MAX_REPLICAS))) {
            a.put(MAX_REPLICAS, Integer.toString(max));
            updated = true;
        }
        return updated;
    }

    static boolean replicasAnnotationsNeedUpdate(ReplicaSet rs, int desired, int max) {
        Map<String, String> a = rs.getMetadata().getAnnotations();
        if (a == null) {
            return true;
        }
        return !Integer.toString(desired).equals(a.get(DESIRED_REPLICAS))
                || !Integer.toString(max).equals(a.get(MAX_REPLICAS));
    }

    /** An int annotation, or null when absent or not a number. */
    static Integer intAnnotation(ReplicaSet rs, String key) {
        Map<String, String> a = rs.getMetadata().getAnnotations();
        String v = a == null ? null : a.get(key);
        if (v == null) {
            return null;
        }
        try {
            return Integer.parseInt(v);
        } catch (NumberFormatException e) {
            return null;
        }
    }

    // ---- surge and unavailability -------------------------------------------------------------------------------

    /**
     * intstr's {@code GetScaledValueFromIntOrPercent}: an int as is, {@code "25%"} of {@code total} rounded up or down.
     */
    static int scaled(IntOrString value, int total, boolean roundUp) {
        if (value == null) {
            return 0;
        }
        if (value.getIntVal() != null) {
            return value.getIntVal();
        }
        String s = value.getStrVal();
        if (s == null || !s.endsWith("%")) {
            throw new IllegalArgumentException(
                    "invalid value for IntOrString: invalid type: string is not a percentage");
        }
        int percent;
        try {
            percent = Integer.parseInt(s.substring(0, s.length() - 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("invalid value \"" + s + "\": " + e.getMessage(), e);
        }
        double v = (double) percent * total / 100;
        return (int) (roundUp ? Math.ceil(v) : Math.floor(v));
    }

    /** {@code ResolveFenceposts}: surge rounded up, unavailable rounded down; both 0 → unavailable 1. */
    static int[] resolveFenceposts(Deployment d) {
        IntOrString surge = null;
        IntOrString unavailable = null;
        var strategy = d.getSpec().getStrategy();
        if (strategy == null || strategy.getRollingUpdate() == null) {
            // kube's defaulting: 25% and 25%.
            surge = new IntOrString("25%");
            unavailable = new IntOrString("25%");
        } else {
            surge = strategy.getRollingUpdate().getMaxSurge();
            unavailable = strategy.getRollingUpdate().getMaxUnavailable();
        }
        int desired = replicas(d);
        int s = scaled(surge, desired, true);
        int u = scaled(unavailable, desired, false);
        if (s == 0 && u == 0) {
            u = 1;
        }
        return new int[] {s, u};
    }

    static int maxSurge(Deployment d) {
        return isRollingUpdate(d) ? resolveFenceposts(d)[0] : 0;
    }

    static int maxUnavailable(Deployment d) {
        if (!isRollingUpdate(d) || replicas(d) == 0) {
            return 0;
        }
        return Math.min(resolveFenceposts(d)[1], replicas(d));
    }

    // ---- replica arithmetic --------------------------------------------------------------------------------------

    static int specReplicas(List<ReplicaSet> rss) {
        int n = 0;
        for (ReplicaSet rs : rss) {
            if (rs != null) {
                n += replicas(rs);
            }
        }
        return n;
    }

    static int actualReplicas(List<ReplicaSet> rss) {
        int n = 0;
        for (ReplicaSet rs : rss) {
            if (rs != null) {
                n += statusReplicas(rs);
            }
        }
        return n;
    }

    static int readyReplicas(List<ReplicaSet> rss) {
        int n = 0;
        for (ReplicaSet rs : rss) {
            if (rs != null) {
                n += readyReplicas(rs);
            }
        }
        return n;
    }

    static int availableReplicas(List<ReplicaSet> rss) {
        int n = 0;
        for (ReplicaSet rs : rss) {
            if (rs != null) {
                n += availableReplicas(rs);
            }
        }
        return n;
    }

    static List<ReplicaSet> active(List<ReplicaSet> rss) {
        List<ReplicaSet> out = new ArrayList<>();
        for (ReplicaSet rs : rss) {
            if (rs != null && replicas(rs) > 0) {
                out.add(rs);
            }
        }
        return out;
    }

    /** {@code NewRSNewReplicas}: the size the new ReplicaSet may have now. */
    static int newRSNewReplicas(Deployment d, List<ReplicaSet> all, ReplicaSet newRS) {
        if (isRecreate(d)) {
            return replicas(d);
        }
        int surge = scaled(rollingMaxSurge(d), replicas(d), true);
        int current = specReplicas(all);
        int maxTotal = replicas(d) + surge;
        if (current >= maxTotal) {
            return replicas(newRS);
        }
        int scaleUp = Math.min(maxTotal - current, replicas(d) - replicas(newRS));
        return replicas(newRS) + scaleUp;
    }

    private static IntOrString rollingMaxSurge(Deployment d) {
        var strategy = d.getSpec().getStrategy();
        return strategy == null || strategy.getRollingUpdate() == null
                ? new IntOrString("25%")
                : strategy.getRollingUpdate().getMaxSurge();
    }

    /** {@code IsSaturated}: the new ReplicaSet has, wants and makes available all of the Deployment's replicas. */
    static boolean isSaturated(Deployment d, ReplicaSet rs) {
        if (rs == null) {
            return false;
        }
        Integer desired = intAnnotation(rs, DESIRED_REPLICAS);
        if (desired == null) {
            return false;
        }
        return replicas(rs) == replicas(d) && desired == replicas(d) && availableReplicas(rs) == replicas(d);
    }

    /** {@code GetProportion}: how many replicas {@code rs} gains (or loses) in a proportional scaling. */
    static int proportion(ReplicaSet rs, Deployment d, int toAdd, int added) {
        if (rs == null || replicas(rs) == 0 || toAdd == 0 || toAdd == added) {
            return 0;
        }
        int fraction = fraction(rs, d);
        int allowed = toAdd - added;
        return toAdd > 0 ? Math.min(fraction, allowed) : Math.max(fraction, allowed);
    }

    private static int fraction(ReplicaSet rs, Deployment d) {
        if (replicas(d) == 0) {
            return -replicas(rs);
        }
        int deploymentReplicas = replicas(d) + maxSurge(d);
        Integer annotated = intAnnotation(rs, MAX_REPLICAS);
        int annotatedReplicas = annotated != null
                ? annotated
                : (d.getStatus() == null ? 0 : nz(d.getStatus().getReplicas()));
        double newSize = (double) (replicas(rs) * deploymentReplicas) / annotatedReplicas;
        return (int) goRound(newSize) - replicas(rs);
    }

    /** Go's {@code math.Round}: halves away from zero. */
    static long goRound(double x) {
        return x < 0 ? -Math.round(-x) : Math.round(x);
    }

    // ---- finding the new and old ReplicaSets ------------------------------------------------------------------

    /** {@code FindNewReplicaSet}: the oldest ReplicaSet whose template is the Deployment's, or null. */
    static ReplicaSet findNewReplicaSet(Deployment d, List<ReplicaSet> rss) {
        List<ReplicaSet> sorted = new ArrayList<>(rss);
        sorted.sort(BY_CREATION);
        for (ReplicaSet rs : sorted) {
            if (PodTemplateHash.equalIgnoringHash(
                    rs.getSpec().getTemplate(), d.getSpec().getTemplate())) {
                return rs;
            }
        }
        return null;
    }

    /** {@code FindActiveOrLatest}: the only active ReplicaSet, the newest when none is active, or null. */
    static ReplicaSet findActiveOrLatest(ReplicaSet newRS, List<ReplicaSet> oldRSs) {
        if (newRS == null && oldRSs.isEmpty()) {
            return null;
        }
        List<ReplicaSet> olds = new ArrayList<>(oldRSs);
        olds.sort(BY_CREATION.reversed());
        List<ReplicaSet> all = new ArrayList<>(olds);
        all.add(newRS);
        List<ReplicaSet> active = active(all);
        return switch (active.size()) {
            case 0 -> newRS != null ? newRS : olds.get(0);
            case 1 -> active.get(0);
            default -> null;
        };
    }

    /** {@code DeploymentComplete}. */
    static boolean complete(Deployment d, DeploymentStatus s) {
        int r = replicas(d);
        return nz(s.getUpdatedReplicas()) == r
                && nz(s.getReplicas()) == r
                && nz(s.getAvailableReplicas()) == r
                && nz(s.getObservedGeneration()) >= nz(d.getMetadata().getGeneration());
    }

    /** {@code DeploymentProgressing}: more updated, ready or available replicas, or fewer old ones. */
    static boolean progressing(Deployment d, DeploymentStatus s) {
        DeploymentStatus old = d.getStatus() == null ? new DeploymentStatus() : d.getStatus();
        int oldOld = nz(old.getReplicas()) - nz(old.getUpdatedReplicas());
        int newOld = nz(s.getReplicas()) - nz(s.getUpdatedReplicas());
        return nz(s.getUpdatedReplicas()) > nz(old.getUpdatedReplicas())
                || newOld < oldOld
                || nz(s.getReadyReplicas()) > nz(old.getReadyReplicas())
                || nz(s.getAvailableReplicas()) > nz(old.getAvailableReplicas());
    }

    static boolean hasProgressDeadline(Deployment d) {
        Integer p = d.getSpec().getProgressDeadlineSeconds();
        return p != null && p != Integer.MAX_VALUE;
    }

    static boolean hasRevisionHistoryLimit(Deployment d) {
        Integer l = d.getSpec().getRevisionHistoryLimit();
        return l != null && l != Integer.MAX_VALUE;
    }

    // ---- conditions --------------------------------------------------------------------------------------------

    static DeploymentCondition newCondition(String type, String status, String reason, String message, Instant now) {
        String t = Timestamps.format(now);
        return new DeploymentCondition(t, t, message, reason, status, type);
    }

    static DeploymentCondition condition(DeploymentStatus status, String type) {
        if (status == null || status.getConditions() == null) {
            return null;
        }
        for (DeploymentCondition c : status.getConditions()) {
            if (type.equals(c.getType())) {
                return c;
            }
        }
        return null;
    }

    /** {@code SetDeploymentCondition}: replaces the condition of the type unless status and reason are unchanged. */
    static void setCondition(DeploymentStatus status, DeploymentCondition condition) {
        DeploymentCondition current = condition(status, condition.getType());
        if (current != null
                && Objects.equals(current.getStatus(), condition.getStatus())
                && Objects.equals(current.getReason(), condition.getReason())) {
            return;
        }
        if (current != null && Objects.equals(current.getStatus(), condition.getStatus())) {
            condition.setLastTransitionTime(current.getLastTransitionTime());
        }
        removeCondition(status, condition.getType());
        List<DeploymentCondition> conditions = new ArrayList<>(status.getConditions());
        conditions.add(condition);
        status.setConditions(conditions);
    }

    static void removeCondition(DeploymentStatus status, String type) {
        List<DeploymentCondition> kept = new ArrayList<>();
        if (status.getConditions() != null) {
            for (DeploymentCondition c : status.getConditions()) {
                if (!type.equals(c.getType())) {
                    kept.add(c);
                }
            }
        }
        status.setConditions(kept);
    }

    // ---- orderings ---------------------------------------------------------------------------------------------

    static Instant created(ReplicaSet rs) {
        String t = rs.getMetadata().getCreationTimestamp();
        return t == null ? Instant.MIN : Timestamps.parse(t);
    }

    /** {@code ReplicaSetsByCreationTimestamp}: oldest first, then by name. */
    static final Comparator<ReplicaSet> BY_CREATION = Comparator.comparing(Deployments::created)
            .thenComparing(rs -> rs.getMetadata().getName());

    /** {@code ReplicaSetsBySizeOlder}: largest first, then older first. */
    static final Comparator<ReplicaSet> BY_SIZE_OLDER = Comparator.<ReplicaSet>comparingInt(Deployments::replicas)
            .reversed()
            .thenComparing(BY_CREATION);

    /** {@code ReplicaSetsBySizeNewer}: largest first, then newer first. */
    static final Comparator<ReplicaSet> BY_SIZE_NEWER = Comparator.<ReplicaSet>comparingInt(Deployments::replicas)
            .reversed()
            .thenComparing(BY_CREATION.reversed());

    /** {@code ReplicaSetsByRevision}: by revision, creation time breaking ties or unparsable revisions. */
    static final Comparator<ReplicaSet> BY_REVISION = (a, b) -> {
        long ra = revision(a);
        long rb = revision(b);
        if (ra < 0 || rb < 0 || ra == rb) {
            return BY_CREATION.compare(a, b);
        }
        return Long.compare(ra, rb);
    };

    /** Whether {@code ref} names {@code d} (kind Deployment in group apps, same uid). */
    static boolean refersTo(OwnerReference ref, Deployment d) {
        return ref != null
                && "Deployment".equals(ref.getKind())
                && ref.getApiVersion() != null
                && ref.getApiVersion().startsWith("apps/")
                && Objects.equals(ref.getUid(), d.getMetadata().getUid());
    }
}
