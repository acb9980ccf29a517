package io.kubeloop.demo.internal.operator;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.kubeloop.clock.Clock;
import io.kubeloop.controller.ControllerClient;
import io.kubeloop.controller.EventRecorder;
import io.kubeloop.controller.Reconciler;
import io.kubeloop.controller.Request;
import io.kubeloop.controller.Result;
import io.kubeloop.demo.PodGuardian;
import io.kubeloop.model.selector.FieldSelector;
import io.kubeloop.model.selector.LabelSelector;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@value PodGuardian#AUDIT_CONTROLLER} controller (seed 001 §8.2): Deployments and Pods go into one queue as
 * the Deployment's key (a pod maps to the Deployments of its namespace whose selector matches it); each reconcile
 * reads the Deployment's desired replicas from the cache and counts its ready pods in the cache (pods its selector
 * matches, Running and Ready, not being deleted). When the two differ, it remembers since when (in memory, on the manager's
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

    /** Pods Running and Ready, not being deleted, that the Deployment's selector matches, from the cache. */
    private int readyPods(Deployment deployment) {
        LabelSelector selector = selectorOf(deployment);
        if (selector == null) {
            return 0;
        }
        int ready = 0;
        for (Pod pod : client.listReadOnly(
                Pod.class, deployment.getMetadata().getNamespace(), selector, FieldSelector.everything())) {
            if (Pods.isActive(pod) && Pods.isReady(pod)) {
                ready++;
            }
        }
        return ready;
    }

    /** The Deployments of the pod's namespace whose selector matches its labels (the pod watch's mapper). */
    static List<Request> deploymentsOf(ControllerClient client, Pod pod) {
        Map<String, String> labels = pod.getMetadata().getLabels() == null
                ? Map.of()
                : pod.getMetadata().getLabels();
        List<Request> requests = new ArrayList<>();
        for (Deployment d :
                client.listReadOnly(Deployment.class, pod.getMetadata().getNamespace())) {
            LabelSelector selector = selectorOf(d);
            if (selector != null && selector.matches(labels)) {
                requests.add(Request.of(d));
            }
        }
        return requests;
    }

    /** The Deployment's selector; null when it has none or an empty one (which selects nothing, as in kube). */
    private static LabelSelector selectorOf(Deployment d) {
        if (d.getSpec() == null || d.getSpec().getSelector() == null) {
            return null;
        }
        LabelSelector selector = LabelSelector.fromLabelSelector(d.getSpec().getSelector());
        return selector.isEverything() ? null : selector;
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
