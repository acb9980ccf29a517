package io.kubeloop.demo.internal.operator;

import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.kubeloop.clock.Clock;
import io.kubeloop.controller.ControllerClient;
import io.kubeloop.controller.EventRecorder;
import io.kubeloop.controller.OwnerReferences;
import io.kubeloop.controller.Reconciler;
import io.kubeloop.controller.Request;
import io.kubeloop.controller.Result;
import io.kubeloop.demo.PodGuardian;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@value PodGuardian#AUDIT_CONTROLLER} controller (seed 001 §8.2): Deployments, their ReplicaSets and their
 * Pods go into one queue as the Deployment's key; each reconcile reads the Deployment's desired replicas from the
 * cache and counts its ready pods in the cache (pods Running and Ready, not being deleted, controlled by a
 * ReplicaSet the Deployment controls). When the two differ, it remembers since when (in memory, on the manager's
 * clock) and looks again when the threshold will have passed; past the threshold it warns once per episode — a WARN
 * log, a Warning Event {@code ReplicasNotReady} on the Deployment, {@code replica_audit_warnings_total} — and counts
 * the Deployment in {@code replica_audit_unready_deployments}; when they agree again it logs the recovery at INFO
 * and forgets the episode. It never writes to a Deployment.
 *
 * <p>Thread-safe: episodes are in a concurrent map; a Deployment is never reconciled by two workers at once.
 */
final class ReplicaAuditReconciler implements Reconciler<Deployment> {

    private static final Logger log = LoggerFactory.getLogger(ReplicaAuditReconciler.class);
    static final String WARNINGS = "replica.audit.warnings";
    static final String UNREADY = "replica.audit.unready.deployments";
    static final String REASON = "ReplicasNotReady";

    /** One stretch of desired ≠ ready of one Deployment (a recreated Deployment, a new uid, starts afresh). */
    private record Episode(String uid, long sinceNanos, boolean warned) {}

    private final ControllerClient client;
    private final EventRecorder events;
    private final Clock clock;
    private final Duration threshold;
    private final MeterRegistry registry;
    private final ConcurrentMap<Request, Episode> episodes = new ConcurrentHashMap<>();

    ReplicaAuditReconciler(
            ControllerClient client, EventRecorder events, Clock clock, Duration threshold, MeterRegistry registry) {
        this.client = client;
        this.events = events;
        this.clock = clock;
        this.threshold = threshold;
        this.registry = registry;
        Gauge.builder(UNREADY, this, ReplicaAuditReconciler::overThreshold)
                .description("Deployments whose ready replicas have differed from the desired ones for longer than "
                        + "the audit threshold")
                .strongReference(true)
                .register(registry);
    }

    /** How many Deployments are past the threshold now. */
    int overThreshold() {
        return (int) episodes.values().stream().filter(Episode::warned).count();
    }

    @Override
    public Result reconcile(Request request) {
        Optional<Deployment> found = client.getReadOnly(Deployment.class, request);
        if (found.isEmpty()) {
            episodes.remove(request);
            return Result.done();
        }
        Deployment deployment = found.get();
        String uid = deployment.getMetadata().getUid();
        int desired = deployment.getSpec() == null || deployment.getSpec().getReplicas() == null
                ? 1
                : deployment.getSpec().getReplicas();
        int ready = readyPods(deployment);
        long now = clock.nanoTime();
        String name = request.namespace() + "/" + request.name();
        if (desired == ready) {
            Episode over = episodes.remove(request);
            if (over != null && over.warned()) {
                log.info(
                        "replica-audit: deployment {} has all {} replicas ready again after {}",
                        name,
                        desired,
                        seconds(Duration.ofNanos(now - over.sinceNanos())));
            }
            return Result.done();
        }
        Episode episode = episodes.compute(
                request, (k, old) -> old == null || !old.uid().equals(uid) ? new Episode(uid, now, false) : old);
        Duration unready = Duration.ofNanos(now - episode.sinceNanos());
        if (unready.compareTo(threshold) < 0) {
            return Result.requeueAfter(threshold.minus(unready)); // look again when the threshold has passed
        }
        if (!episode.warned()) {
            episodes.put(request, new Episode(uid, episode.sinceNanos(), true));
            String message = String.format(
                    Locale.ROOT,
                    "%d of %d replicas ready for %s (threshold %s)",
                    ready,
                    desired,
                    seconds(unready),
                    seconds(threshold));
            log.warn("replica-audit: deployment {} has {}", name, message);
            events.event(deployment, EventRecorder.WARNING, REASON, message);
            Counter.builder(WARNINGS)
                    .description("Deployments that had desired ≠ ready replicas for longer than the audit threshold")
                    .tag("namespace", request.namespace())
                    .tag("deployment", request.name())
                    .register(registry)
                    .increment();
        }
        return Result.done(); // the next change of the Deployment or of its pods brings it back
    }

    /** Pods Running and Ready, not being deleted, whose ReplicaSet the Deployment controls, from the cache. */
    private int readyPods(Deployment deployment) {
        String ns = deployment.getMetadata().getNamespace();
        String uid = deployment.getMetadata().getUid();
        int ready = 0;
        for (Pod pod : client.listReadOnly(Pod.class, ns)) {
            if (Pods.isActive(pod) && Pods.isReady(pod) && uid.equals(deploymentUid(client, pod))) {
                ready++;
            }
        }
        return ready;
    }

    /** The Deployment that controls the ReplicaSet that controls {@code pod}, through the cache; or null. */
    static Request deploymentOf(ControllerClient client, Pod pod) {
        ReplicaSet rs = replicaSetOf(client, pod);
        return rs == null ? null : deploymentOf(rs);
    }

    /** The Deployment that controls {@code rs}, or null. */
    static Request deploymentOf(ReplicaSet rs) {
        Optional<OwnerReference> ref = OwnerReferences.controllerOf(rs);
        if (ref.isEmpty() || !"Deployment".equals(ref.get().getKind())) {
            return null;
        }
        return new Request(rs.getMetadata().getNamespace(), ref.get().getName());
    }

    /** Mapper of the ReplicaSet watch. */
    static List<Request> mapReplicaSet(ReplicaSet rs) {
        Request r = deploymentOf(rs);
        return r == null ? List.of() : List.of(r);
    }

    private static String deploymentUid(ControllerClient client, Pod pod) {
        ReplicaSet rs = replicaSetOf(client, pod);
        return rs == null
                ? null
                : OwnerReferences.controllerOf(rs).map(OwnerReference::getUid).orElse(null);
    }

    private static ReplicaSet replicaSetOf(ControllerClient client, Pod pod) {
        Optional<OwnerReference> ref = OwnerReferences.controllerOf(pod);
        if (ref.isEmpty() || !"ReplicaSet".equals(ref.get().getKind())) {
            return null;
        }
        return client.getReadOnly(
                        ReplicaSet.class,
                        pod.getMetadata().getNamespace(),
                        ref.get().getName())
                .filter(rs -> rs.getMetadata().getUid().equals(ref.get().getUid()))
                .orElse(null);
    }

    /** "61 s", "1.5 s": whole seconds from 10 s on, tenths below. */
    static String seconds(Duration d) {
        double s = d.toNanos() / 1e9;
        if (s >= 10) {
            return Math.round(s) + " s";
        }
        String t = String.format(Locale.ROOT, "%.1f", s);
        return (t.endsWith(".0") ? t.substring(0, t.length() - 2) : t) + " s";
    }
}
