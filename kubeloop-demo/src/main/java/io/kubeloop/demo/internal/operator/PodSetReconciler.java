package io.kubeloop.demo.internal.operator;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.kubeloop.client.errors.NotFoundException;
import io.kubeloop.client.resource.DeleteOptions;
import io.kubeloop.clock.Clock;
import io.kubeloop.controller.ControllerClient;
import io.kubeloop.controller.EventHandler;
import io.kubeloop.controller.EventRecorder;
import io.kubeloop.controller.OwnerReferences;
import io.kubeloop.controller.Reconciler;
import io.kubeloop.controller.Request;
import io.kubeloop.controller.Result;
import io.kubeloop.demo.PodGuardian;
import io.kubeloop.demo.PodSet;
import io.kubeloop.model.selector.FieldSelector;
import io.kubeloop.model.selector.LabelSelector;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@value PodGuardian#CONTROLLER} controller's reconcile, seed 000 §3.2's template:
 * <ol>
 *   <li>the desired state: the PodSet, from the cache (gone: nothing to do, the garbage collector removes its
 *       pods);</li>
 *   <li>the actual state: its pods, from the cache — label {@link PodSet#NAME_LABEL}{@code =<name>} and a
 *       controller reference with the PodSet's uid;</li>
 *   <li>the difference: active pods (not being deleted, not finished) against {@code spec.replicas};</li>
 *   <li>act: create the missing pods, delete the excess ones ({@link ExcessPods}), unless the cache has not yet
 *       shown the previous reconcile's creates and deletes ({@link Expectations});</li>
 *   <li>report: {@code status}, written only when it changed ({@link PodSetStatuses}).</li>
 * </ol>
 * Its {@link #podHandler() pod handler} maps a pod to its controlling PodSet, keeps the expectations in step with
 * the cache and tells the {@link PodGuardian.Listener} when a pod of a PodSet starts to go, before the PodSet is
 * queued.
 *
 * <p>Thread-safe: the controller's workers never reconcile one PodSet at once, and the shared state (expectations,
 * recently gone pods) is in concurrent maps.
 */
final class PodSetReconciler implements Reconciler<PodSet> {

    private static final Logger log = LoggerFactory.getLogger(PodSetReconciler.class);
    /** kube's ReplicaSet waits 5 minutes; a pod-guardian reconcile waits for watch latency, not for minutes. */
    static final Duration EXPECTATIONS_TTL = Duration.ofSeconds(30);

    private final ControllerClient client;
    private final EventRecorder events;
    private final Clock clock;
    private final PodGuardian.Listener listener;
    private final Expectations expectations;
    /** Pods of a PodSet whose deletion was seen and not yet answered by a create, oldest first: the INFO log. */
    private final ConcurrentMap<String, Deque<String>> gone = new ConcurrentHashMap<>();
    /** Uids reported to the listener and not yet seen disappear: one report per pod. */
    private final Set<String> reported = ConcurrentHashMap.newKeySet();

    private final Lock goneLock = new ReentrantLock();

    PodSetReconciler(ControllerClient client, EventRecorder events, Clock clock, PodGuardian.Listener listener) {
        this.client = client;
        this.events = events;
        this.clock = clock;
        this.listener = listener;
        this.expectations = new Expectations(clock, EXPECTATIONS_TTL);
    }

    @Override
    public Result reconcile(Request request) {
        long start = clock.nanoTime();
        String key = request.namespace() + "/" + request.name();
        // 1. the desired state, a copy from the cache (its status is rewritten below)
        Optional<PodSet> found = client.get(PodSet.class, request);
        if (found.isEmpty()) {
            expectations.forget(key);
            gone.remove(key);
            return Result.done();
        }
        PodSet podSet = found.get();
        if (podSet.getMetadata().getDeletionTimestamp() != null) {
            return Result.done(); // being deleted: its pods go with it
        }
        String uid = podSet.getMetadata().getUid();
        // 2. the actual state, from the cache
        List<Pod> owned = client
                .listReadOnly(
                        Pod.class,
                        request.namespace(),
                        LabelSelector.equalTo(Map.of(PodSet.NAME_LABEL, request.name())),
                        FieldSelector.everything())
                .stream()
                .filter(pod -> OwnerReferences.controllerOf(pod)
                        .map(ref -> uid.equals(ref.getUid()))
                        .orElse(false))
                .toList();
        for (Pod pod : owned) {
            if (pod.getMetadata().getDeletionTimestamp() != null) {
                // normally reported by the pod handler already; but this reconcile may have listed the cache between
                // its update and the handler's call, and the listener must hear of a pod going before its
                // replacement is created
                deletionSeen(request, pod);
            }
        }
        List<Pod> active = owned.stream().filter(Pods::isActive).toList();
        int ready = (int) active.stream().filter(Pods::isReady).count();
        int desired = desired(podSet);
        // 3. the difference, 4. act
        RuntimeException failure = null;
        Result result = Result.done();
        int diff = desired - active.size();
        if (diff != 0) {
            if (expectations.satisfied(key)) {
                failure = diff > 0
                        ? create(podSet, key, diff, start)
                        : delete(podSet, key, ExcessPods.choose(active, -diff));
            } else {
                // the pod events that meet the expectations queue the PodSet again; this is the fallback if one is
                // lost for good
                result = Result.requeueAfter(EXPECTATIONS_TTL);
            }
        }
        // 5. report, as observed at the start (the events of this reconcile's writes bring the next status)
        PodSet.Status status = PodSetStatuses.compute(podSet, desired, active.size(), ready, clock.now());
        if (!PodSetStatuses.same(status, podSet.getStatus())) {
            podSet.setStatus(status);
            client.updateStatus(podSet); // a 409 is requeued by the controller, not logged as an error
        }
        if (failure != null) {
            throw failure; // retried with the controller's back-off
        }
        return result;
    }

    static int desired(PodSet podSet) {
        Integer replicas = podSet.getSpec() == null ? null : podSet.getSpec().getReplicas();
        return replicas == null ? 1 : Math.max(0, replicas);
    }

    /** Creates {@code count} pods, one after the other; stops at the first failure and returns it. */
    private RuntimeException create(PodSet podSet, String key, int count, long reconcileStart) {
        String ns = podSet.getMetadata().getNamespace();
        String name = podSet.getMetadata().getName();
        expectations.expect(key, count, Set.of());
        for (int i = 0; i < count; i++) {
            Pod pod = newPod(podSet);
            Pod created;
            try {
                created = client.create(pod);
            } catch (RuntimeException e) {
                for (int j = i; j < count; j++) {
                    expectations.creationObserved(key); // none of these will be seen
                }
                events.eventf(podSet, EventRecorder.WARNING, "FailedCreate", "Error creating: %s", e.getMessage());
                log.warn("podset {}: creating a pod failed: {}", key, e.toString());
                return e;
            }
            long createdNanos = clock.nanoTime();
            String podName = created.getMetadata().getName();
            listener.podCreated(ns, name, podName, reconcileStart, createdNanos);
            events.eventf(podSet, EventRecorder.NORMAL, "SuccessfulCreate", "Created pod: %s", podName);
            String replaced = pollGone(key);
            if (replaced != null) {
                log.info("podset {}: pod {} deleted; created {} as its replacement", key, replaced, podName);
            } else {
                log.debug("podset {}: created pod {}", key, podName);
            }
        }
        return null;
    }

    /** Deletes {@code pods}; returns the first failure after trying each. */
    private RuntimeException delete(PodSet podSet, String key, List<Pod> pods) {
        Set<String> uids = new LinkedHashSet<>();
        pods.forEach(p -> uids.add(p.getMetadata().getUid()));
        expectations.expect(key, 0, uids);
        RuntimeException failure = null;
        for (Pod pod : pods) {
            String podUid = pod.getMetadata().getUid();
            String podName = pod.getMetadata().getName();
            try {
                client.delete(pod, DeleteOptions.defaults().withPreconditions(podUid, null));
                events.eventf(podSet, EventRecorder.NORMAL, "SuccessfulDelete", "Deleted pod: %s", podName);
                log.info("podset {}: deleted pod {} ({} too many)", key, podName, pods.size());
            } catch (NotFoundException e) {
                expectations.deletionObserved(key, podUid); // gone already
            } catch (RuntimeException e) {
                expectations.deletionObserved(key, podUid);
                events.eventf(podSet, EventRecorder.WARNING, "FailedDelete", "Error deleting: %s", e.getMessage());
                log.warn("podset {}: deleting pod {} failed: {}", key, podName, e.toString());
                if (failure == null) {
                    failure = e;
                }
            }
        }
        return failure;
    }

    /** A pod from the PodSet's template: its labels plus the PodSet's, its controller reference. */
    static Pod newPod(PodSet podSet) {
        PodTemplateSpec template =
                podSet.getSpec() == null ? null : podSet.getSpec().getTemplate();
        ObjectMeta tm = template == null || template.getMetadata() == null ? new ObjectMeta() : template.getMetadata();
        Map<String, String> labels = new HashMap<>();
        if (tm.getLabels() != null) {
            labels.putAll(tm.getLabels());
        }
        labels.put(PodSet.NAME_LABEL, podSet.getMetadata().getName());
        Pod pod = new PodBuilder()
                .withNewMetadata()
                .withGenerateName(podSet.getMetadata().getName() + "-")
                .withNamespace(podSet.getMetadata().getNamespace())
                .withLabels(labels)
                .withAnnotations(tm.getAnnotations() == null ? null : new HashMap<>(tm.getAnnotations()))
                .endMetadata()
                .withSpec(template == null ? null : template.getSpec())
                .build();
        OwnerReferences.setControllerReference(podSet, pod);
        return pod;
    }

    private String pollGone(String key) {
        goneLock.lock();
        try {
            Deque<String> names = gone.get(key);
            if (names == null) {
                return null;
            }
            String name = names.pollFirst();
            if (names.isEmpty()) {
                gone.remove(key);
            }
            return name;
        } finally {
            goneLock.unlock();
        }
    }

    private void addGone(String key, String pod) {
        goneLock.lock();
        try {
            Deque<String> names = gone.computeIfAbsent(key, k -> new ArrayDeque<>());
            if (!names.contains(pod) && names.size() < 1000) {
                names.addLast(pod);
            }
        } finally {
            goneLock.unlock();
        }
    }

    /** The pod watch: pods → their controlling PodSet, with the bookkeeping the reconcile relies on. */
    EventHandler<Pod> podHandler() {
        return new EventHandler<>() {
            @Override
            public void onCreate(Pod pod, boolean isInInitialList, EventHandler.Queue queue) {
                Request owner = ownerOf(pod);
                if (owner == null) {
                    return;
                }
                expectations.creationObserved(key(owner));
                if (pod.getMetadata().getDeletionTimestamp() != null) {
                    deletionSeen(owner, pod);
                }
                queue.add(owner);
            }

            @Override
            public void onUpdate(Pod oldPod, Pod pod, EventHandler.Queue queue) {
                Request oldOwner = ownerOf(oldPod);
                Request owner = ownerOf(pod);
                if (owner != null
                        && pod.getMetadata().getDeletionTimestamp() != null
                        && oldPod.getMetadata().getDeletionTimestamp() == null) {
                    deletionSeen(owner, pod);
                }
                if (oldOwner != null && !oldOwner.equals(owner)) {
                    queue.add(oldOwner);
                }
                if (owner != null) {
                    queue.add(owner);
                }
            }

            @Override
            public void onDelete(Pod pod, boolean finalStateUnknown, EventHandler.Queue queue) {
                Request owner = ownerOf(pod);
                if (owner == null) {
                    return;
                }
                deletionSeen(owner, pod);
                reported.remove(pod.getMetadata().getUid());
                queue.add(owner);
            }
        };
    }

    /**
     * A pod of {@code owner} got a deletionTimestamp or disappeared: lower the expectations; unless the operator
     * deleted it itself or its PodSet is going, tell the listener (once per pod) and remember it for the log line.
     */
    private void deletionSeen(Request owner, Pod pod) {
        long now = clock.nanoTime();
        String key = key(owner);
        String uid = pod.getMetadata().getUid();
        boolean ours = expectations.isExpectedDeletion(key, uid);
        expectations.deletionObserved(key, uid);
        if (!reported.add(uid) || ours) {
            return; // reported already, or the operator's own delete (a scale-down is no incident)
        }
        Optional<PodSet> podSet = client.getReadOnly(PodSet.class, owner);
        if (podSet.isEmpty()
                || podSet.get().getMetadata().getDeletionTimestamp() != null
                || !podSet.get().getMetadata().getUid().equals(ownerUid(pod))) {
            return;
        }
        addGone(key, pod.getMetadata().getName());
        listener.podDeletionSeen(
                owner.namespace(), owner.name(), pod.getMetadata().getName(), uid, now);
    }

    /** The PodSet that controls {@code pod}, or null. */
    static Request ownerOf(Pod pod) {
        Optional<OwnerReference> ref = OwnerReferences.controllerOf(pod);
        if (ref.isEmpty()
                || !PodSet.KIND.equals(ref.get().getKind())
                || ref.get().getApiVersion() == null
                || !ref.get().getApiVersion().startsWith(PodSet.GROUP + "/")) {
            return null;
        }
        return new Request(pod.getMetadata().getNamespace(), ref.get().getName());
    }

    private static String ownerUid(Pod pod) {
        return OwnerReferences.controllerOf(pod).map(OwnerReference::getUid).orElse(null);
    }

    private static String key(Request r) {
        return r.namespace() + "/" + r.name();
    }
}
