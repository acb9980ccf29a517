package io.kubeloop.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.kubeloop.apiserver.EmbeddedApiServer;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.client.config.ClientConfig;
import io.kubeloop.controller.leaderelection.LeaderElectionConfig;
import io.kubeloop.informer.ResourceEventHandler;
import io.kubeloop.informer.ResourceEventHandlerRegistration;
import io.kubeloop.informer.SharedIndexInformer;
import io.kubeloop.workqueue.WorkQueue;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Two and three managers, each with its own client, campaign for one Lease on the embedded API server: exactly one
 * runs its controller; when the leader is partitioned from the server (fault injection scoped to its client's
 * User-Agent) or killed, a follower takes over within lease duration + retry period; the partitioned leader's workers
 * stop before anybody else's start; and across the whole run no two managers reconcile at the same time (every
 * reconcile's start and end is recorded, on one clock).
 *
 * <p>On the real clock, with short leases (3 s, renew deadline 2 s, retry 0.5 s): the managers' informers, work
 * queues and workers and the electors all run here, which the elector's own fake-clock harness
 * (leaderelection.ElectionHarness) does not cover.
 */
class ManagerLeaderElectionIT {

    private static final String NS = "election";
    private static final Duration LEASE = Duration.ofSeconds(3);
    private static final Duration RENEW = Duration.ofSeconds(2);
    private static final Duration RETRY = Duration.ofMillis(500);
    /** Generous for a loaded 2-core machine; the bound under test is LEASE + RETRY × 1.2 (jitter). */
    private static final Duration SLACK = Duration.ofSeconds(2);

    private EmbeddedApiServer server;
    private KubernetesClient admin;
    private final List<Replica> replicas = new ArrayList<>();
    /** Every reconcile and every worker lifetime, of every replica, on System.nanoTime. */
    private final List<Interval> reconciles = new CopyOnWriteArrayList<>();

    private final List<Interval> workers = new CopyOnWriteArrayList<>();
    private final AtomicBoolean writing = new AtomicBoolean(true);
    private Thread writer;

    record Interval(String replica, long start, long end) {
        boolean overlaps(Interval o) {
            return start < o.end && o.start < end;
        }
    }

    @BeforeEach
    void start() {
        server = EmbeddedApiServer.builder().start();
        admin = KubernetesClient.create(
                ClientConfig.builder().server(server.url()).build());
        admin.resources(Namespace.class)
                .create(new NamespaceBuilder()
                        .withNewMetadata()
                        .withName(NS)
                        .endMetadata()
                        .build());
        // a steady stream of changes for whoever leads to reconcile
        writer = Thread.ofVirtual().name("writer").start(() -> {
            int i = 0;
            while (writing.get()) {
                String name = "cm-" + (i++ % 20);
                try {
                    admin.resources(ConfigMap.class)
                            .inNamespace(NS)
                            .serverSideApply(
                                    new ConfigMapBuilder()
                                            .withNewMetadata()
                                            .withName(name)
                                            .endMetadata()
                                            .addToData("i", Integer.toString(i))
                                            .build(),
                                    "writer",
                                    true);
                    Thread.sleep(10); // pacing of the load, not a wait for a condition
                } catch (InterruptedException e) {
                    return;
                } catch (RuntimeException e) {
                    // the server is shared with faults scoped to other clients: retry
                }
            }
        });
    }

    @AfterEach
    void stop() throws InterruptedException {
        writing.set(false);
        writer.join(Duration.ofSeconds(10));
        for (Replica r : replicas) {
            r.manager.close();
            r.client.close();
        }
        admin.close();
        server.close();
    }

    private Replica replica(String id) {
        Replica r = new Replica(id);
        replicas.add(r);
        return r;
    }

    /** One manager with its own client (User-Agent {@code replica-<id>}) and one controller-like runnable. */
    final class Replica {
        final String id;
        final KubernetesClient client;
        final Manager manager;
        final Worker worker;
        final AtomicInteger controllerReconciles = new AtomicInteger();

        Replica(String id) {
            this.id = id;
            this.client = KubernetesClient.builder(
                            ClientConfig.builder().server(server.url()).build())
                    .userAgent("replica-" + id + "/1.0")
                    .requestTimeout(Duration.ofSeconds(1))
                    .build();
            this.manager = Manager.builder(client)
                    .namespace(NS)
                    .metricsPort(-1)
                    .healthProbePort(-1)
                    .gracefulShutdownTimeout(Duration.ofSeconds(5))
                    .leaderElection(LeaderElectionConfig.builder("the-operator", NS)
                            .identity(id)
                            .leaseDuration(LEASE)
                            .renewDeadline(RENEW)
                            .retryPeriod(RETRY)
                            .build())
                    .build();
            this.worker = new Worker(this, manager.informerFactory().informerFor(ConfigMap.class));
            manager.add(worker);
            // and a real controller, whose every reconcile is recorded as well
            manager.newControllerFor(ConfigMap.class).named("recorded").complete(request -> {
                long s = System.nanoTime();
                try {
                    client.resources(ConfigMap.class)
                            .inNamespace(request.namespace())
                            .get(request.name());
                    controllerReconciles.incrementAndGet();
                } finally {
                    reconciles.add(new Interval(id + "/controller", s, System.nanoTime()));
                }
                return Result.done();
            });
        }

