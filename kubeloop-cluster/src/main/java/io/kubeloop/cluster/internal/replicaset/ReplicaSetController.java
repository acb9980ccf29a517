package io.kubeloop.cluster.internal.replicaset;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.StatusCause;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetCondition;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetStatus;
import io.kubeloop.client.errors.ConflictException;
import io.kubeloop.client.errors.KubernetesApiException;
import io.kubeloop.client.errors.NotFoundException;
import io.kubeloop.cluster.ClusterTimings;
import io.kubeloop.cluster.internal.workloads.ControllerRefManager;
import io.kubeloop.cluster.internal.workloads.Expectations;
import io.kubeloop.cluster.internal.workloads.PodConditions;
import io.kubeloop.cluster.internal.workloads.PodIndexes;
import io.kubeloop.controller.Controller;
import io.kubeloop.controller.ControllerClient;
import io.kubeloop.controller.EventHandler;
import io.kubeloop.controller.EventRecorder;
import io.kubeloop.controller.Manager;
import io.kubeloop.controller.OwnerReferences;
import io.kubeloop.controller.Reconciler;
import io.kubeloop.controller.Request;
import io.kubeloop.controller.Result;
import io.kubeloop.model.selector.LabelSelector;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * kube-controller-manager's ReplicaSet controller ({@code pkg/controller/replicaset/replica_set.go}): keeps
 * {@code spec.replicas} active pods of each ReplicaSet, owns them through a controller reference, and reports
 * {@code status}.
 *
 * <p>One reconcile ({@code syncReplicaSet}):
 * <ol>
 *   <li>the active pods (not Succeeded, not Failed, not being deleted) that the ReplicaSet controls or that are
 *       orphans of its namespace (the {@link PodIndexes} index), claimed: orphans its selector matches adopted,
 *       controlled pods it no longer matches released ({@link ControllerRefManager}; neither while the ReplicaSet is
 *       being deleted);</li>
 *   <li>if the {@link Expectations} are satisfied (every create and delete of the last action seen by the cache, or
 *       5 min of cluster time passed) and the ReplicaSet is not being deleted: create the missing pods in slow-start
 *       batches of 1, 2, 4, … (at most {@code burstReplicas} = 500 per reconcile; a failing batch stops the rest), or
 *       delete the surplus in {@link PodsToDelete}'s order, all at once;</li>
 *   <li>the status (replicas, fullyLabeledReplicas, readyReplicas, availableReplicas with {@code minReadySeconds},
 *       observedGeneration, the {@code ReplicaFailure} condition while a create or delete fails), written only when
 *       it changed; a ReplicaSet with pods ready but not yet available is reconciled again just after the first
 *       becomes available.</li>
 * </ol>
 * A failed create or delete fails the reconcile after the status was written (the runtime retries with its back-off).
 *
 * <p>The pod watch keeps the expectations in step with the cache before it enqueues (kube's {@code addPod},
 * {@code updatePod}, {@code deletePod}): a created pod arriving lowers its controller's creations, a pod deleted or
 * given a deletionTimestamp lowers its deletions; an orphan enqueues every ReplicaSet whose selector matches it.
 *
 * <p>Events ({@code replicaset-controller}): Normal {@code SuccessfulCreate} "Created pod: NAME", Normal
 * {@code SuccessfulDelete} "Deleted pod: NAME", Warning {@code FailedCreate} "Error creating: MESSAGE", Warning
 * {@code FailedDelete} "Error deleting: MESSAGE".
 */
public final class ReplicaSetController implements Reconciler<ReplicaSet> {

    private static final Logger log = LoggerFactory.getLogger(ReplicaSetController.class);

    /** kube's {@code BurstReplicas}: at most this many creates or deletes per reconcile. */
    static final int BURST_REPLICAS = 500;

    /** kube's {@code SlowStartInitialBatchSize}. */
    static final int SLOW_START_INITIAL_BATCH_SIZE = 1;

    /** kube's {@code --concurrent-replicaset-syncs} default. */
    static final int WORKERS = 5;

    static final String COMPONENT = "replicaset-controller";

    private final Manager manager;
    private final ControllerClient client;
    private final ClusterTimings timings;
    private final Expectations expectations;
    private final EventRecorder events;

