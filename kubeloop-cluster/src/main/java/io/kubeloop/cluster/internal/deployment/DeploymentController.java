package io.kubeloop.cluster.internal.deployment;

import static io.kubeloop.cluster.internal.deployment.Deployments.*;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentCondition;
import io.fabric8.kubernetes.api.model.apps.DeploymentStatus;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetCondition;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetSpec;
import io.kubeloop.client.codec.Decoding;
import io.kubeloop.client.errors.AlreadyExistsException;
import io.kubeloop.client.errors.NotFoundException;
import io.kubeloop.clock.Clock;
import io.kubeloop.cluster.ClusterTimings;
import io.kubeloop.controller.Controller;
import io.kubeloop.controller.ControllerClient;
import io.kubeloop.controller.EventFilter;
import io.kubeloop.controller.EventRecorder;
import io.kubeloop.controller.Manager;
import io.kubeloop.controller.OwnerReferences;
import io.kubeloop.controller.Reconciler;
import io.kubeloop.controller.Request;
import io.kubeloop.controller.Result;
import io.kubeloop.model.Timestamps;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.json.JsonMapper;

/**
 * kube-controller-manager's Deployment controller ({@code pkg/controller/deployment}) on kubeloop's controller
 * runtime: a Deployment's pod template becomes a ReplicaSet named {@code <deployment>-<pod-template-hash>}, and
 * rollouts move replicas from the old ReplicaSets to the new one within {@code maxSurge} and {@code maxUnavailable}
 * (RollingUpdate) or after the old pods are gone (Recreate). It keeps kube's revision annotations (so that
 * {@code kubectl rollout history|undo} work), scales proportionally when a Deployment is scaled mid-rollout, only
 * scales a paused Deployment, deletes ReplicaSets beyond {@code revisionHistoryLimit}, and writes the status and
 * the Progressing/Available conditions {@code kubectl rollout status} reads.
 *
 * <p>Contract: one reconcile per Deployment key at a time (the runtime's guarantee); every write of a ReplicaSet or
 * of the Deployment's status is conditional on the resourceVersion read from the cache, so a decision made on a
 * stale cache fails with a 409 and is retried on fresh state, never applied. Time: condition timestamps are the
 * manager's clock; {@code progressDeadlineSeconds} is cluster time ({@link ClusterTimings#wallSeconds}).
 *
 * <p>Not reproduced: the {@code deprecated.deployment.rollback.to} annotation of the removed
 * {@code extensions/v1beta1} rollback (kubectl's undo works client-side on {@code apps/v1}), and the dropping of a
 * key after 15 failed syncs (this controller keeps retrying with the runtime's back-off).
 */
public final class DeploymentController implements Reconciler<Deployment> {

    private static final Logger LOG = LoggerFactory.getLogger(DeploymentController.class);
    private static final JsonMapper JSON = Decoding.standard().mapper();
    /** kube's {@code --concurrent-deployment-syncs} default. */
    static final int WORKERS = 5;

    private final ControllerClient client;
    private final EventRecorder events;
    private final Clock clock;
    private final ClusterTimings timings;

    private DeploymentController(ControllerClient client, EventRecorder events, Clock clock, ClusterTimings timings) {
        this.client = client;
        this.events = events;
        this.clock = clock;
        this.timings = timings;
    }

    /**
     * Registers the controller in {@code manager}: Deployments are reconciled; a ReplicaSet's events reach its
     * controlling Deployment (or, for an orphan, every Deployment of its namespace that selects it, which may adopt
     * it); a pod's deletion reaches the Recreate Deployment that waits for its old pods to be gone.
     */
    public static Controller register(Manager manager, ClusterTimings timings) {
        Objects.requireNonNull(manager, "manager");
        Objects.requireNonNull(timings, "timings");
        ControllerClient client = manager.client();
        DeploymentController reconciler = new DeploymentController(
                client, manager.eventRecorder("deployment-controller"), manager.clock(), timings);
        EventFilter<HasMetadata> deletionsOnly = new EventFilter<>() {
            @Override
            public boolean create(HasMetadata object, boolean isInInitialList) {
                return false;
            }

            @Override
            public boolean update(HasMetadata oldObject, HasMetadata newObject) {
                return false;
            }
        };
        return manager.newControllerFor(Deployment.class)
                .named("deployment")
                .owns(ReplicaSet.class)
                .watches(ReplicaSet.class, rs -> orphanClaimants(client, rs))
                .watches(Pod.class, pod -> recreateDeploymentOf(client, pod), deletionsOnly)
                .workers(WORKERS)
                .complete(reconciler);
    }

    /** An orphan ReplicaSet's possible adopters: the Deployments of its namespace whose selector matches it. */
    private static List<Request> orphanClaimants(ControllerClient client, ReplicaSet rs) {
        if (OwnerReferences.hasControllerReference(rs) || rs.getMetadata().getLabels() == null) {
            return List.of();
        }
        List<Request> out = new ArrayList<>();
        String ns = rs.getMetadata().getNamespace();
        for (Deployment d : client.listReadOnly(Deployment.class, ns)) {
            var selector = selector(d);
            if (selector != null
                    && !selector.isEverything()
                    && selector.matches(rs.getMetadata().getLabels())) {
                out.add(Request.of(d));
            }
        }
        return out;
    }

