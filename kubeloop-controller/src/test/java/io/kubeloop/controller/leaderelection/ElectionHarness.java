package io.kubeloop.controller.leaderelection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.kubeloop.apiserver.EmbeddedApiServer;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.client.config.ClientConfig;
import io.kubeloop.clock.Clock;
import io.kubeloop.clock.FakeClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;

/**
 * Several candidates for one Lease on the embedded API server, over real HTTP, all on one {@link FakeClock} shared
 * with the server, and a test thread that moves time in small steps.
 *
 * <p>Time is deterministic up to the step: after each step the harness waits until the system has <em>settled</em>
 * — every running candidate's campaign thread waits on the clock for a deadline still in the future (so it has
 * finished reacting to the time that passed: no request of its own in flight), and every candidate's callbacks have
 * caught up with its {@link LeaderElector#isLeader()}. A partitioned candidate's requests hang by design, so its
 * campaign thread is not waited for; its leadership ends through the elector's renew-deadline timer, which runs on
 * the stepping thread, at the exact clock time. Callbacks record the clock's time, which does not move while the
 * harness waits, so "leading" intervals are exact to the step.
 */
final class ElectionHarness implements AutoCloseable {

    static final String LEASE = "the-operator";
    static final String NAMESPACE = "default";
    static final Duration STEP = Duration.ofMillis(100);

    final FakeClock fake = new FakeClock();
    final TrackingClock clock = new TrackingClock(fake);
    final EmbeddedApiServer server = EmbeddedApiServer.builder().clock(fake).start();
    /** Reads the Lease as an observer: kubeloop's own User-Agent, never partitioned by these tests. */
    final KubernetesClient observer = KubernetesClient.create(
            ClientConfig.builder().server(server.url().toString()).build());

    final List<Candidate> candidates = new CopyOnWriteArrayList<>();

    /** One candidate: its own client (User-Agent {@code elector-<identity>}), elector, registry and record. */
    final class Candidate implements LeaderCallbacks {
        final String identity;
        final KubernetesClient client;
        final SimpleMeterRegistry registry = new SimpleMeterRegistry();
        final LeaderElector elector;
        /** The clock's nanoTime at each onStartedLeading / onStoppedLeading, in order: [start, end] pairs. */
        final List<long[]> intervals = new CopyOnWriteArrayList<>();

        final List<String> newLeaders = new CopyOnWriteArrayList<>();
        final Set<String> callbackThreads = ConcurrentHashMap.newKeySet();
        volatile boolean leadingByCallback;
        volatile boolean partitioned;
        volatile Runnable onStarted = () -> {};

        Candidate(String identity, UnaryOperator<LeaderElectionConfig.Builder> tweak) {
            this.identity = identity;
            this.client = KubernetesClient.builder(ClientConfig.builder()
                            .server(server.url().toString())
                            .build())
                    .clock(fake)
                    .userAgent("elector-" + identity + "/1.0")
                    .build();
            LeaderElectionConfig config = tweak.apply(LeaderElectionConfig.builder(LEASE, NAMESPACE)
                            .identity(identity)
                            .clock(clock))
                    .build();
            this.elector = LeaderElector.builder(client, config)
                    .callbacks(this)
                    .meterRegistry(registry)
                    .build();
        }

        @Override
        public void onStartedLeading() {
            callbackThreads.add(Thread.currentThread().getName());
            assertThat(leadingByCallback).as("onStartedLeading twice in a row").isFalse();
            intervals.add(new long[] {fake.nanoTime(), Long.MAX_VALUE});
            leadingByCallback = true;
            onStarted.run();
        }

        @Override
        public void onStoppedLeading() {
            callbackThreads.add(Thread.currentThread().getName());
            assertThat(leadingByCallback)
                    .as("onStoppedLeading without onStartedLeading")
                    .isTrue();
            intervals.get(intervals.size() - 1)[1] = fake.nanoTime();
            leadingByCallback = false;
        }

        @Override
        public void onNewLeader(String leader) {
            newLeaders.add(leader);
        }

        long startedAt(int i) {
            return intervals.get(i)[0];
        }

        long stoppedAt(int i) {
            return intervals.get(i)[1];
        }

        void partition() {
            partitioned = true;
            server.faults().partition(Duration.ofHours(1), "elector-" + identity + "/");
        }

        double masterStatus() {
            return registry.get("leader.election.master.status").gauge().value();
        }

        double transitions() {
            return registry.get("leader.election.transitions").counter().count();
        }

        /** Settled: the campaign thread waits on the clock for a future deadline, and the callbacks caught up. */
        boolean settled() {
            if (leadingByCallback != elector.isLeader()) {
                return false;
            }
            if (!elector.isRunning() || partitioned) {
                return true;
            }
            Long deadline = clock.waiting.get("kubeloop-leader-election-" + LEASE + "-" + identity);
            return deadline != null && deadline - fake.nanoTime() > 0;
        }
    }