    private ReplicaSetController(Manager manager, ClusterTimings timings) {
        this.manager = manager;
        this.client = manager.client();
        this.timings = timings;
        this.expectations = new Expectations(manager.clock(), timings.wall(Expectations.DEFAULT_TIMEOUT));
        this.events = manager.eventRecorder(COMPONENT);
    }

    /** Registers the controller (named {@code replicaset}) with {@code manager}; start the manager afterwards. */
    public static Controller register(Manager manager, ClusterTimings timings) {
        Objects.requireNonNull(manager, "manager");
        Objects.requireNonNull(timings, "timings");
        PodIndexes.install(manager);
        ReplicaSetController rsc = new ReplicaSetController(manager, timings);
        return manager.newControllerFor(ReplicaSet.class)
                .named("replicaset")
                .watches(ReplicaSet.class, rsc.new ReplicaSetEvents())
                .watches(Pod.class, rsc.new PodEvents())
                .workers(WORKERS)
                .complete(rsc);
    }

    // ---- reconcile ----------------------------------------------------------------------------------------------

    @Override
    public Result reconcile(Request request) {
        String key = request.namespace() + "/" + request.name();
        Optional<ReplicaSet> found = client.getReadOnly(ReplicaSet.class, request);
        if (found.isEmpty()) {
            expectations.forget(key);
            return Result.done();
        }
        ReplicaSet rs = found.get();
        boolean needsSync = expectations.satisfied(key);
        LabelSelector selector;
        try {
            selector = LabelSelector.fromLabelSelector(rs.getSpec().getSelector());
        } catch (RuntimeException e) {
            // kube: HandleError and no retry; validation keeps such a selector out anyway
            log.error("ReplicaSet {} has an invalid selector: {}", key, e.getMessage());
            return Result.done();
        }
        List<Pod> active = PodIndexes.ownedAndOrphans(manager, rs).stream()
                .filter(PodConditions::isActive)
                .toList();
        List<Pod> pods = new ControllerRefManager<Pod>(client, rs, selector, () -> canAdopt(rs)).claim(active);

        RuntimeException manageError = null;
        if (needsSync && rs.getMetadata().getDeletionTimestamp() == null) {
            try {
                manageReplicas(key, pods, rs);
            } catch (RuntimeException e) {
                manageError = e;
            }
        }
        Instant now = manager.clock().now();
        ReplicaSetStatus status = calculateStatus(rs, pods, manageError, now);
        updateStatus(rs, status);
        if (manageError != null) {
            throw manageError;
        }
        return nextAvailability(rs, pods, now).map(Result::requeueAfter).orElse(Result.done());
    }

    /** kube's {@code RecheckDeletionTimestamp}: a fresh read, so a ReplicaSet being deleted adopts nothing. */
    private String canAdopt(ReplicaSet rs) {
        Optional<ReplicaSet> fresh = client.apiReader()
                .get(
                        ReplicaSet.class,
                        rs.getMetadata().getNamespace(),
                        rs.getMetadata().getName());
        if (fresh.isEmpty()
                || !rs.getMetadata().getUid().equals(fresh.get().getMetadata().getUid())) {
            return "original ReplicaSet " + rs.getMetadata().getNamespace() + "/"
                    + rs.getMetadata().getName() + " is gone";
        }
        String deleted = fresh.get().getMetadata().getDeletionTimestamp();
        return deleted == null
                ? null
                : rs.getMetadata().getNamespace() + "/" + rs.getMetadata().getName() + " has just been deleted at "
                        + deleted;
    }

    /** kube's {@code manageReplicas}. */
    private void manageReplicas(String key, List<Pod> pods, ReplicaSet rs) {
        int desired = replicas(rs);
        int diff = pods.size() - desired;
        if (diff < 0) {
            int count = Math.min(-diff, BURST_REPLICAS);
            expectations.expectCreations(key, count);
            log.debug("Too few replicas for ReplicaSet {}: need {}, creating {}", key, desired, count);
            SlowStart result = slowStartBatch(count, () -> createPod(rs));
            // the informer will never see the pods that were not attempted
            for (int i = result.successes(); i < count; i++) {
                expectations.creationObserved(key);
            }
            if (result.error() != null) {
                throw result.error();
            }
        } else if (diff > 0) {
            int count = Math.min(diff, BURST_REPLICAS);
            List<Pod> toDelete = PodsToDelete.choose(
                    pods, relatedPods(rs), count, manager.clock().now());
            log.debug("Too many replicas for ReplicaSet {}: need {}, deleting {}", key, desired, count);
            expectations.expectDeletions(
                    key, toDelete.stream().map(ReplicaSetController::podKey).toList());
            List<RuntimeException> errors = runAll(toDelete.stream()
                    .<Runnable>map(pod -> () -> deletePod(key, rs, pod))
                    .toList());
            if (!errors.isEmpty()) {
                throw errors.get(0);
            }
        }
    }