    /** The Recreate Deployment that owns (through a ReplicaSet) a deleted pod, if any. */
    private static List<Request> recreateDeploymentOf(ControllerClient client, Pod pod) {
        OwnerReference ref = OwnerReferences.controllerOf(pod).orElse(null);
        if (ref == null || !"ReplicaSet".equals(ref.getKind())) {
            return List.of();
        }
        String ns = pod.getMetadata().getNamespace();
        ReplicaSet rs = client.getReadOnly(ReplicaSet.class, ns, ref.getName()).orElse(null);
        if (rs == null || !Objects.equals(rs.getMetadata().getUid(), ref.getUid())) {
            return List.of();
        }
        OwnerReference dref = OwnerReferences.controllerOf(rs).orElse(null);
        if (dref == null || !"Deployment".equals(dref.getKind())) {
            return List.of();
        }
        Deployment d = client.getReadOnly(Deployment.class, ns, dref.getName()).orElse(null);
        if (d == null || !Objects.equals(d.getMetadata().getUid(), dref.getUid()) || !isRecreate(d)) {
            return List.of();
        }
        return List.of(Request.of(d));
    }

    private static io.kubeloop.model.selector.LabelSelector selector(Deployment d) {
        try {
            return io.kubeloop.model.selector.LabelSelector.fromLabelSelector(
                    d.getSpec().getSelector());
        } catch (RuntimeException e) {
            return null;
        }
    }

    // ---- syncDeployment ----------------------------------------------------------------------------------------

    /** What one sync decided about the key beyond "done": a progress check later, or a rate-limited retry. */
    private static final class Sync {
        Duration requeueAfter;
        boolean requeueRateLimited;
    }

    @Override
    public Result reconcile(Request request) {
        Deployment d = client.get(Deployment.class, request).orElse(null);
        if (d == null) {
            LOG.debug("Deployment {} has been deleted", request);
            return Result.done();
        }
        if (d.getStatus() == null) {
            d.setStatus(new DeploymentStatus());
        }
        LabelSelector everything = new LabelSelector();
        if (d.getSpec().getSelector() == null
                || (isEmpty(d.getSpec().getSelector().getMatchLabels())
                        && isEmpty(d.getSpec().getSelector().getMatchExpressions()))
                || d.getSpec().getSelector().equals(everything)) {
            events.event(
                    d,
                    EventRecorder.WARNING,
                    "SelectingAll",
                    "This deployment is selecting all pods. A non-empty selector is required.");
            if (nz(d.getStatus().getObservedGeneration()) < nz(d.getMetadata().getGeneration())) {
                d.getStatus().setObservedGeneration(d.getMetadata().getGeneration());
                client.updateStatus(d);
            }
            return Result.done();
        }
        List<ReplicaSet> rsList = claimReplicaSets(d);
        LOG.debug(
                "Syncing deployment {} (generation {}, {} replica sets)",
                request,
                d.getMetadata().getGeneration(),
                rsList.size());
        Sync sync = new Sync();
        if (d.getMetadata().getDeletionTimestamp() != null) {
            syncStatusOnly(d, rsList);
        } else {
            checkPausedConditions(d);
            if (paused(d)) {
                sync(d, rsList);
            } else if (isScalingEvent(d, rsList)) {
                sync(d, rsList);
            } else if (isRecreate(d)) {
                rolloutRecreate(d, rsList, sync);
            } else {
                rolloutRolling(d, rsList, sync);
            }
        }
        if (sync.requeueRateLimited) {
            return Result.requeue();
        }
        return sync.requeueAfter == null ? Result.done() : Result.requeueAfter(sync.requeueAfter);
    }

    private static boolean isEmpty(java.util.Collection<?> c) {
        return c == null || c.isEmpty();
    }

    private static boolean isEmpty(Map<?, ?> m) {
        return m == null || m.isEmpty();
    }

    /**
     * {@code getReplicaSetsForDeployment}: the ReplicaSets the Deployment controls, after adopting the orphans it
     * selects and releasing the ones it controls but no longer selects (kube's ControllerRefManager). Copies.
     */
    private List<ReplicaSet> claimReplicaSets(Deployment d) {
        var selector = io.kubeloop.model.selector.LabelSelector.fromLabelSelector(
                d.getSpec().getSelector());
        String ns = d.getMetadata().getNamespace();
        boolean deleting = d.getMetadata().getDeletionTimestamp() != null;
        List<ReplicaSet> claimed = new ArrayList<>();
        Boolean canAdopt = null;
        for (ReplicaSet cached : client.listReadOnly(ReplicaSet.class, ns)) {
            OwnerReference ref = OwnerReferences.controllerOf(cached).orElse(null);
            boolean matches = selector.matches(cached.getMetadata().getLabels());
            if (ref != null) {
                if (!Objects.equals(ref.getUid(), d.getMetadata().getUid())) {
                    continue;
                }
                if (matches) {
                    claimed.add(copy(cached));
                } else if (!deleting) {
                    release(d, copy(cached));
                }
                continue;
            }
            if (deleting || !matches || cached.getMetadata().getDeletionTimestamp() != null) {
                continue;
            }
            if (canAdopt == null) {
                // kube's RecheckDeletionTimestamp: an uncached read before the first adoption.
                Deployment fresh = client.apiReader()
                        .get(Deployment.class, ns, d.getMetadata().getName())
                        .orElse(null);
                canAdopt = fresh != null
                        && Objects.equals(
                                fresh.getMetadata().getUid(), d.getMetadata().getUid())
                        && fresh.getMetadata().getDeletionTimestamp() == null;
            }
            if (!canAdopt) {
                continue;
            }
            ReplicaSet original = copy(cached);
            ReplicaSet adopted = copy(cached);
            OwnerReferences.setControllerReference(d, adopted);
            try {
                claimed.add(client.patch(original, adopted));
            } catch (NotFoundException e) {
                // Gone meanwhile: nothing to adopt.
            }
        }
        return claimed;
    }

