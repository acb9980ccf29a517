package io.kubeloop.demo.internal.operator;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.kubeloop.clock.Clock;
import io.kubeloop.controller.EventFilter;
import io.kubeloop.controller.Manager;
import io.kubeloop.controller.leaderelection.LeaderElectionConfig;
import io.kubeloop.demo.PodGuardian;
import io.kubeloop.demo.PodSet;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Objects;

/** Builds the pod-guardian manager from {@link OperatorSettings}: the PodSet and replica-audit controllers. */
public final class Operator {
    private Operator() {}

    /** Workers of the PodSet controller: reconciles that write to the API server (seed 001 §6.2: 2–4). */
    static final int WORKERS = 4;

    private static final SecureRandom RANDOM = new SecureRandom();

    public static Manager build(OperatorSettings settings) {
        Objects.requireNonNull(settings, "settings");
        Clock clock =
                settings.clock() != null ? settings.clock() : settings.client().clock();
        Manager.Builder builder = Manager.builder(settings.client())
                .clock(clock)
                .metricsPort(settings.metricsPort())
                .healthProbePort(settings.healthProbePort());
        if (settings.namespace() != null) {
            builder.namespace(settings.namespace());
        }
        if (settings.bindAddress() != null) {
            builder.bindAddress(settings.bindAddress());
        }
        if (settings.leaseNamespace() != null) {
            builder.leaderElection(leaderElection(settings, clock));
        }
        if (settings.auditThreshold().isNegative() || settings.auditThreshold().isZero()) {
            throw new IllegalArgumentException("auditThreshold must be positive, was " + settings.auditThreshold());
        }
        Manager manager = builder.build();

        PodSetReconciler podSets = new PodSetReconciler(
                manager.client(), manager.eventRecorder(PodGuardian.CONTROLLER), clock, settings.listener());
        manager.newControllerFor(PodSet.class)
                .named(PodGuardian.CONTROLLER)
                // the pod events come through the handler (expectations, the listener, then the enqueue); owns()
                // declares the ownership — the RBAC derivation grants pod writes from it — with its own events off
                .watches(Pod.class, podSets.podHandler())
                .owns(Pod.class, NONE)
                .workers(WORKERS)
                .complete(podSets);

        ReplicaAuditReconciler audit = new ReplicaAuditReconciler(
                manager.client(),
                manager.eventRecorder(PodGuardian.AUDIT_CONTROLLER),
                clock,
                settings.auditThreshold(),
                manager.meterRegistry());
        manager.newControllerFor(Deployment.class)
                .named(PodGuardian.AUDIT_CONTROLLER)
                .readOnly() // it never writes a Deployment: RBAC grants it reads only
                .watches(Pod.class, pod -> ReplicaAuditReconciler.deploymentsOf(manager.client(), pod))
                .workers(2)
                .complete(audit);
        return manager;
    }

    /** An event filter that passes nothing. */
    private static final EventFilter<Object> NONE = new EventFilter<>() {
        @Override
        public boolean create(Object object, boolean isInInitialList) {
            return false;
        }

        @Override
        public boolean update(Object oldObject, Object newObject) {
            return false;
        }

        @Override
        public boolean delete(Object object, boolean finalStateUnknown) {
            return false;
        }
    };

    /**
     * The election: Lease {@value PodGuardian#LEASE} in the lease namespace; identity as given, else the pod's (or
     * host's) name and 5 random characters; the timings as given, except that the lease duration is rounded up to
     * whole seconds (the Lease stores {@code leaseDurationSeconds}: the demo's 15 s / speed need not be whole).
     */
    static LeaderElectionConfig leaderElection(OperatorSettings settings, Clock clock) {
        LeaderElectionConfig.Builder b = LeaderElectionConfig.builder(PodGuardian.LEASE, settings.leaseNamespace())
                .identity(settings.identity() != null ? settings.identity() : defaultIdentity())
                .clock(clock);
        if (settings.leaseDuration() != null) {
            b.leaseDuration(wholeSeconds(settings.leaseDuration()));
        }
        if (settings.renewDeadline() != null) {
            b.renewDeadline(settings.renewDeadline());
        }
        if (settings.retryPeriod() != null) {
            b.retryPeriod(settings.retryPeriod());
        }
        return b.build();
    }

    static Duration wholeSeconds(Duration d) {
        if (d.isNegative() || d.isZero() || d.toNanosPart() == 0) {
            return d; // the config's own checks name what is wrong with it
        }
        return Duration.ofSeconds(d.getSeconds() + 1);
    }

    /** {@code POD_NAME} (the downward API) or the host name, {@code -}, 5 random lower-case letters and digits. */
    static String defaultIdentity() {
        String base = System.getenv("POD_NAME");
        if (base == null || base.isBlank()) {
            try {
                base = InetAddress.getLocalHost().getHostName();
            } catch (UnknownHostException e) {
                base = "pod-guardian";
            }
        }
        String alphabet = "bcdfghjklmnpqrstvwxz2456789"; // kube's generateName alphabet
        StringBuilder suffix = new StringBuilder(5);
        for (int i = 0; i < 5; i++) {
            suffix.append(alphabet.charAt(RANDOM.nextInt(alphabet.length())));
        }
        return base.strip() + "-" + suffix;
    }
}