    private record SlowStart(int successes, RuntimeException error) {}

    /**
     * kube's {@code slowStartBatch}: {@code count} calls in batches of 1, 2, 4, … run in parallel; a batch with a
     * failure ends it (the calls not attempted are the caller's to account for).
     */
    private static SlowStart slowStartBatch(int count, Runnable call) {
        int remaining = count;
        int successes = 0;
        for (int batch = Math.min(remaining, SLOW_START_INITIAL_BATCH_SIZE);
                batch > 0;
                batch = Math.min(2 * batch, remaining)) {
            List<Runnable> calls = new ArrayList<>(batch);
            for (int i = 0; i < batch; i++) {
                calls.add(call);
            }
            List<RuntimeException> errors = runAll(calls);
            successes += batch - errors.size();
            if (!errors.isEmpty()) {
                return new SlowStart(successes, errors.get(0));
            }
            remaining -= batch;
        }
        return new SlowStart(successes, null);
    }

    /** Runs {@code calls} in parallel on virtual threads and returns their failures. */
    private static List<RuntimeException> runAll(List<Runnable> calls) {
        if (calls.size() == 1) {
            try {
                calls.get(0).run();
                return List.of();
            } catch (RuntimeException e) {
                return List.of(e);
            }
        }
        List<RuntimeException> errors = new ArrayList<>();
        try (ExecutorService pool = Executors.newThreadPerTaskExecutor(
                Thread.ofVirtual().name("replicaset-write-", 0).factory())) {
            List<Future<?>> futures = new ArrayList<>(calls.size());
            for (Runnable c : calls) {
                futures.add(pool.submit(c));
            }
            for (Future<?> f : futures) {
                try {
                    f.get();
                } catch (ExecutionException e) {
                    errors.add(
                            e.getCause() instanceof RuntimeException re ? re : new IllegalStateException(e.getCause()));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    futures.forEach(x -> x.cancel(true));
                    throw new IllegalStateException("interrupted while writing pods", e);
                }
            }
        }
        return errors;
    }

    /** kube's {@code RealPodControl.CreatePods} from the ReplicaSet's template, with its controller reference. */
    private void createPod(ReplicaSet rs) {
        Pod pod = podFromTemplate(rs);
        if (pod.getMetadata().getLabels().isEmpty()) {
            throw new IllegalArgumentException("unable to create pods, no labels");
        }
        try {
            Pod created = client.create(pod);
            log.debug(
                    "Controller {} created pod {}",
                    rs.getMetadata().getName(),
                    created.getMetadata().getName());
            events.eventf(
                    rs,
                    EventRecorder.NORMAL,
                    "SuccessfulCreate",
                    "Created pod: %s",
                    created.getMetadata().getName());
        } catch (KubernetesApiException e) {
            events.eventf(rs, EventRecorder.WARNING, "FailedCreate", "Error creating: %s", e.serverMessage());
            if (namespaceTerminating(e)) {
                return; // kube: every create will fail while the namespace goes; not a ReplicaSet failure
            }
            throw e;
        }
    }

    static Pod podFromTemplate(ReplicaSet rs) {
        PodTemplateSpec template = rs.getSpec().getTemplate();
        ObjectMeta tm = template.getMetadata() == null ? new ObjectMeta() : template.getMetadata();
        ObjectMeta meta = new ObjectMeta();
        meta.setNamespace(rs.getMetadata().getNamespace());
        meta.setGenerateName(podsPrefix(rs.getMetadata().getName()));
        meta.setLabels(tm.getLabels() == null ? new HashMap<>() : new LinkedHashMap<>(tm.getLabels()));
        if (tm.getAnnotations() != null) {
            meta.setAnnotations(new LinkedHashMap<>(tm.getAnnotations()));
        }
        if (tm.getFinalizers() != null && !tm.getFinalizers().isEmpty()) {
            meta.setFinalizers(new ArrayList<>(tm.getFinalizers()));
        }
        meta.setOwnerReferences(List.of(controllerRef(rs)));
        Pod pod = new Pod();
        pod.setMetadata(meta);
        pod.setSpec(template.getSpec()); // serialised by the create, never changed: the cache's object may be shared
        return pod;
    }