    private void release(Deployment d, ReplicaSet rs) {
        ReplicaSet released = copy(rs);
        List<OwnerReference> kept = new ArrayList<>();
        for (OwnerReference ref : released.getMetadata().getOwnerReferences()) {
            if (!Objects.equals(ref.getUid(), d.getMetadata().getUid())) {
                kept.add(ref);
            }
        }
        released.getMetadata().setOwnerReferences(kept);
        try {
            client.patch(rs, released);
        } catch (NotFoundException e) {
            // Already gone.
        }
    }

    private static ReplicaSet copy(ReplicaSet rs) {
        return JSON.readValue(JSON.writeValueAsBytes(rs), ReplicaSet.class);
    }

    /** Writes the Deployment's status and keeps the copy's resourceVersion current for the next write. */
    private void updateStatus(Deployment d) {
        Deployment stored = client.updateStatus(d);
        d.getMetadata().setResourceVersion(stored.getMetadata().getResourceVersion());
    }

    // ---- sync.go ----------------------------------------------------------------------------------------------

    private void syncStatusOnly(Deployment d, List<ReplicaSet> rsList) {
        NewAndOld rs = getAllReplicaSetsAndSyncRevision(d, rsList, false);
        syncDeploymentStatus(d, rs.all(), rs.newRS);
    }

    /** Scaling events and paused Deployments: scale, no rollout. */
    private void sync(Deployment d, List<ReplicaSet> rsList) {
        NewAndOld rs = getAllReplicaSetsAndSyncRevision(d, rsList, false);
        scale(d, rs.newRS, rs.oldRSs);
        if (paused(d)) {
            cleanupDeployment(rs.oldRSs, d);
        }
        syncDeploymentStatus(d, rs.all(), rs.newRS);
    }

    private void checkPausedConditions(Deployment d) {
        if (!hasProgressDeadline(d)) {
            return;
        }
        DeploymentCondition cond = condition(d.getStatus(), PROGRESSING);
        if (cond != null && TIMED_OUT.equals(cond.getReason())) {
            return;
        }
        boolean pausedCondExists = cond != null && PAUSED.equals(cond.getReason());
        boolean needsUpdate = false;
        if (paused(d) && !pausedCondExists) {
            setCondition(d.getStatus(), newCondition(PROGRESSING, "Unknown", PAUSED, "Deployment is paused", now()));
            needsUpdate = true;
        } else if (!paused(d) && pausedCondExists) {
            setCondition(d.getStatus(), newCondition(PROGRESSING, "Unknown", RESUMED, "Deployment is resumed", now()));
            needsUpdate = true;
        }
        if (needsUpdate) {
            updateStatus(d);
        }
    }

    private record NewAndOld(ReplicaSet newRS, List<ReplicaSet> oldRSs) {
        List<ReplicaSet> all() {
            List<ReplicaSet> all = new ArrayList<>(oldRSs);
            all.add(newRS);
            return all;
        }
    }

    private NewAndOld getAllReplicaSetsAndSyncRevision(Deployment d, List<ReplicaSet> rsList, boolean create) {
        ReplicaSet existingNew = findNewReplicaSet(d, rsList);
        List<ReplicaSet> oldRSs = new ArrayList<>();
        for (ReplicaSet rs : rsList) {
            if (existingNew == null
                    || !Objects.equals(
                            rs.getMetadata().getUid(), existingNew.getMetadata().getUid())) {
                oldRSs.add(rs);
            }
        }
        ReplicaSet newRS = getNewReplicaSet(d, existingNew, oldRSs, create);
        if (existingNew != null && newRS != null) {
            // The ReplicaSet as now stored, so that a second pass in this sync (kube makes two) does not write it
            // again from the stale copy and fail with a 409.
            rsList.set(rsList.indexOf(existingNew), newRS);
        }
        return new NewAndOld(newRS, oldRSs);
    }