        void partition() {
            server.faults().partition(Duration.ofMinutes(5), "replica-" + id + "/");
        }

        @Override
        public String toString() {
            return id;
        }
    }

    /**
     * A controller reduced to what leader election must guard: a queue fed by the informer and one worker whose
     * reconcile reads the object from the server (a real request, so a partitioned leader's reconcile hangs until it
     * is stopped). Restartable, as a controller must be.
     */
    final class Worker implements ManagedRunnable {
        private final Replica replica;
        private final SharedIndexInformer<ConfigMap> informer;
        final AtomicInteger reconciled = new AtomicInteger();
        private volatile WorkQueue<String> queue;
        private volatile Thread thread;
        private volatile ResourceEventHandlerRegistration registration;
        volatile boolean running;

        Worker(Replica replica, SharedIndexInformer<ConfigMap> informer) {
            this.replica = replica;
            this.informer = informer;
        }

        @Override
        public void start() {
            WorkQueue<String> q =
                    WorkQueue.<String>builder().name("worker-" + replica.id).build();
            queue = q;
            registration = informer.addEventHandler(new ResourceEventHandler<>() {
                @Override
                public void onAdd(ConfigMap cm, boolean initial) {
                    q.add(cm.getMetadata().getName());
                }

                @Override
                public void onUpdate(ConfigMap old, ConfigMap cm) {
                    q.add(cm.getMetadata().getName());
                }

                @Override
                public void onDelete(ConfigMap cm, boolean unknown) {}
            });
            long began = System.nanoTime();
            running = true;
            thread = Thread.ofVirtual().name("worker-" + replica.id).start(() -> {
                try {
                    while (true) {
                        String key = q.get();
                        if (key == null) {
                            return;
                        }
                        long s = System.nanoTime();
                        try {
                            replica.client
                                    .resources(ConfigMap.class)
                                    .inNamespace(NS)
                                    .get(key);
                            reconciled.incrementAndGet();
                        } catch (RuntimeException e) {
                            // a partitioned replica's read fails or is cut off: it is still a reconcile attempt
                        } finally {
                            reconciles.add(new Interval(replica.id, s, System.nanoTime()));
                            q.done(key);
                        }
                    }
                } catch (InterruptedException e) {
                    // stopped
                } finally {
                    workers.add(new Interval(replica.id, began, System.nanoTime()));
                }
            });
        }

        @Override
        public void stop(Duration timeout) throws InterruptedException {
            Thread t = thread;
            if (t == null) {
                return;
            }
            queue.shutDown();
            informer.removeEventHandler(registration);
            if (!t.join(timeout)) {
                t.interrupt(); // a reconcile stuck on a partitioned connection
                t.join();
            }
            thread = null;
            running = false;
        }
    }

    private static long leaders(List<Replica> rs) {
        return rs.stream().filter(r -> r.manager.isLeader()).count();
    }

    private void assertNoTwoReplicasEverWorkedAtOnce() {
        List<Interval> all = new ArrayList<>(workers);
        for (Replica r : replicas) {
            assertThat(r.worker.running).as("still running: " + r).isFalse();
        }
        for (Interval a : all) {
            for (Interval b : all) {
                if (!a.replica().equals(b.replica())) {
                    assertThat(a.overlaps(b))
                            .as("workers of %s and %s overlap: %s %s", a.replica(), b.replica(), a, b)
                            .isFalse();
                }
            }
        }
        List<Interval> rec = new ArrayList<>(reconciles);
        for (Interval a : rec) {
            for (Interval b : rec) {
                if (!replicaOf(a).equals(replicaOf(b))) {
                    assertThat(a.overlaps(b))
                            .as("reconciles of %s and %s overlap", a.replica(), b.replica())
                            .isFalse();
                }
            }
        }
    }

    private static String replicaOf(Interval i) {
        int slash = i.replica().indexOf('/');
        return slash < 0 ? i.replica() : i.replica().substring(0, slash);
    }

    private static Replica awaitSingleLeader(List<Replica> rs, Duration within) {
        await().atMost(within).pollInterval(Duration.ofMillis(20)).until(() -> leaders(rs) == 1);
        Replica leader =
                rs.stream().filter(r -> r.manager.isLeader()).findFirst().orElseThrow();
        await().atMost(Duration.ofSeconds(10))
                .until(() -> leader.worker.reconciled.get() >= 5 && leader.controllerReconciles.get() >= 5);
        for (Replica r : rs) {
            assertThat(r.worker.running).as("worker of " + r).isEqualTo(r == leader);
        }
        return leader;
    }