    /** kube's {@code getPodsPrefix}: {@code <name>-}, unless that is no valid pod name prefix. */
    private static String podsPrefix(String name) {
        String prefix = name + "-";
        return prefix.length() <= 253 - 5 ? prefix : name; // the server appends 5 random characters
    }

    private static OwnerReference controllerRef(ReplicaSet rs) {
        return new OwnerReferenceBuilder()
                .withApiVersion("apps/v1")
                .withKind("ReplicaSet")
                .withName(rs.getMetadata().getName())
                .withUid(rs.getMetadata().getUid())
                .withController(true)
                .withBlockOwnerDeletion(true)
                .build();
    }

    private static boolean namespaceTerminating(KubernetesApiException e) {
        var details = e.status() == null ? null : e.status().getDetails();
        if (details == null || details.getCauses() == null) {
            return false;
        }
        for (StatusCause c : details.getCauses()) {
            if ("NamespaceTerminating".equals(c.getReason())) {
                return true;
            }
        }
        return false;
    }

    /** kube's {@code RealPodControl.DeletePod}, with the expectations lowered when the delete cannot be seen. */
    private void deletePod(String key, ReplicaSet rs, Pod pod) {
        String name = pod.getMetadata().getName();
        try {
            client.delete(pod);
            events.eventf(rs, EventRecorder.NORMAL, "SuccessfulDelete", "Deleted pod: %s", name);
        } catch (NotFoundException gone) {
            expectations.deletionObserved(key, podKey(pod)); // already gone: no event will come
        } catch (KubernetesApiException e) {
            expectations.deletionObserved(key, podKey(pod));
            events.eventf(rs, EventRecorder.WARNING, "FailedDelete", "Error deleting: %s", e.serverMessage());
            throw e;
        }
    }

    /** Pods of every ReplicaSet with the same controller (kube's {@code getIndirectlyRelatedPods}); none without. */
    private List<Pod> relatedPods(ReplicaSet rs) {
        Optional<OwnerReference> owner = OwnerReferences.controllerOf(rs);
        if (owner.isEmpty()) {
            return List.of();
        }
        List<Pod> related = new ArrayList<>();
        for (ReplicaSet other :
                client.listReadOnly(ReplicaSet.class, rs.getMetadata().getNamespace())) {
            boolean sibling = OwnerReferences.controllerOf(other)
                    .map(r -> owner.get().getUid().equals(r.getUid()))
                    .orElse(false);
            if (sibling) {
                related.addAll(client.listByIndexReadOnly(
                        Pod.class,
                        rs.getMetadata().getNamespace(),
                        PodIndexes.BY_CONTROLLER,
                        other.getMetadata().getUid()));
            }
        }
        return related;
    }

    // ---- status -------------------------------------------------------------------------------------------------

    /** kube's {@code calculateStatus}. */
    private ReplicaSetStatus calculateStatus(ReplicaSet rs, List<Pod> pods, RuntimeException manageError, Instant now) {
        Map<String, String> templateLabels = rs.getSpec().getTemplate().getMetadata() == null
                        || rs.getSpec().getTemplate().getMetadata().getLabels() == null
                ? Map.of()
                : rs.getSpec().getTemplate().getMetadata().getLabels();
        LabelSelector template = LabelSelector.equalTo(templateLabels);
        int minReady = minReadySeconds(rs);
        int fullyLabeled = 0;
        int ready = 0;
        int available = 0;
        for (Pod pod : pods) {
            Map<String, String> labels = pod.getMetadata().getLabels() == null
                    ? Map.of()
                    : pod.getMetadata().getLabels();
            if (template.matches(labels)) {
                fullyLabeled++;
            }
            if (PodConditions.isReady(pod)) {
                ready++;
                if (PodConditions.isAvailable(pod, minReady, now, timings)) {
                    available++;
                }
            }
        }
        ReplicaSetStatus old = rs.getStatus();
        List<ReplicaSetCondition> conditions = new ArrayList<>();
        if (old != null && old.getConditions() != null) {
            conditions.addAll(old.getConditions());
        }
        boolean hasFailure = conditions.stream().anyMatch(c -> "ReplicaFailure".equals(c.getType()));
        if (manageError != null && !hasFailure) {
            int diff = pods.size() - replicas(rs);
            String reason = diff < 0 ? "FailedCreate" : diff > 0 ? "FailedDelete" : "";
            ReplicaSetCondition c = new ReplicaSetCondition();
            c.setType("ReplicaFailure");
            c.setStatus("True");
            c.setReason(reason);
            c.setMessage(errorMessage(manageError));
            c.setLastTransitionTime(now.truncatedTo(ChronoUnit.SECONDS).toString());
            conditions.add(c);
        } else if (manageError == null && hasFailure) {
            conditions.removeIf(c -> "ReplicaFailure".equals(c.getType()));
        }
        ReplicaSetStatus status = new ReplicaSetStatus();
        status.setReplicas(pods.size());
        status.setFullyLabeledReplicas(fullyLabeled);
        status.setReadyReplicas(ready);
        status.setAvailableReplicas(available);
        status.setObservedGeneration(old == null ? null : old.getObservedGeneration());
        status.setConditions(conditions.isEmpty() ? null : conditions);
        return status;
    }