    private ReplicaSet getNewReplicaSet(Deployment d, ReplicaSet existingNew, List<ReplicaSet> oldRSs, boolean create) {
        String newRevision = Long.toString(maxRevision(oldRSs) + 1);
        if (existingNew != null) {
            ReplicaSet rsCopy = copy(existingNew);
            boolean annotationsUpdated = setNewReplicaSetAnnotations(d, rsCopy, newRevision, true);
            boolean minReadySecondsNeedsUpdate =
                    nz(rsCopy.getSpec().getMinReadySeconds()) != nz(d.getSpec().getMinReadySeconds());
            if (annotationsUpdated || minReadySecondsNeedsUpdate) {
                rsCopy.getSpec().setMinReadySeconds(d.getSpec().getMinReadySeconds());
                return client.update(rsCopy);
            }
            String previousRevision = annotations(d).get(REVISION);
            boolean revisionChanged =
                    setDeploymentRevision(d, annotations(rsCopy).get(REVISION));
            boolean needsUpdate = false;
            DeploymentCondition cond = condition(d.getStatus(), PROGRESSING);
            if (hasProgressDeadline(d) && cond == null) {
                setCondition(
                        d.getStatus(),
                        newCondition(
                                PROGRESSING,
                                "True",
                                FOUND_NEW_RS,
                                "Found new replica set \""
                                        + rsCopy.getMetadata().getName() + "\"",
                                now()));
                needsUpdate = true;
            }
            writeRevisionAndStatus(d, revisionChanged, previousRevision, needsUpdate);
            return rsCopy;
        }
        if (!create) {
            return null;
        }
        PodTemplateSpec template = JSON.convertValue(d.getSpec().getTemplate(), PodTemplateSpec.class);
        String hash =
                PodTemplateHash.compute(d.getSpec().getTemplate(), d.getStatus().getCollisionCount());
        Map<String, String> labels = new LinkedHashMap<>();
        if (template.getMetadata() == null) {
            template.setMetadata(new io.fabric8.kubernetes.api.model.ObjectMeta());
        }
        if (template.getMetadata().getLabels() != null) {
            labels.putAll(template.getMetadata().getLabels());
        }
        labels.put(PodTemplateHash.LABEL, hash);
        template.getMetadata().setLabels(labels);
        LabelSelector selector = new LabelSelectorBuilder(d.getSpec().getSelector()).build();
        Map<String, String> matchLabels = new LinkedHashMap<>();
        if (selector.getMatchLabels() != null) {
            matchLabels.putAll(selector.getMatchLabels());
        }
        matchLabels.put(PodTemplateHash.LABEL, hash);
        selector.setMatchLabels(matchLabels);

        ReplicaSet newRS = new ReplicaSet();
        newRS.setMetadata(new io.fabric8.kubernetes.api.model.ObjectMeta());
        newRS.getMetadata().setName(d.getMetadata().getName() + "-" + hash);
        newRS.getMetadata().setNamespace(d.getMetadata().getNamespace());
        newRS.getMetadata().setLabels(new LinkedHashMap<>(labels));
        OwnerReferences.setControllerReference(d, newRS);
        ReplicaSetSpec spec = new ReplicaSetSpec();
        spec.setReplicas(0);
        spec.setMinReadySeconds(d.getSpec().getMinReadySeconds());
        spec.setSelector(selector);
        spec.setTemplate(template);
        newRS.setSpec(spec);
        List<ReplicaSet> all = new ArrayList<>(oldRSs);
        all.add(newRS);
        int newReplicasCount = newRSNewReplicas(d, all, newRS);
        spec.setReplicas(newReplicasCount);
        setNewReplicaSetAnnotations(d, newRS, newRevision, false);

        boolean alreadyExists = false;
        ReplicaSet created;
        try {
            created = client.create(newRS);
        } catch (AlreadyExistsException e) {
            alreadyExists = true;
            ReplicaSet existing = client.get(
                            ReplicaSet.class,
                            d.getMetadata().getNamespace(),
                            newRS.getMetadata().getName())
                    .orElseThrow(() -> e);
            OwnerReference ref = OwnerReferences.controllerOf(existing).orElse(null);
            if (ref != null
                    && Objects.equals(ref.getUid(), d.getMetadata().getUid())
                    && PodTemplateHash.equalIgnoringHash(
                            d.getSpec().getTemplate(), existing.getSpec().getTemplate())) {
                created = existing;
            } else {
                // A hash collision: another template already has this name. Bump collisionCount and retry.
                int pre = nz(d.getStatus().getCollisionCount());
                d.getStatus().setCollisionCount(pre + 1);
                updateStatus(d);
                LOG.info(
                        "Found a hash collision for deployment {}/{} - bumping collisionCount ({}->{}) to resolve it",
                        d.getMetadata().getNamespace(),
                        d.getMetadata().getName(),
                        pre,
                        pre + 1);
                throw e;
            }
        } catch (RuntimeException e) {
            if (e instanceof io.kubeloop.client.errors.KubernetesApiException api && isNamespaceTerminating(api)) {
                throw e;
            }
            String msg =
                    "Failed to create new replica set \"" + newRS.getMetadata().getName() + "\": " + e.getMessage();
            if (hasProgressDeadline(d)) {
                setCondition(d.getStatus(), newCondition(PROGRESSING, "False", FAILED_RS_CREATE, msg, now()));
                try {
                    updateStatus(d);
                } catch (RuntimeException ignored) {
                    // The bigger problem is reported below.
                }
            }
            events.event(d, EventRecorder.WARNING, FAILED_RS_CREATE, msg);
            throw e;
        }
        if (!alreadyExists && newReplicasCount > 0) {
            events.eventf(
                    d,
                    EventRecorder.NORMAL,
                    "ScalingReplicaSet",
                    "Scaled up replica set %s from 0 to %d",
                    created.getMetadata().getName(),
                    newReplicasCount);
        }
        String previousRevision = annotations(d).get(REVISION);
        boolean revisionChanged = setDeploymentRevision(d, newRevision);
        boolean needsUpdate = false;
        if (!alreadyExists && hasProgressDeadline(d)) {
            setCondition(
                    d.getStatus(),
                    newCondition(
                            PROGRESSING,
                            "True",
                            NEW_REPLICA_SET,
                            "Created new replica set \"" + created.getMetadata().getName() + "\"",
                            now()));
            needsUpdate = true;
        }
        writeRevisionAndStatus(d, revisionChanged, previousRevision, needsUpdate);
        return created;
    }

