package io.kubeloop.demo;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.clock.Clock;
import io.kubeloop.controller.Manager;
import io.kubeloop.demo.internal.operator.OperatorSettings;
import java.net.InetAddress;
import java.time.Duration;
import java.util.Objects;

/**
 * The pod-guardian operator: two controllers on one {@link Manager}.
 *
 * <ul>
 *   <li>{@value #CONTROLLER} reconciles {@link PodSet}s (seed 000 §3.2: desired state from the cache, actual pods
 *       from the cache, the difference, act, report status): it keeps {@code spec.replicas} pods that are not being
 *       deleted, replaces any pod that is deleted or evicted at once (a terminating pod no longer counts), sets a
 *       controller owner reference on every pod so that deleting the PodSet deletes them, writes {@code status}
 *       and emits Events ({@code SuccessfulCreate}, {@code SuccessfulDelete}, {@code FailedCreate}).</li>
 *   <li>{@value #AUDIT_CONTROLLER} (seed 001 §8.2) puts Deployments and Pods into one queue; when a Deployment's
 *       desired replicas differ from its ready replicas for longer than the audit threshold it logs a WARN, emits a
 *       Warning Event {@code ReplicasNotReady} on the Deployment and counts it in
 *       {@code replica_audit_warnings_total}; {@code replica_audit_unready_deployments} is how many are in that
 *       state now.</li>
 * </ul>
 *
 * <pre>{@code
 * Manager manager = PodGuardian.builder(client).leaderElection("pod-guardian").build();
 * manager.start();
 * }</pre>
 *
 * This is what {@code kubeloop run} runs, what {@code deploy/} deploys and what {@code kubeloop demo} starts twice.
 */
public final class PodGuardian {

    /** The name of the PodSet controller (its metrics' {@code controller} label, its Events' source). */
    public static final String CONTROLLER = "pod-guardian";
    /** The name of the replica-audit controller. */
    public static final String AUDIT_CONTROLLER = "replica-audit";
    /** The name of the leader-election Lease. */
    public static final String LEASE = "pod-guardian";
    /** The default audit threshold: how long desired may differ from ready before replica-audit warns. */
    public static final Duration DEFAULT_AUDIT_THRESHOLD = Duration.ofSeconds(60);

    private PodGuardian() {}

    /** A builder of the operator's manager on {@code client}. */
    public static Builder builder(KubernetesClient client) {
        return new Builder(client);
    }

    /**
     * The PodSet CustomResourceDefinition ({@code podsets.demo.kubeloop.io}): v1 served and stored, a structural
     * schema that matches {@link PodSet}'s fields, the {@code status} subresource and the {@code scale} subresource
     * ({@code .spec.replicas}, {@code .status.replicas}, {@code .status.selector}), printer columns Desired, Ready,
     * Age, and short name {@code ps}. {@code deploy/crd.yaml} is this object as YAML (a test checks it).
     */
    public static CustomResourceDefinition crd() {
        return io.kubeloop.demo.internal.operator.PodSetCrd.build();
    }

    /** Hooks for instrumentation (the demo's incident tracker uses them); every method is called on a worker or
     * handler thread and must return quickly. The default methods do nothing. */
    public interface Listener {
        /**
         * The operator's pod informer delivered the deletion of a pod of a PodSet: the pod got a
         * {@code deletionTimestamp} or disappeared. Called before the PodSet is queued (and, for a pod that terminates,
         * before its replacement is created: a reconcile that lists it first reports it), once per pod and manager
         * (on a standby too: its informers run). Not called for the pods the operator deletes itself (a scale-down)
         * nor, as far as its cache already shows, for pods that go because their PodSet is being deleted.
         */
        default void podDeletionSeen(String namespace, String podSet, String pod, String podUid, long nanoTime) {}

        /**
         * A reconcile of a PodSet created a pod. {@code reconcileStartNanos} is when that reconcile began,
         * {@code createdNanos} when the server answered the create; both {@link Clock#nanoTime()} of the manager's
         * clock.
         */
        default void podCreated(
                String namespace, String podSet, String pod, long reconcileStartNanos, long createdNanos) {}
    }

    /** Builds the operator's {@link Manager}, both controllers registered; start it with {@link Manager#start()}. */
    public static final class Builder {
        final KubernetesClient client;
        String namespace;
        String leaseNamespace;
        String identity;
        Duration leaseDuration;
        Duration renewDeadline;
        Duration retryPeriod;
        Clock clock;
        InetAddress bindAddress;
        int metricsPort = -1;
        int healthProbePort = -1;
        Duration auditThreshold = DEFAULT_AUDIT_THRESHOLD;
        Listener listener = new Listener() {};

        Builder(KubernetesClient client) {
            this.client = Objects.requireNonNull(client, "client");
        }

        /** Watch only {@code namespace} (a Role suffices); default: all namespaces (a ClusterRole). */
        public Builder namespace(String namespace) {
            this.namespace = namespace;
            return this;
        }

        /** Leader election on Lease {@value #LEASE} in {@code leaseNamespace}; default: off. */
        public Builder leaderElection(String leaseNamespace) {
            this.leaseNamespace = Objects.requireNonNull(leaseNamespace, "leaseNamespace");
            return this;
        }

        /**
         * This replica's identity in the Lease; default: {@code POD_NAME} (the downward API) or the host name, then
         * {@code -} and 5 random characters.
         */
        public Builder identity(String identity) {
            this.identity = identity;
            return this;
        }

        /**
         * Leader-election timings (client-go's defaults: 15 s, 10 s, 2 s); the demo divides them by its speed. The
         * lease duration is rounded up to whole seconds (the Lease stores {@code leaseDurationSeconds}); the three
         * must satisfy {@code lease > renewDeadline > 1.2 × retryPeriod}, else {@link #build()} throws naming them.
         */
        public Builder leaderElectionTimings(Duration leaseDuration, Duration renewDeadline, Duration retryPeriod) {
            this.leaseDuration = leaseDuration;
            this.renewDeadline = renewDeadline;
            this.retryPeriod = retryPeriod;
            return this;
        }

        /** The manager's clock; default: the client's. */
        public Builder clock(Clock clock) {
            this.clock = clock;
            return this;
        }

        /** Where the metrics and probe endpoints listen; default: every interface. */
        public Builder bindAddress(InetAddress bindAddress) {
            this.bindAddress = bindAddress;
            return this;
        }

        /** {@code /metrics} port (0: any free port; -1, the default: none). */
        public Builder metricsPort(int port) {
            this.metricsPort = port;
            return this;
        }

        /** {@code /healthz} and {@code /readyz} port (0: any free port; -1, the default: none). */
        public Builder healthProbePort(int port) {
            this.healthProbePort = port;
            return this;
        }

        /** How long a Deployment may have desired ≠ ready before replica-audit warns; default 60 s. */
        public Builder auditThreshold(Duration threshold) {
            this.auditThreshold = Objects.requireNonNull(threshold, "threshold");
            return this;
        }

        /** Instrumentation hooks; default: none. */
        public Builder listener(Listener listener) {
            this.listener = Objects.requireNonNull(listener, "listener");
            return this;
        }

        /** The manager, with both controllers registered, not started. */
        public Manager build() {
            return io.kubeloop.demo.internal.operator.Operator.build(new OperatorSettings(
                    client,
                    namespace,
                    leaseNamespace,
                    identity,
                    leaseDuration,
                    renewDeadline,
                    retryPeriod,
                    clock,
                    bindAddress,
                    metricsPort,
                    healthProbePort,
                    auditThreshold,
                    listener));
        }
    }
}