    private static String errorMessage(RuntimeException e) {
        return e instanceof KubernetesApiException api ? api.serverMessage() : String.valueOf(e.getMessage());
    }

    /** kube's {@code updateReplicaSetStatus}: nothing sent when nothing changed. */
    private void updateStatus(ReplicaSet rs, ReplicaSetStatus status) {
        ReplicaSetStatus old = rs.getStatus() == null ? new ReplicaSetStatus() : rs.getStatus();
        Long generation = rs.getMetadata().getGeneration();
        if (num(old.getReplicas()) == status.getReplicas()
                && num(old.getFullyLabeledReplicas()) == status.getFullyLabeledReplicas()
                && num(old.getReadyReplicas()) == status.getReadyReplicas()
                && num(old.getAvailableReplicas()) == status.getAvailableReplicas()
                && Objects.equals(generation, old.getObservedGeneration())
                && sameConditions(old.getConditions(), status.getConditions())) {
            return;
        }
        status.setObservedGeneration(generation);
        ReplicaSet copy = new ReplicaSet();
        copy.setApiVersion("apps/v1");
        copy.setKind("ReplicaSet");
        ObjectMeta meta = new ObjectMeta();
        meta.setNamespace(rs.getMetadata().getNamespace());
        meta.setName(rs.getMetadata().getName());
        meta.setUid(rs.getMetadata().getUid());
        meta.setResourceVersion(rs.getMetadata().getResourceVersion());
        copy.setMetadata(meta);
        copy.setSpec(rs.getSpec()); // read by the client only to serialise
        copy.setStatus(status);
        log.debug(
                "Updating status for ReplicaSet {}/{}: replicas {}->{}, fullyLabeledReplicas {}->{}, readyReplicas"
                        + " {}->{}, availableReplicas {}->{}, sequence No: {}->{}",
                meta.getNamespace(),
                meta.getName(),
                num(old.getReplicas()),
                status.getReplicas(),
                num(old.getFullyLabeledReplicas()),
                status.getFullyLabeledReplicas(),
                num(old.getReadyReplicas()),
                status.getReadyReplicas(),
                num(old.getAvailableReplicas()),
                status.getAvailableReplicas(),
                old.getObservedGeneration(),
                generation);
        try {
            client.updateStatus(copy);
        } catch (ConflictException stale) {
            // kube's statusUpdateRetries (1): the cache lagged behind our own last write; read the server and retry
            // once, else the runtime retries with its back-off
            ReplicaSet fresh = client.apiReader()
                    .get(ReplicaSet.class, meta.getNamespace(), meta.getName())
                    .orElseThrow(() -> stale);
            if (!Objects.equals(fresh.getMetadata().getUid(), meta.getUid())) {
                throw stale;
            }
            status.setObservedGeneration(fresh.getMetadata().getGeneration());
            fresh.setStatus(status);
            client.updateStatus(fresh);
        }
    }

