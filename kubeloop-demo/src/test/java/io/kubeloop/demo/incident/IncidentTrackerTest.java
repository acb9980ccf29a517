package io.kubeloop.demo.incident;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kubeloop.clock.FakeClock;
import io.kubeloop.demo.DemoReport;
import io.kubeloop.demo.PodGuardian;
import io.kubeloop.demo.internal.incident.IncidentTracker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class IncidentTrackerTest {

    private static final String NS = "demo";
    private static final String SET = "web";

    private final FakeClock clock = new FakeClock();
    private final long start = clock.nanoTime();
    private final IncidentTracker tracker = new IncidentTracker(clock, start, 10);
    private final PodGuardian.Listener a = tracker.listenerFor("guardian-a");
    private final PodGuardian.Listener b = tracker.listenerFor("guardian-b");

    /** The clock's nanoTime after stepping {@code ms} milliseconds. */
    private long after(double ms) {
        clock.step(Duration.ofNanos(Math.round(ms * 1_000_000)));
        return clock.nanoTime();
    }

    @Test
    void followsAnIncidentThroughItsFiveInstants() {
        clock.step(Duration.ofSeconds(2));
        long t0 = clock.nanoTime();
        tracker.podGone(NS, "web-1", "uid-1", SET, "node-2", "killed", t0);
        long t1 = after(1.5);
        a.podDeletionSeen(NS, SET, "web-1", "uid-1", t1);
        long t2 = after(0.25);
        long t3 = after(3);
        a.podCreated(NS, SET, "web-r1", t2, t3);
        assertThat(tracker.open()).isEqualTo(1);
        long t4 = after(40);
        tracker.podRunning(NS, "web-r1", t4);

        assertThat(tracker.open()).isZero();
        assertThat(tracker.incidents())
                .containsExactly(new DemoReport.Incident(
                        "web-1",
                        "node-2",
                        "killed",
                        Duration.ofSeconds(20), // 2 s real × speed 10
                        "web-r1",
                        1.5,
                        1.75,
                        4.75,
                        44.75));
        List<DemoReport.Stage> stages = tracker.stages();
        assertThat(stages)
                .extracting(DemoReport.Stage::stage)
                .containsExactly(
                        "gone→seen",
                        "seen→reconcile",
                        "reconcile→created",
                        "created→running",
                        "gone→created",
                        "gone→running");
        assertThat(stages).extracting(DemoReport.Stage::maxMs).containsExactly(1.5, 0.25, 3.0, 40.0, 4.75, 44.75);
        assertThat(stages).allSatisfy(s -> assertThat(s.count()).isEqualTo(1));
    }

    @Test
    void unreachedStagesAreNullAndStagesWithoutSamplesAreNaN() {
        long t0 = after(1);
        tracker.podGone(NS, "web-1", "uid-1", SET, "node-1", "evicted", t0);

        DemoReport.Incident incident = tracker.incidents().getFirst();
        assertThat(incident.replacement()).isNull();
        assertThat(incident.informerSawMs()).isNull();
        assertThat(incident.reconcileStartedMs()).isNull();
        assertThat(incident.replacementCreatedMs()).isNull();
        assertThat(incident.replacementRunningMs()).isNull();
        assertThat(tracker.stages()).allSatisfy(s -> {
            assertThat(s.count()).isZero();
            assertThat(s.p50Ms()).isNaN();
            assertThat(s.p95Ms()).isNaN();
            assertThat(s.p99Ms()).isNaN();
            assertThat(s.maxMs()).isNaN();
        });
        assertThat(tracker.open()).isEqualTo(1);
    }

    @Test
    void earliestReportWinsForT0AndT1() {
        long early = after(1);
        long seenByB = after(2);
        long seenByA = after(3);
        long lateGone = after(4);
        // arrival order differs from instant order
        a.podDeletionSeen(NS, SET, "web-1", "uid-1", seenByA);
        tracker.podGone(NS, "web-1", "uid-1", SET, "node-1", "deleted", lateGone);
        b.podDeletionSeen(NS, SET, "web-1", "uid-1", seenByB);
        tracker.podGone(NS, "web-1", "uid-1", SET, "node-3", "killed", early);

        DemoReport.Incident incident = tracker.incidents().getFirst();
        assertThat(incident.at()).isEqualTo(Duration.ofMillis(10)); // 1 ms × 10
        assertThat(incident.informerSawMs()).isEqualTo(2.0); // seenByB − early
        assertThat(incident.cause()).isEqualTo("killed");
        assertThat(incident.node()).isEqualTo("node-1"); // the first node reported
        assertThat(tracker.incidents()).hasSize(1);
    }

    @Test
    void t1BeforeAnyT0OpensTheIncidentWithT0EqualToT1() {
        long seen = after(5);
        a.podDeletionSeen(NS, SET, "web-1", "uid-1", seen);

        DemoReport.Incident incident = tracker.incidents().getFirst();
        assertThat(incident.cause()).isEqualTo("deleted");
        assertThat(incident.node()).isNull();
        assertThat(incident.informerSawMs()).isEqualTo(0.0);
        assertThat(incident.at()).isEqualTo(Duration.ofMillis(50));

        // the demo's watch reports the eviction later, with an instant after t1: t0 stays t1, cause and node filled
        long goneLater = after(1);
        tracker.podGone(NS, "web-1", "uid-1", SET, "node-2", "evicted", goneLater);
        incident = tracker.incidents().getFirst();
        assertThat(incident.cause()).isEqualTo("evicted");
        assertThat(incident.node()).isEqualTo("node-2");
        assertThat(incident.informerSawMs()).isEqualTo(0.0);

        // an even earlier report lowers t0
        tracker.podGone(NS, "web-1", "uid-1", SET, null, "deleted", seen - 2_000_000);
        incident = tracker.incidents().getFirst();
        assertThat(incident.informerSawMs()).isEqualTo(2.0);
        assertThat(incident.cause()).as("deleted never overrides a known cause").isEqualTo("evicted");
    }

    @Test
    void replacementsGoToTheOldestOpenIncidentOfTheirPodSet() {
        long t0First = after(1);
        long t0Second = after(1);
        long t0Other = after(1);
        // reported out of order
        tracker.podGone(NS, "web-2", "uid-2", SET, "node-1", "killed", t0Second);
        tracker.podGone(NS, "api-1", "uid-3", "api", "node-1", "killed", t0Other);
        tracker.podGone(NS, "web-1", "uid-1", SET, "node-1", "killed", t0First);
        tracker.podGone("other", "web-9", "uid-9", SET, "node-1", "killed", t0First);

        long created = after(1);
        a.podCreated(NS, SET, "web-r1", created, created);
        a.podCreated(NS, SET, "web-r2", created, created);
        a.podCreated(NS, SET, "web-r3", created, created); // a scale-up: no incident left, ignored

        assertThat(tracker.incidents())
                .extracting(DemoReport.Incident::pod, DemoReport.Incident::replacement)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("web-1", "web-r1"),
                        org.assertj.core.groups.Tuple.tuple("web-9", null),
                        org.assertj.core.groups.Tuple.tuple("web-2", "web-r2"),
                        org.assertj.core.groups.Tuple.tuple("api-1", null));
        tracker.podRunning(NS, "web-r3", after(1));
        assertThat(tracker.open()).isEqualTo(4);
        tracker.podRunning(NS, "web-r2", after(1));
        tracker.podRunning(NS, "web-r1", after(1));
        assertThat(tracker.open()).isEqualTo(2);
    }

    @Test
    void creationsWithoutAnOpenIncidentAreIgnored() {
        long now = after(1);
        a.podCreated(NS, SET, "web-1", now, now);
        tracker.podRunning(NS, "web-1", after(1));
        assertThat(tracker.incidents()).isEmpty();
        assertThat(tracker.open()).isZero();

        // a later incident does not pick up the earlier creation
        tracker.podGone(NS, "web-1", "uid-1", SET, "node-1", "killed", after(1));
        assertThat(tracker.incidents().getFirst().replacement()).isNull();
    }

    @Test
    void runningReportedBeforeTheCreationCountsOnceTheCreationArrives() {
        long t0 = after(1);
        tracker.podGone(NS, "web-1", "uid-1", SET, "node-1", "killed", t0);
        long t2 = after(1);
        long t3 = after(1);
        long t4 = after(1);
        tracker.podRunning(NS, "web-r1", t4);
        tracker.podRunning(NS, "web-r1", after(1)); // a later report of the same pod
        a.podCreated(NS, SET, "web-r1", t2, t3);

        assertThat(tracker.incidents().getFirst().replacementRunningMs()).isEqualTo(3.0);
        assertThat(tracker.open()).isZero();
    }

    @Test
    void negativeDifferencesAreClampedToZero() {
        long reconcileStart = after(1); // a reconcile that began before the pod was gone created its replacement
        long t0 = after(1);
        tracker.podGone(NS, "web-1", "uid-1", SET, "node-1", "killed", t0);
        a.podDeletionSeen(NS, SET, "web-1", "uid-1", after(1));
        long created = after(1);
        a.podCreated(NS, SET, "web-r1", reconcileStart, created);

        DemoReport.Incident incident = tracker.incidents().getFirst();
        assertThat(incident.reconcileStartedMs()).isEqualTo(0.0);
        assertThat(incident.replacementCreatedMs()).isEqualTo(2.0);
        assertThat(tracker.stages().get(1).maxMs()).as("seen→reconcile").isEqualTo(0.0);
        assertThat(tracker.stages().get(2).maxMs()).as("reconcile→created").isEqualTo(3.0);
    }

    @Test
    void aReplacementGoneBeforeItRanClosesItsIncidentAndOpensItsOwn() {
        tracker.podGone(NS, "web-1", "uid-1", SET, "node-1", "killed", after(1));
        long created = after(1);
        a.podCreated(NS, SET, "web-r1", created, created);
        tracker.podGone(NS, "web-r1", "uid-r1", SET, "node-1", "killed", after(1));
        assertThat(tracker.open()).as("only the replacement's own incident").isEqualTo(1);
        long created2 = after(1);
        a.podCreated(NS, SET, "web-r2", created2, created2);
        tracker.podRunning(NS, "web-r2", after(1));
        tracker.podRunning(NS, "web-r1", after(1)); // too late: it is gone

        assertThat(tracker.open()).isZero();
        assertThat(tracker.incidents())
                .extracting(DemoReport.Incident::pod, DemoReport.Incident::replacement, i -> i.replacementRunningMs())
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("web-1", "web-r1", null),
                        org.assertj.core.groups.Tuple.tuple("web-r1", "web-r2", 2.0));
    }

    @Test
    void percentilesAreNearestRank() {
        // 1..100 ms gone→created over 100 incidents, reported in reverse
        long base = after(1);
        for (int i = 100; i >= 1; i--) {
            tracker.podGone(NS, "web-" + i, "uid-" + i, SET, "node-1", "killed", base + i);
        }
        for (int i = 1; i <= 100; i++) {
            long t0 = base + i;
            a.podCreated(NS, SET, "web-r" + i, t0, t0 + i * 1_000_000L);
        }
        DemoReport.Stage goneToCreated = tracker.stages().get(4);
        assertThat(goneToCreated.count()).isEqualTo(100);
        assertThat(goneToCreated.p50Ms()).isEqualTo(50.0);
        assertThat(goneToCreated.p95Ms()).isEqualTo(95.0);
        assertThat(goneToCreated.p99Ms()).isEqualTo(99.0);
        assertThat(goneToCreated.maxMs()).isEqualTo(100.0);
        DemoReport.Stage reconcileToCreated = tracker.stages().get(2);
        assertThat(reconcileToCreated.p50Ms()).isEqualTo(50.0);
    }

    @Test
    void percentilesOfFewSamplesPickAnActualSample() {
        // 3 samples: 10, 20, 30 ms → p50 = 2nd (⌈1.5⌉), p95 = p99 = 3rd
        long base = after(1);
        int[] ms = {30, 10, 20};
        for (int i = 0; i < ms.length; i++) {
            tracker.podGone(NS, "web-" + i, "uid-" + i, SET, "node-1", "killed", base + i);
        }
        for (int i = 0; i < ms.length; i++) {
            a.podCreated(NS, SET, "web-r" + i, base + i, base + i + ms[i] * 1_000_000L);
        }
        DemoReport.Stage stage = tracker.stages().get(4);
        assertThat(stage.count()).isEqualTo(3);
        assertThat(stage.p50Ms()).isEqualTo(20.0);
        assertThat(stage.p95Ms()).isEqualTo(30.0);
        assertThat(stage.p99Ms()).isEqualTo(30.0);
        assertThat(stage.maxMs()).isEqualTo(30.0);
    }

    @Test
    void rejectsBadInput() {
        assertThatThrownBy(() -> tracker.podGone(NS, "web-1", "uid-1", SET, "node-1", "exploded", 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("exploded");
        assertThatThrownBy(() -> tracker.podGone(NS, "web-1", "", SET, "node-1", "killed", 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("podUid");
        assertThatThrownBy(() -> new IncidentTracker(clock, 0, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("speed");
    }

    @Test
    void concurrentReportsFromSeveralThreadsLoseNothing() throws Exception {
        int pods = 400;
        long base = after(1);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<?>> futures = new ArrayList<>();
        try (ExecutorService pool = Executors.newFixedThreadPool(
                4, Thread.ofPlatform().name("tracker-test-", 0).factory())) {
            // the demo's watch: t0
            futures.add(pool.submit(() -> {
                go.await();
                for (int i = 0; i < pods; i++) {
                    tracker.podGone(NS, "web-" + i, "uid-" + i, SET, "node-1", "killed", base + i * 10_000L);
                }
                return null;
            }));
            // two operator instances: t1
            for (PodGuardian.Listener listener : List.of(a, b)) {
                futures.add(pool.submit(() -> {
                    go.await();
                    for (int i = 0; i < pods; i++) {
                        listener.podDeletionSeen(NS, SET, "web-" + i, "uid-" + i, base + i * 10_000L + 5_000);
                    }
                    return null;
                }));
            }
            // readers while it happens
            futures.add(pool.submit(() -> {
                go.await();
                for (int i = 0; i < 50; i++) {
                    tracker.stages();
                    tracker.incidents();
                    tracker.open();
                }
                return null;
            }));
            go.countDown();
            for (Future<?> f : futures) {
                f.get(30, TimeUnit.SECONDS);
            }
        }
        // the leader creates one replacement per incident, and the demo's watch sees each Running
        for (int i = 0; i < pods; i++) {
            long t = base + pods * 10_000L + i;
            a.podCreated(NS, SET, "web-r" + i, t, t + 1);
            tracker.podRunning(NS, "web-r" + i, t + 2);
        }
        assertThat(tracker.incidents()).hasSize(pods).allSatisfy(i -> {
            assertThat(i.informerSawMs()).isEqualTo(0.005);
            assertThat(i.replacementRunningMs()).isNotNull();
        });
        assertThat(tracker.open()).isZero();
        assertThat(tracker.stages().getFirst().count()).isEqualTo(pods);
    }
}