    /**
     * Writes the Deployment's revision annotation and, if its status changed, its status. kube writes both with one
     * {@code UpdateStatus} (its Deployment status strategy keeps metadata but labels); the embedded server's
     * {@code /status} keeps all metadata, so the annotation goes through a merge patch of the Deployment first,
     * conditional on the resourceVersion read (a metadata-only change: the generation stays).
     */
    private void writeRevisionAndStatus(
            Deployment d, boolean revisionChanged, String previousRevision, boolean statusChanged) {
        if (revisionChanged) {
            Deployment original = JSON.readValue(JSON.writeValueAsBytes(d), Deployment.class);
            if (previousRevision == null) {
                annotations(original).remove(REVISION);
            } else {
                annotations(original).put(REVISION, previousRevision);
            }
            original.setStatus(d.getStatus());
            Deployment stored = client.patch(original, d);
            d.getMetadata().setResourceVersion(stored.getMetadata().getResourceVersion());
        }
        if (statusChanged) {
            updateStatus(d);
        }
    }

    private static boolean isNamespaceTerminating(io.kubeloop.client.errors.KubernetesApiException e) {
        String m = e.getMessage();
        return m != null && m.contains("because it is being terminated");
    }

    /** Proportional scaling of every active ReplicaSet when the Deployment's size changes (kube's {@code scale}). */
    private void scale(Deployment d, ReplicaSet newRS, List<ReplicaSet> oldRSs) {
        ReplicaSet activeOrLatest = findActiveOrLatest(newRS, oldRSs);
        if (activeOrLatest != null) {
            if (replicas(activeOrLatest) == replicas(d)) {
                return;
            }
            scaleReplicaSetAndRecordEvent(activeOrLatest, replicas(d), d);
            return;
        }
        if (isSaturated(d, newRS)) {
            for (ReplicaSet old : active(oldRSs)) {
                scaleReplicaSetAndRecordEvent(old, 0, d);
            }
            return;
        }
        if (!isRollingUpdate(d)) {
            return;
        }
        List<ReplicaSet> all = new ArrayList<>(oldRSs);
        all.add(newRS);
        all = active(all);
        int allRSsReplicas = specReplicas(all);
        int allowedSize = replicas(d) > 0 ? replicas(d) + maxSurge(d) : 0;
        int toAdd = allowedSize - allRSsReplicas;
        String op = null;
        if (toAdd > 0) {
            all.sort(BY_SIZE_NEWER);
            op = "up";
        } else if (toAdd < 0) {
            all.sort(BY_SIZE_OLDER);
            op = "down";
        }
        int added = 0;
        Map<String, Integer> nameToSize = new HashMap<>();
        for (ReplicaSet rs : all) {
            if (toAdd != 0) {
                int proportion = proportion(rs, d, toAdd, added);
                nameToSize.put(rs.getMetadata().getName(), replicas(rs) + proportion);
                added += proportion;
            } else {
                nameToSize.put(rs.getMetadata().getName(), replicas(rs));
            }
        }
        for (int i = 0; i < all.size(); i++) {
            ReplicaSet rs = all.get(i);
            String name = rs.getMetadata().getName();
            if (i == 0 && toAdd != 0) {
                int leftover = toAdd - added;
                nameToSize.put(name, Math.max(0, nameToSize.get(name) + leftover));
            }
            scaleReplicaSet(rs, nameToSize.get(name), d, op);
        }
    }

    /** Scales {@code rs} to {@code newScale}; returns the ReplicaSet as stored, or null if nothing changed. */
    private ReplicaSet scaleReplicaSetAndRecordEvent(ReplicaSet rs, int newScale, Deployment d) {
        if (replicas(rs) == newScale) {
            return null;
        }
        return scaleReplicaSet(rs, newScale, d, replicas(rs) < newScale ? "up" : "down");
    }

    private ReplicaSet scaleReplicaSet(ReplicaSet rs, int newScale, Deployment d, String op) {
        boolean sizeNeedsUpdate = replicas(rs) != newScale;
        int desired = replicas(d);
        int max = desired + maxSurge(d);
        if (!sizeNeedsUpdate && !replicasAnnotationsNeedUpdate(rs, desired, max)) {
            return null;
        }
        int oldScale = replicas(rs);
        ReplicaSet rsCopy = copy(rs);
        rsCopy.getSpec().setReplicas(newScale);
        setReplicasAnnotations(rsCopy, desired, max);
        ReplicaSet stored = client.update(rsCopy);
        if (sizeNeedsUpdate) {
            events.eventf(
                    d,
                    EventRecorder.NORMAL,
                    "ScalingReplicaSet",
                    "Scaled %s replica set %s from %d to %d",
                    op,
                    stored.getMetadata().getName(),
                    oldScale,
                    newScale);
            return stored;
        }
        return null;
    }

    /** Deletes the oldest scaled-down ReplicaSets beyond {@code revisionHistoryLimit} (kube's cleanupDeployment). */
    private void cleanupDeployment(List<ReplicaSet> oldRSs, Deployment d) {
        if (!hasRevisionHistoryLimit(d)) {
            return;
        }
        List<ReplicaSet> cleanable = new ArrayList<>();
        for (ReplicaSet rs : oldRSs) {
            if (rs != null && rs.getMetadata().getDeletionTimestamp() == null) {
                cleanable.add(rs);
            }
        }
        int diff = cleanable.size() - d.getSpec().getRevisionHistoryLimit();
        if (diff <= 0) {
            return;
        }
        cleanable.sort(BY_REVISION);
        for (int i = 0; i < diff; i++) {
            ReplicaSet rs = cleanable.get(i);
            long observed = rs.getStatus() == null ? 0 : nz(rs.getStatus().getObservedGeneration());
            if (statusReplicas(rs) != 0
                    || replicas(rs) != 0
                    || nz(rs.getMetadata().getGeneration()) > observed) {
                continue;
            }
            LOG.debug(
                    "Cleaning up replica set {} of deployment {}",
                    rs.getMetadata().getName(),
                    d.getMetadata().getName());
            try {
                client.delete(rs);
            } catch (NotFoundException e) {
                // Already gone.
            }
        }
    }