    private static boolean sameConditions(List<ReplicaSetCondition> a, List<ReplicaSetCondition> b) {
        List<ReplicaSetCondition> x = a == null ? List.of() : a;
        List<ReplicaSetCondition> y = b == null ? List.of() : b;
        if (x.size() != y.size()) {
            return false;
        }
        for (int i = 0; i < x.size(); i++) {
            ReplicaSetCondition c = x.get(i);
            ReplicaSetCondition d = y.get(i);
            if (!Objects.equals(c.getType(), d.getType())
                    || !Objects.equals(c.getStatus(), d.getStatus())
                    || !Objects.equals(c.getReason(), d.getReason())
                    || !Objects.equals(c.getMessage(), d.getMessage())
                    || !Objects.equals(c.getLastTransitionTime(), d.getLastTransitionTime())) {
                return false;
            }
        }
        return true;
    }

    /**
     * How long until the first ready-but-not-yet-available pod becomes available (just after its Ready transition +
     * {@code minReadySeconds}), if any: the reconcile is run again then, so availableReplicas follows the clock.
     */
    private Optional<Duration> nextAvailability(ReplicaSet rs, List<Pod> pods, Instant now) {
        int minReady = minReadySeconds(rs);
        if (minReady <= 0) {
            return Optional.empty();
        }
        Instant first = null;
        for (Pod pod : pods) {
            if (PodConditions.isReady(pod) && !PodConditions.isAvailable(pod, minReady, now, timings)) {
                Optional<Instant> at = PodConditions.availableAfter(pod, minReady, timings);
                if (at.isPresent() && (first == null || at.get().isBefore(first))) {
                    first = at.get();
                }
            }
        }
        if (first == null) {
            return Optional.empty();
        }
        // available strictly after the instant: look 1 ms later
        return Optional.of(Duration.between(now, first).plusMillis(1));
    }

    private static int replicas(ReplicaSet rs) {
        Integer r = rs.getSpec().getReplicas();
        return r == null ? 1 : r;
    }

    private static int minReadySeconds(ReplicaSet rs) {
        Integer m = rs.getSpec().getMinReadySeconds();
        return m == null ? 0 : m;
    }

    private static int num(Integer i) {
        return i == null ? 0 : i;
    }

    static String podKey(Pod pod) {
        return pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
    }

    // ---- watches ------------------------------------------------------------------------------------------------

    /** The ReplicaSet's controlling ReplicaSet as cached, if the reference names one with its uid. */
    private Optional<ReplicaSet> resolveControllerRef(String namespace, OwnerReference ref) {
        if (!"ReplicaSet".equals(ref.getKind())
                || ref.getApiVersion() == null
                || !ref.getApiVersion().startsWith("apps/")) {
            return Optional.empty();
        }
        return client.getReadOnly(ReplicaSet.class, namespace, ref.getName())
                .filter(rs -> Objects.equals(rs.getMetadata().getUid(), ref.getUid()));
    }

    /** kube's {@code getPodReplicaSets}: the ReplicaSets whose (non-empty) selector matches an orphan. */
    private List<ReplicaSet> matchingReplicaSets(Pod pod) {
        Map<String, String> labels = pod.getMetadata().getLabels();
        if (labels == null || labels.isEmpty()) {
            return List.of();
        }
        List<ReplicaSet> matching = new ArrayList<>();
        for (ReplicaSet rs :
                client.listReadOnly(ReplicaSet.class, pod.getMetadata().getNamespace())) {
            try {
                LabelSelector s = LabelSelector.fromLabelSelector(rs.getSpec().getSelector());
                if (!s.isEverything() && s.matches(labels)) {
                    matching.add(rs);
                }
            } catch (RuntimeException invalid) {
                // an invalid selector matches nothing
            }
        }
        return matching;
    }

    private static Request requestFor(HasMetadata rs) {
        return new Request(rs.getMetadata().getNamespace(), rs.getMetadata().getName());
    }

    private static String keyOf(HasMetadata o) {
        return o.getMetadata().getNamespace() + "/" + o.getMetadata().getName();
    }

    /** kube's {@code addPod}, {@code updatePod}, {@code deletePod}. */
    private final class PodEvents implements EventHandler<Pod> {