    @Test
    void threeManagersOneLeaderAndAPartitionedLeaderStopsBeforeATakeover() {
        List<Replica> rs = List.of(replica("a"), replica("b"), replica("c"));
        rs.forEach(r -> r.manager.start());
        Replica leader = awaitSingleLeader(rs, LEASE.plus(RETRY.multipliedBy(3)).plus(SLACK));
        assertThat(leader.manager
                        .meterRegistry()
                        .get("leader.election.master.status")
                        .tag("name", "the-operator")
                        .gauge()
                        .value())
                .isEqualTo(1.0);

        long partitioned = System.nanoTime();
        leader.partition();
        List<Replica> followers = rs.stream().filter(r -> r != leader).toList();
        await().atMost(LEASE.plus(RETRY.multipliedBy(2)).plus(SLACK))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> leaders(followers) == 1);
        Duration takeover = Duration.ofNanos(System.nanoTime() - partitioned);
        Replica next = awaitSingleLeader(followers, Duration.ofSeconds(1));
        assertThat(leader.manager.isLeader()).isFalse();
        assertThat(leader.worker.running).as("the partitioned leader's worker").isFalse();
        // it stopped by its renew deadline (plus the bounded stop), before its lease could expire
        Interval stopped = workers.stream()
                .filter(w -> w.replica().equals(leader.id))
                .findFirst()
                .orElseThrow();
        assertThat(Duration.ofNanos(stopped.end() - partitioned)).isLessThan(LEASE);
        // caches stay warm: the partitioned manager's informer still runs
        assertThat(leader.worker.informer.isStopped()).isFalse();
        System.out.println("ManagerLeaderElectionIT: takeover after a partition in " + takeover.toMillis()
                + " ms (lease " + LEASE.toMillis() + " ms, retry " + RETRY.toMillis() + " ms)");

        // the partition heals: the old leader campaigns again and stands by
        server.faults().clear();
        await().atMost(Duration.ofSeconds(5)).until(() -> next.worker.reconciled.get() >= 10);
        assertThat(leaders(rs)).isEqualTo(1);
        assertThat(next.manager.isLeader()).isTrue();

        replicas.forEach(r -> r.manager.close());
        assertNoTwoReplicasEverWorkedAtOnce();
    }

    @Test
    void twoManagersAClosedLeaderHandsOverAtOnce() {
        List<Replica> rs = List.of(replica("x"), replica("y"));
        rs.forEach(r -> r.manager.start());
        Replica leader = awaitSingleLeader(rs, LEASE.plus(RETRY.multipliedBy(3)).plus(SLACK));
        Replica follower = rs.stream().filter(r -> r != leader).findFirst().orElseThrow();
        assertThat(follower.manager.readinessProblems())
                .as("a standby is ready")
                .isNull();

        long killed = System.nanoTime();
        leader.manager.close(); // releases the lease after its worker stopped
        await().atMost(RETRY.multipliedBy(3).plus(SLACK))
                .pollInterval(Duration.ofMillis(20))
                .until(follower.manager::isLeader);
        System.out.println("ManagerLeaderElectionIT: takeover after a release in "
                + Duration.ofNanos(System.nanoTime() - killed).toMillis() + " ms");
        await().atMost(Duration.ofSeconds(10)).until(() -> follower.worker.reconciled.get() >= 5);
        follower.manager.close();
        assertNoTwoReplicasEverWorkedAtOnce();
    }

    @Test
    void aCrashedLeaderIsReplacedWithinLeaseDurationPlusRetry() {
        List<Replica> rs = List.of(replica("p"), replica("q"));
        rs.forEach(r -> r.manager.start());
        Replica leader = awaitSingleLeader(rs, LEASE.plus(RETRY.multipliedBy(3)).plus(SLACK));
        Replica follower = rs.stream().filter(r -> r != leader).findFirst().orElseThrow();
        // a crash: the process is gone and never releases; here its client is cut off for good, and it is closed
        long crashed = System.nanoTime();
        leader.partition();
        await().atMost(LEASE.plus(RETRY.multipliedBy(2)).plus(SLACK))
                .pollInterval(Duration.ofMillis(20))
                .until(follower.manager::isLeader);
        Duration takeover = Duration.ofNanos(System.nanoTime() - crashed);
        assertThat(takeover).isGreaterThanOrEqualTo(RENEW); // the lease was not released: it had to expire
        await().atMost(Duration.ofSeconds(10)).until(() -> follower.worker.reconciled.get() >= 5);
        replicas.forEach(r -> r.manager.close());
        assertNoTwoReplicasEverWorkedAtOnce();
    }
}