    private void syncDeploymentStatus(Deployment d, List<ReplicaSet> all, ReplicaSet newRS) {
        DeploymentStatus newStatus = calculateStatus(all, newRS, d);
        if (sameStatus(d.getStatus(), newStatus)) {
            return;
        }
        d.setStatus(newStatus);
        updateStatus(d);
    }

    private DeploymentStatus calculateStatus(List<ReplicaSet> all, ReplicaSet newRS, Deployment d) {
        int available = availableReplicas(all);
        int total = specReplicas(all);
        int unavailable = Math.max(0, total - available);
        DeploymentStatus status = new DeploymentStatus();
        // Zeros are left unset: kube's status fields are omitempty, so a stored 0 reads back as absent.
        status.setObservedGeneration(d.getMetadata().getGeneration());
        status.setReplicas(orNull(actualReplicas(all)));
        List<ReplicaSet> onlyNew = new ArrayList<>();
        onlyNew.add(newRS);
        status.setUpdatedReplicas(orNull(actualReplicas(onlyNew)));
        status.setReadyReplicas(orNull(readyReplicas(all)));
        status.setAvailableReplicas(orNull(available));
        status.setUnavailableReplicas(orNull(unavailable));
        status.setCollisionCount(d.getStatus().getCollisionCount());
        List<DeploymentCondition> conditions = new ArrayList<>();
        if (d.getStatus().getConditions() != null) {
            for (DeploymentCondition c : d.getStatus().getConditions()) {
                conditions.add(new DeploymentCondition(
                        c.getLastTransitionTime(),
                        c.getLastUpdateTime(),
                        c.getMessage(),
                        c.getReason(),
                        c.getStatus(),
                        c.getType()));
            }
        }
        status.setConditions(conditions);
        if (available >= replicas(d) - maxUnavailable(d)) {
            setCondition(
                    status,
                    newCondition(
                            AVAILABLE,
                            "True",
                            MINIMUM_REPLICAS_AVAILABLE,
                            "Deployment has minimum availability.",
                            now()));
        } else {
            setCondition(
                    status,
                    newCondition(
                            AVAILABLE,
                            "False",
                            MINIMUM_REPLICAS_UNAVAILABLE,
                            "Deployment does not have minimum availability.",
                            now()));
        }
        return status;
    }

    private static Integer orNull(int i) {
        return i == 0 ? null : i;
    }

    /** reflect.DeepEqual of two statuses, on their JSON form (unset and empty alike). */
    private static boolean sameStatus(DeploymentStatus a, DeploymentStatus b) {
        return JSON.valueToTree(a).equals(JSON.valueToTree(b));
    }

    /** Whether the Deployment's size changed: an active ReplicaSet's desired-replicas differs from it. */
    private boolean isScalingEvent(Deployment d, List<ReplicaSet> rsList) {
        NewAndOld rs = getAllReplicaSetsAndSyncRevision(d, rsList, false);
        for (ReplicaSet r : active(rs.all())) {
            Integer desired = intAnnotation(r, DESIRED_REPLICAS);
            if (desired != null && desired != replicas(d)) {
                return true;
            }
        }
        return false;
    }

    // ---- rolling.go --------------------------------------------------------------------------------------------

    private void rolloutRolling(Deployment d, List<ReplicaSet> rsList, Sync sync) {
        NewAndOld rs = getAllReplicaSetsAndSyncRevision(d, rsList, true);
        List<ReplicaSet> all = rs.all();
        if (reconcileNewReplicaSet(all, rs.newRS, d)) {
            syncRolloutStatus(all, rs.newRS, d, sync);
            return;
        }
        if (reconcileOldReplicaSets(all, active(rs.oldRSs), rs.newRS, d)) {
            syncRolloutStatus(all, rs.newRS, d, sync);
            return;
        }
        if (complete(d, d.getStatus())) {
            cleanupDeployment(rs.oldRSs, d);
        }
        syncRolloutStatus(all, rs.newRS, d, sync);
    }

    private boolean reconcileNewReplicaSet(List<ReplicaSet> all, ReplicaSet newRS, Deployment d) {
        if (replicas(newRS) == replicas(d)) {
            return false;
        }
        if (replicas(newRS) > replicas(d)) {
            return scaleReplicaSetAndRecordEvent(newRS, replicas(d), d) != null;
        }
        int newReplicasCount = newRSNewReplicas(d, all, newRS);
        return scaleReplicaSetAndRecordEvent(newRS, newReplicasCount, d) != null;
    }