        @Override
        public void onCreate(Pod pod, boolean isInInitialList, Queue queue) {
            if (pod.getMetadata().getDeletionTimestamp() != null) {
                // a pod already being deleted (seen after a restart) is no creation to observe
                onDelete(pod, false, queue);
                return;
            }
            Optional<OwnerReference> ref = OwnerReferences.controllerOf(pod);
            if (ref.isPresent()) {
                resolveControllerRef(pod.getMetadata().getNamespace(), ref.get())
                        .ifPresent(rs -> {
                            expectations.creationObserved(keyOf(rs));
                            queue.add(requestFor(rs));
                        });
                return;
            }
            // an orphan: the ReplicaSets that match may adopt it (no creation to observe: nobody waits for it)
            matchingReplicaSets(pod).forEach(rs -> queue.add(requestFor(rs)));
        }

        @Override
        public void onUpdate(Pod old, Pod cur, Queue queue) {
            if (Objects.equals(
                    old.getMetadata().getResourceVersion(), cur.getMetadata().getResourceVersion())) {
                return; // a resync: two versions of one pod always differ in resourceVersion
            }
            boolean labelsChanged = !Objects.equals(labels(old), labels(cur));
            if (cur.getMetadata().getDeletionTimestamp() != null) {
                // a graceful deletion started: replace the pod now rather than when the kubelet removes it
                onDelete(cur, false, queue);
                if (labelsChanged) {
                    onDelete(old, false, queue);
                }
                return;
            }
            Optional<OwnerReference> curRef = OwnerReferences.controllerOf(cur);
            Optional<OwnerReference> oldRef = OwnerReferences.controllerOf(old);
            boolean refChanged = !sameRef(curRef, oldRef);
            if (refChanged && oldRef.isPresent()) {
                resolveControllerRef(old.getMetadata().getNamespace(), oldRef.get())
                        .ifPresent(rs -> queue.add(requestFor(rs)));
            }
            if (curRef.isPresent()) {
                resolveControllerRef(cur.getMetadata().getNamespace(), curRef.get())
                        .ifPresent(rs -> {
                            queue.add(requestFor(rs));
                            int minReady = minReadySeconds(rs);
                            if (!PodConditions.isReady(old) && PodConditions.isReady(cur) && minReady > 0) {
                                // kube: look again once it may count as available (+1 s)
                                queue.addAfter(requestFor(rs), timings.wallSeconds(minReady + 1L));
                            }
                        });
                return;
            }
            if (labelsChanged || refChanged) {
                matchingReplicaSets(cur).forEach(rs -> queue.add(requestFor(rs)));
            }
        }

        @Override
        public void onDelete(Pod pod, boolean finalStateUnknown, Queue queue) {
            OwnerReferences.controllerOf(pod)
                    .flatMap(ref -> resolveControllerRef(pod.getMetadata().getNamespace(), ref))
                    .ifPresent(rs -> {
                        expectations.deletionObserved(keyOf(rs), podKey(pod));
                        queue.add(requestFor(rs));
                    });
        }

        private static Map<String, String> labels(Pod p) {
            return p.getMetadata().getLabels() == null
                    ? Map.of()
                    : p.getMetadata().getLabels();
        }

        private static boolean sameRef(Optional<OwnerReference> a, Optional<OwnerReference> b) {
            if (a.isEmpty() || b.isEmpty()) {
                return a.isEmpty() == b.isEmpty();
            }
            OwnerReference x = a.get();
            OwnerReference y = b.get();
            return Objects.equals(x.getUid(), y.getUid())
                    && Objects.equals(x.getName(), y.getName())
                    && Objects.equals(x.getKind(), y.getKind())
                    && Objects.equals(x.getApiVersion(), y.getApiVersion())
                    && Objects.equals(x.getController(), y.getController())
                    && Objects.equals(x.getBlockOwnerDeletion(), y.getBlockOwnerDeletion());
        }

        @Override
        public String toString() {
            return "the ReplicaSet controller's pod handler";
        }
    }

    /** kube's {@code deleteRS} and {@code updateRS}'s uid check: the expectations of a ReplicaSet that is gone. */
    private final class ReplicaSetEvents implements EventHandler<ReplicaSet> {
        @Override
        public void onUpdate(ReplicaSet old, ReplicaSet cur, Queue queue) {
            if (!Objects.equals(old.getMetadata().getUid(), cur.getMetadata().getUid())) {
                expectations.forget(keyOf(old));
            }
        }

        @Override
        public void onDelete(ReplicaSet rs, boolean finalStateUnknown, Queue queue) {
            expectations.forget(keyOf(rs));
        }

        @Override
        public String toString() {
            return "the ReplicaSet controller's expectation cleanup";
        }
    }
}