    Candidate add(String identity) {
        return add(identity, b -> b);
    }

    Candidate add(String identity, UnaryOperator<LeaderElectionConfig.Builder> tweak) {
        Candidate c = new Candidate(identity, tweak);
        candidates.add(c);
        return c;
    }

    void startAll() {
        for (Candidate c : candidates) {
            c.elector.start();
        }
        settle();
    }

    void settle() {
        await().atMost(Duration.ofSeconds(30))
                .pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(1))
                .until(() -> candidates.stream().allMatch(Candidate::settled));
    }

    /** Steps the clock by {@link #STEP}, settling after each, until {@code done}; fails after {@code limit}. */
    void stepUntil(String what, Duration limit, BooleanSupplier done) {
        settle();
        long end = fake.nanoTime() + limit.toNanos();
        while (!done.getAsBoolean()) {
            if (fake.nanoTime() - end >= 0) {
                fail(what + " did not happen within " + limit + " on the clock; " + describe());
            }
            step();
        }
    }

    /** Steps the clock for {@code duration}, settling after each step. */
    void stepFor(Duration duration) {
        settle();
        long end = fake.nanoTime() + duration.toNanos();
        while (end - fake.nanoTime() > 0) {
            step();
        }
    }

    private void step() {
        fake.step(STEP);
        settle();
        long leaders = candidates.stream().filter(c -> c.elector.isLeader()).count();
        assertThat(leaders)
                .as("candidates leading at once at %s; %s", fake.now(), describe())
                .isLessThanOrEqualTo(1);
    }

    List<Candidate> leaders() {
        return candidates.stream().filter(c -> c.elector.isLeader()).toList();
    }

    Candidate theLeader() {
        List<Candidate> leaders = leaders();
        assertThat(leaders).as("leaders").hasSize(1);
        return leaders.get(0);
    }

    Lease lease() {
        return observer.resources(Lease.class).inNamespace(NAMESPACE).get(LEASE).orElseThrow();
    }

    /** Every recorded "leading" interval of every candidate, pairwise disjoint (touching ends allowed). */
    void assertNoOverlap() {
        List<long[]> all = new ArrayList<>();
        Map<long[], String> owner = new java.util.IdentityHashMap<>();
        for (Candidate c : candidates) {
            for (long[] i : c.intervals) {
                all.add(i);
                owner.put(i, c.identity);
            }
        }
        all.sort((a, b) -> Long.compare(a[0], b[0]));
        for (int i = 1; i < all.size(); i++) {
            long[] prev = all.get(i - 1);
            long[] next = all.get(i);
            assertThat(prev[1])
                    .as(
                            "%s leads from %s to %s, %s from %s: they overlap",
                            owner.get(prev), seconds(prev[0]), seconds(prev[1]), owner.get(next), seconds(next[0]))
                    .isLessThanOrEqualTo(next[0]);
        }
    }

    static String seconds(long nanos) {
        return nanos == Long.MAX_VALUE ? "(still leading)" : String.format("%.1fs", nanos / 1e9);
    }

    String describe() {
        StringBuilder b = new StringBuilder("t=" + seconds(fake.nanoTime()));
        for (Candidate c : candidates) {
            b.append("; ").append(c.identity).append(' ').append(c.elector.status());
        }
        return b.toString();
    }

    @Override
    public void close() {
        server.faults().clear();
        for (Candidate c : candidates) {
            c.partitioned = false;
            c.elector.stop();
            c.client.close();
        }
        observer.close();
        server.close();
    }

    /**
     * A {@link Clock} in front of the fake one that knows which threads wait on it and until when (a thread waits in
     * {@code awaitUntil} between registering and returning; the name is the thread's).
     */
    static final class TrackingClock implements Clock {
        final FakeClock fake;
        final Map<String, Long> waiting = new ConcurrentHashMap<>();

        TrackingClock(FakeClock fake) {
            this.fake = fake;
        }

        @Override
        public long nanoTime() {
            return fake.nanoTime();
        }

        @Override
        public Instant now() {
            return fake.now();
        }

        @Override
        public void awaitUntil(Lock lock, Condition condition, long deadlineNanos) throws InterruptedException {
            String name = Thread.currentThread().getName();
            waiting.put(name, deadlineNanos);
            try {
                fake.awaitUntil(lock, condition, deadlineNanos);
            } finally {
                waiting.remove(name);
            }
        }

        @Override
        public Scheduled schedule(Runnable task, Duration delay) {
            return fake.schedule(task, delay);
        }
    }
}