    private boolean reconcileOldReplicaSets(
            List<ReplicaSet> all, List<ReplicaSet> oldRSs, ReplicaSet newRS, Deployment d) {
        int oldPodsCount = specReplicas(oldRSs);
        if (oldPodsCount == 0) {
            return false;
        }
        int allPodsCount = specReplicas(all);
        int minAvailable = replicas(d) - maxUnavailable(d);
        int newRSUnavailable = replicas(newRS) - availableReplicas(newRS);
        int maxScaledDown = allPodsCount - minAvailable - newRSUnavailable;
        if (maxScaledDown <= 0) {
            return false;
        }
        // Unhealthy old replicas first: scaling them down never lowers availability (kubernetes#16737).
        List<ReplicaSet> olds = new ArrayList<>(oldRSs);
        olds.sort(BY_CREATION);
        int cleanupCount = 0;
        for (int i = 0; i < olds.size(); i++) {
            ReplicaSet target = olds.get(i);
            if (cleanupCount >= maxScaledDown) {
                break;
            }
            if (replicas(target) == 0 || replicas(target) == availableReplicas(target)) {
                continue;
            }
            int scaledDown = Math.min(maxScaledDown - cleanupCount, replicas(target) - availableReplicas(target));
            int newCount = replicas(target) - scaledDown;
            if (newCount > replicas(target)) {
                throw new IllegalStateException(
                        "when cleaning up unhealthy replicas, got invalid request to scale down "
                                + target.getMetadata().getName() + " " + replicas(target) + " -> " + newCount);
            }
            ReplicaSet updated = scaleReplicaSetAndRecordEvent(target, newCount, d);
            cleanupCount += scaledDown;
            if (updated != null) {
                olds.set(i, updated);
            }
        }
        List<ReplicaSet> allNow = new ArrayList<>(olds);
        allNow.add(newRS);
        int scaledDownCount = scaleDownOldReplicaSetsForRollingUpdate(allNow, olds, d);
        return cleanupCount + scaledDownCount > 0;
    }

    private int scaleDownOldReplicaSetsForRollingUpdate(List<ReplicaSet> all, List<ReplicaSet> oldRSs, Deployment d) {
        int minAvailable = replicas(d) - maxUnavailable(d);
        int availablePodCount = availableReplicas(all);
        if (availablePodCount <= minAvailable) {
            return 0;
        }
        List<ReplicaSet> olds = new ArrayList<>(oldRSs);
        olds.sort(BY_CREATION);
        int totalScaledDown = 0;
        int totalScaleDownCount = availablePodCount - minAvailable;
        for (ReplicaSet target : olds) {
            if (totalScaledDown >= totalScaleDownCount) {
                break;
            }
            if (replicas(target) == 0) {
                continue;
            }
            int scaleDownCount = Math.min(replicas(target), totalScaleDownCount - totalScaledDown);
            scaleReplicaSetAndRecordEvent(target, replicas(target) - scaleDownCount, d);
            totalScaledDown += scaleDownCount;
        }
        return totalScaledDown;
    }

    // ---- recreate.go -------------------------------------------------------------------------------------------

    private void rolloutRecreate(Deployment d, List<ReplicaSet> rsList, Sync sync) {
        NewAndOld rs = getAllReplicaSetsAndSyncRevision(d, rsList, false);
        List<ReplicaSet> all = rs.all();
        boolean scaledDown = false;
        for (ReplicaSet old : active(rs.oldRSs)) {
            if (scaleReplicaSetAndRecordEvent(old, 0, d) != null) {
                scaledDown = true;
            }
        }
        if (scaledDown) {
            syncRolloutStatus(all, rs.newRS, d, sync);
            return;
        }
        if (oldPodsRunning(d, rs.newRS, rs.oldRSs, rsList)) {
            syncRolloutStatus(all, rs.newRS, d, sync);
            return;
        }
        ReplicaSet newRS = rs.newRS;
        List<ReplicaSet> oldRSs = rs.oldRSs;
        if (newRS == null) {
            NewAndOld created = getAllReplicaSetsAndSyncRevision(d, rsList, true);
            newRS = created.newRS;
            oldRSs = created.oldRSs;
            all = created.all();
        }
        scaleReplicaSetAndRecordEvent(newRS, replicas(d), d);
        if (complete(d, d.getStatus())) {
            cleanupDeployment(oldRSs, d);
        }
        syncRolloutStatus(all, newRS, d, sync);
    }

    /** Whether an old ReplicaSet still reports pods, or a pod of one has not reached a terminal phase. */
    private boolean oldPodsRunning(Deployment d, ReplicaSet newRS, List<ReplicaSet> oldRSs, List<ReplicaSet> rsList) {
        if (actualReplicas(oldRSs) > 0) {
            return true;
        }
        Set<String> oldUids = new HashSet<>();
        for (ReplicaSet rs : rsList) {
            if (newRS == null
                    || !Objects.equals(
                            rs.getMetadata().getUid(), newRS.getMetadata().getUid())) {
                oldUids.add(rs.getMetadata().getUid());
            }
        }
        if (oldUids.isEmpty()) {
            return false;
        }
        var selector = io.kubeloop.model.selector.LabelSelector.fromLabelSelector(
                d.getSpec().getSelector());
        for (Pod pod : client.listReadOnly(
                Pod.class,
                d.getMetadata().getNamespace(),
                selector,
                io.kubeloop.model.selector.FieldSelector.everything())) {
            OwnerReference ref = OwnerReferences.controllerOf(pod).orElse(null);
            if (ref == null || !oldUids.contains(ref.getUid())) {
                continue;
            }
            String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
            if (!"Failed".equals(phase) && !"Succeeded".equals(phase)) {
                return true;
            }
        }
        return false;
    }

    // ---- progress.go -------------------------------------------------------------------------------------------

