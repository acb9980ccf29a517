package io.kubeloop.demo.internal.scenario;

import io.kubeloop.client.KubernetesClient;
import io.kubeloop.client.config.ClientConfig;
import io.kubeloop.clock.Clock;
import io.kubeloop.controller.Manager;
import io.kubeloop.demo.PodGuardian;
import io.kubeloop.demo.internal.link.NetworkLink;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One replica of the pod-guardian operator in the demo: its own network link to the API server, its own client
 * (User-Agent {@code pod-guardian/<name>}) and its own {@link Manager}, campaigning for the Lease in namespace
 * {@value #LEASE_NAMESPACE}. {@link #kill()} is a crash: the cable is pulled first, so the manager's shutdown cannot
 * reach the server and the Lease is left to expire, as when a pod's node dies.
 */
final class OperatorInstance implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(OperatorInstance.class);

    /** The namespace of the leader-election Lease. */
    static final String LEASE_NAMESPACE = "pod-guardian";

    private final String name;
    private final NetworkLink link;
    private final KubernetesClient client;
    private final Manager manager;
    private volatile boolean killed;

    private OperatorInstance(String name, NetworkLink link, KubernetesClient client, Manager manager) {
        this.name = name;
        this.link = link;
        this.client = client;
        this.manager = manager;
    }

    /**
     * Opens the instance's link to {@code server}, builds its manager and starts it (returns once its caches synced;
     * it campaigns for the Lease on its own threads).
     */
    static OperatorInstance start(
            String name,
            InetSocketAddress server,
            Clock clock,
            double speed,
            Duration auditThreshold,
            PodGuardian.Listener listener)
            throws IOException {
        NetworkLink link = NetworkLink.open(name, server);
        KubernetesClient client = null;
        Manager manager = null;
        try {
            client = KubernetesClient.builder(ClientConfig.builder()
                            .server(URI.create("http://127.0.0.1:" + link.port()))
                            .build())
                    .clock(clock)
                    .userAgent("pod-guardian/" + name)
                    .build();
            LeaseTimings timings = LeaseTimings.forSpeed(speed);
            manager = PodGuardian.builder(client)
                    .identity(name)
                    .leaderElection(LEASE_NAMESPACE)
                    .leaderElectionTimings(timings.leaseDuration(), timings.renewDeadline(), timings.retryPeriod())
                    .clock(clock)
                    .auditThreshold(auditThreshold)
                    .listener(listener)
                    .build();
            manager.start();
            return new OperatorInstance(name, link, client, manager);
        } catch (RuntimeException | Error e) {
            closeQuietly(manager, client, link, e);
            throw e;
        }
    }

    String name() {
        return name;
    }

    Manager manager() {
        return manager;
    }

    NetworkLink link() {
        return link;
    }

    /** Leading now (and not killed). */
    boolean isLeader() {
        return !killed && manager.isLeader();
    }

    boolean isKilled() {
        return killed;
    }

    /**
     * A crash: the link is cut for good, then the manager is closed. Its elector tries to release the Lease on the
     * way out (kubeloop's {@code releaseOnCancel} is on by default) but the server is out of reach, so the Lease stays
     * held until it expires, as with a crashed pod; a standby takes over only then, not one retry period later.
     */
    void kill() {
        killed = true;
        link.cut();
        manager.close();
    }

    @Override
    public void close() {
        closeQuietly(manager, client, link, null);
    }

    private static void closeQuietly(Manager manager, KubernetesClient client, NetworkLink link, Throwable failure) {
        for (AutoCloseable c : new AutoCloseable[] {manager, client, link}) {
            if (c == null) {
                continue;
            }
            try {
                c.close();
            } catch (Exception | Error e) {
                if (failure != null) {
                    failure.addSuppressed(e);
                } else {
                    log.warn("demo: closing {} failed", c, e);
                }
            }
        }
    }

    /**
     * client-go's leader-election timings (lease 15 s, renew deadline 10 s, retry 2 s) divided by the speed, as far
     * as a Lease allows: its duration is a whole number of seconds (at least 1), and the others keep their ratio to it.
     */
    record LeaseTimings(Duration leaseDuration, Duration renewDeadline, Duration retryPeriod) {
        static LeaseTimings forSpeed(double speed) {
            long seconds = Math.max(1, Math.round(15 / speed));
            Duration lease = Duration.ofSeconds(seconds);
            return new LeaseTimings(
                    lease,
                    lease.multipliedBy(10).dividedBy(15),
                    lease.multipliedBy(2).dividedBy(15));
        }
    }
}