    private void syncRolloutStatus(List<ReplicaSet> all, ReplicaSet newRS, Deployment d, Sync sync) {
        DeploymentStatus newStatus = calculateStatus(all, newRS, d);
        if (!hasProgressDeadline(d)) {
            removeCondition(newStatus, PROGRESSING);
        }
        DeploymentCondition currentCond = condition(d.getStatus(), PROGRESSING);
        boolean isCompleteDeployment = nz(newStatus.getReplicas()) == nz(newStatus.getUpdatedReplicas())
                && currentCond != null
                && NEW_RS_AVAILABLE.equals(currentCond.getReason());
        if (hasProgressDeadline(d) && !isCompleteDeployment) {
            String rsName = newRS == null ? null : newRS.getMetadata().getName();
            if (complete(d, newStatus)) {
                String msg = rsName != null
                        ? "ReplicaSet \"" + rsName + "\" has successfully progressed."
                        : "Deployment \"" + d.getMetadata().getName() + "\" has successfully progressed.";
                setCondition(newStatus, newCondition(PROGRESSING, "True", NEW_RS_AVAILABLE, msg, now()));
            } else if (progressing(d, newStatus)) {
                String msg = rsName != null
                        ? "ReplicaSet \"" + rsName + "\" is progressing."
                        : "Deployment \"" + d.getMetadata().getName() + "\" is progressing.";
                DeploymentCondition condition = newCondition(PROGRESSING, "True", REPLICA_SET_UPDATED, msg, now());
                // Progress refreshes lastUpdateTime even with the same reason (SetDeploymentCondition would not).
                if (currentCond != null) {
                    if ("True".equals(currentCond.getStatus())) {
                        condition.setLastTransitionTime(currentCond.getLastTransitionTime());
                    }
                    removeCondition(newStatus, PROGRESSING);
                }
                setCondition(newStatus, condition);
            } else if (timedOut(d, newStatus)) {
                String msg = rsName != null
                        ? "ReplicaSet \"" + rsName + "\" has timed out progressing."
                        : "Deployment \"" + d.getMetadata().getName() + "\" has timed out progressing.";
                setCondition(newStatus, newCondition(PROGRESSING, "False", TIMED_OUT, msg, now()));
            }
        }
        List<DeploymentCondition> failures = replicaFailures(all, newRS);
        if (!failures.isEmpty()) {
            setCondition(newStatus, failures.get(0));
        } else {
            removeCondition(newStatus, REPLICA_FAILURE);
        }
        if (sameStatus(d.getStatus(), newStatus)) {
            requeueStuckDeployment(d, newStatus, sync);
            return;
        }
        d.setStatus(newStatus);
        updateStatus(d);
    }

    private static List<DeploymentCondition> replicaFailures(List<ReplicaSet> all, ReplicaSet newRS) {
        List<DeploymentCondition> out = new ArrayList<>();
        if (newRS != null) {
            addFailures(newRS, out);
        }
        if (!out.isEmpty()) {
            return out;
        }
        for (ReplicaSet rs : all) {
            if (rs != null) {
                addFailures(rs, out);
            }
        }
        return out;
    }

    private static void addFailures(ReplicaSet rs, List<DeploymentCondition> out) {
        if (rs.getStatus() == null || rs.getStatus().getConditions() == null) {
            return;
        }
        for (ReplicaSetCondition c : rs.getStatus().getConditions()) {
            if (REPLICA_FAILURE.equals(c.getType())) {
                out.add(new DeploymentCondition(
                        c.getLastTransitionTime(),
                        c.getLastTransitionTime(),
                        c.getMessage(),
                        c.getReason(),
                        c.getStatus(),
                        c.getType()));
            }
        }
    }

    /** {@code DeploymentTimedOut}: no progress for {@code progressDeadlineSeconds} of cluster time. */
    private boolean timedOut(Deployment d, DeploymentStatus newStatus) {
        if (!hasProgressDeadline(d)) {
            return false;
        }
        DeploymentCondition c = condition(newStatus, PROGRESSING);
        if (c == null || NEW_RS_AVAILABLE.equals(c.getReason())) {
            return false;
        }
        if (TIMED_OUT.equals(c.getReason())) {
            return true;
        }
        Instant from = Timestamps.parse(c.getLastUpdateTime());
        Instant deadline = from.plus(timings.wallSeconds(d.getSpec().getProgressDeadlineSeconds()));
        return deadline.isBefore(clock.now());
    }

    /**
     * kube's {@code requeueStuckDeployment}: a rollout without progress is checked again when its deadline passes
     * (plus a second for timestamp skew), or at once (rate-limited) when less than a second remains.
     */
    private void requeueStuckDeployment(Deployment d, DeploymentStatus newStatus, Sync sync) {
        DeploymentCondition current = condition(d.getStatus(), PROGRESSING);
        if (!hasProgressDeadline(d) || current == null) {
            return;
        }
        if (complete(d, newStatus) || TIMED_OUT.equals(current.getReason())) {
            return;
        }
        Instant deadline = Timestamps.parse(current.getLastUpdateTime())
                .plus(timings.wallSeconds(d.getSpec().getProgressDeadlineSeconds()));
        Duration after = Duration.between(clock.now(), deadline);
        if (after.compareTo(timings.wall(Duration.ofSeconds(1))) < 0) {
            sync.requeueRateLimited = true;
            return;
        }
        sync.requeueAfter = after.plus(timings.wall(Duration.ofSeconds(1)));
    }

    private Instant now() {
        return clock.now();
    }
}
