package io.kubeloop.informer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ManagedFieldsEntryBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.kubeloop.clock.FakeClock;
import io.kubeloop.informer.cache.CacheMutationDetector;
import io.kubeloop.informer.cache.CacheMutationException;
import io.kubeloop.informer.cache.DeletedFinalStateUnknown;
import io.kubeloop.informer.reflector.Backoff;
import io.kubeloop.informer.testing.ApiErrors;
import io.kubeloop.informer.testing.FakeSource;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The informer's rules (client-go-semantics §5-§6) with a {@link FakeSource} behind the reflector and a
 * {@link FakeClock} for resyncs and backoff.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SharedIndexInformerTest {

    private static final Duration WAIT = Duration.ofSeconds(20);
    /** Backoff of 1 ms, no jitter: a test steps the fake clock by 1 ms to let the reflector retry. */
    private static final Backoff TEST_BACKOFF = Backoff.DEFAULT
            .withInitial(Duration.ofMillis(1))
            .withCap(Duration.ofMillis(1))
            .withJitter(0);

    private final FakeClock clock = new FakeClock();
    private final FakeSource<Pod> source = new FakeSource<>();
    private final TrackingThreadFactory threads = new TrackingThreadFactory();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final List<SharedIndexInformer<Pod>> informers = new ArrayList<>();

    @AfterEach
    void stopAll() {
        informers.forEach(SharedIndexInformer::stop);
        source.shutdown();
    }

    private SharedIndexInformer.Builder<Pod> builder() {
        return SharedIndexInformer.builder(source, Pod.class)
                .name("pods")
                .clock(clock)
                .threadFactory(threads)
                .meterRegistry(registry)
                .reflector(r -> r.backoff(TEST_BACKOFF));
    }

    private SharedIndexInformer<Pod> build(SharedIndexInformer.Builder<Pod> b) {
        SharedIndexInformer<Pod> informer = b.build();
        informers.add(informer);
        return informer;
    }

    private static Pod pod(String name) {
        return new PodBuilder()
                .withNewMetadata()
                .withNamespace("ns")
                .withName(name)
                .endMetadata()
                .withNewSpec()
                .withNodeName("node-1")
                .endSpec()
                .build();
    }

    private static Pod withLabel(Pod pod, String key, String value) {
        return new PodBuilder(pod)
                .editMetadata()
                .addToLabels(key, value)
                .endMetadata()
                .build();
    }

    /** Waits for {@code condition}, stepping the fake clock by 1 ms whenever the reflector is backing off. */
    private void awaitStepping(SharedIndexInformer<Pod> informer, BooleanSupplier condition) {
        await().atMost(WAIT).pollInterval(Duration.ofMillis(5)).until(() -> {
            if (condition.getAsBoolean()) {
                return true;
            }
            if (informer.health().state() == InformerHealth.State.BACKING_OFF && clock.hasWaiters()) {
                clock.step(Duration.ofMillis(1));
            }
            return false;
        });
    }

    private void awaitSyncedAndWatching(SharedIndexInformer<Pod> informer) {
        awaitStepping(informer, () -> informer.hasSynced() && informer.isWatching());
    }

    // ---- the path of an event --------------------------------------------------------------------------------------

    @Test
    void initialListThenLiveEventsReachHandlersAfterTheCache() {
        Pod a = source.add(pod("a"));
        Pod b = source.add(pod("b"));
        SharedIndexInformer<Pod> informer = build(builder());
        Recorder<Pod> handler = new Recorder<Pod>().checking(informer.indexer());
        ResourceEventHandlerRegistration registration = informer.addEventHandler(handler);
        informer.start();
        awaitSyncedAndWatching(informer);
        await().atMost(WAIT).until(registration::hasSynced);
        assertThat(handler.events()).containsExactly("add ns/a rv=1 initial", "add ns/b rv=2 initial");

        source.add(pod("c"));
        source.modify(withLabel(a, "x", "1"));
        source.delete(b);
        await().atMost(WAIT).until(() -> handler.events.size() == 5);
        assertThat(handler.events())
                .containsExactly(
                        "add ns/a rv=1 initial",
                        "add ns/b rv=2 initial",
                        "add ns/c rv=3",
                        "update ns/a 1->4",
                        "delete ns/b rv=5");
        assertThat(handler.cacheViolations()).isEmpty();
        assertThat(informer.indexer().listKeys()).containsExactlyInAnyOrder("ns/a", "ns/c");
        assertThat(informer.lister().namespace("ns").get("a"))
                .get()
                .extracting(Recorder::rv)
                .isEqualTo("4");
        assertThat(informer.lastSyncResourceVersion()).isEqualTo("5");
    }

    @Test
    void registrationSyncsOnlyWhenItsHandlerHasReturnedFromTheInitialAdds() throws Exception {
        source.add(pod("a"));
        source.add(pod("b"));
        SharedIndexInformer<Pod> informer = build(builder());
        CountDownLatch release = new CountDownLatch(1);
        ResourceEventHandlerRegistration slow = informer.addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(Pod object, boolean isInInitialList) {
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        });
        ResourceEventHandlerRegistration fast = informer.addEventHandler(new Recorder<>());
        informer.start();
        awaitSyncedAndWatching(informer);
        await().atMost(WAIT).until(fast::hasSynced);
        assertThat(informer.hasSynced()).isTrue();
        assertThat(slow.hasSynced()).isFalse();
        release.countDown();
        await().atMost(WAIT).until(slow::hasSynced);
    }

    /** An index function that blocks on the object named {@code blockOn} until released; counts its calls. */
    private static final class BlockingIndex {
        final AtomicInteger calls = new AtomicInteger();
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        private final String blockOn;

        BlockingIndex(String blockOn) {
            this.blockOn = blockOn;
        }

        List<String> values(Pod pod) {
            calls.incrementAndGet();
            if (pod.getMetadata().getName().equals(blockOn)) {
                entered.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return List.of();
        }
    }

    @Test
    void informerSyncsOnlyOnceTheLastInitialObjectsProcessingHasReturned() throws Exception {
        for (int i = 0; i < 5; i++) {
            source.add(pod("p" + i));
        }
        BlockingIndex index = new BlockingIndex("p4");
        SharedIndexInformer<Pod> informer = build(builder().indexers(Map.of("blocking", index::values)));
        ResourceEventHandlerRegistration r = informer.addEventHandler(new Recorder<>());
        informer.start();
        assertThat(index.entered.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
        assertThat(informer.indexer().listKeys()).hasSize(4); // p0..p3 processed, p4 being written
        assertThat(informer.hasSynced()).isFalse();
        assertThat(r.hasSynced()).isFalse();
        index.release.countDown();
        awaitSyncedAndWatching(informer);
        await().atMost(WAIT).until(r::hasSynced);
    }

    @Test
    void stopWithABacklogEndsTheProcessLoopWithoutDrainingTheFifo() throws Exception {
        int n = 2000;
        for (int i = 0; i < n; i++) {
            source.add(pod("p" + i));
        }
        BlockingIndex index = new BlockingIndex("p0");
        SharedIndexInformer<Pod> informer = build(builder().indexers(Map.of("blocking", index::values)));
        Recorder<Pod> handler = new Recorder<>();
        informer.addEventHandler(handler);
        informer.start();
        assertThat(index.entered.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue(); // the whole list is queued
        Thread stopper = Thread.ofVirtual().name("test-stopper").start(informer::stop);
        await().atMost(WAIT).until(informer::isStopped);
        index.release.countDown();
        assertThat(stopper.join(WAIT)).isTrue();
        assertThat(threads.alive()).isEmpty();
        // The object being written when stop came is finished; none of the 1999 queued behind it is processed.
        assertThat(index.calls.get()).isLessThanOrEqualTo(2);
        assertThat(informer.indexer().listKeys()).hasSizeLessThanOrEqualTo(1);
    }

    @Test
    void aCachedObjectMutatedInPlaceIsReportedAndItsNextChangeStillReachesCacheAndHandlers() {
        Pod a = source.add(pod("a"));
        SharedIndexInformer<Pod> informer = build(builder());
        Recorder<Pod> handler = new Recorder<>();
        informer.addEventHandler(handler);
        informer.start();
        awaitSyncedAndWatching(informer);
        await().atMost(WAIT).until(() -> handler.events.size() == 1);

        Pod cached = informer.lister().namespace("ns").get("a").orElseThrow();
        cached.getMetadata().setLabels(Map.of("mutated", "in-place")); // what a careless handler might do
        source.modify(withLabel(a, "x", "1")); // the write replacing it finds the mutation
        source.add(pod("b"));
        await().atMost(WAIT).until(() -> handler.events.size() == 3);
        assertThat(handler.events()).containsExactly("add ns/a rv=1 initial", "update ns/a 1->2", "add ns/b rv=3");
        assertThat(informer.lister().namespace("ns").get("a"))
                .get()
                .extracting(Recorder::rv)
                .isEqualTo("2");
        assertThat(registry.get("informer.cache.objects")
                        .tags("name", "pods")
                        .gauge()
                        .value())
                .isEqualTo(2.0);
        // Reported (and consumed here, so the suite's after-each check does not fail this test).
        assertThatThrownBy(CacheMutationDetector::checkNow)
                .isInstanceOf(CacheMutationException.class)
                .hasMessageContaining("ns/a");
    }

    @Test
    void aReflectorKilledByAnErrorIsReportedInTheHealthNotLeftSilent() {
        source.add(pod("a"));
        SharedIndexInformer<Pod> informer = build(builder().transform(pod -> {
            if (pod.getMetadata().getName().equals("poison")) {
                throw new AssertionError("transform cannot handle poison");
            }
            return pod;
        }));
        informer.start();
        awaitSyncedAndWatching(informer);
        assertThat(informer.health().isReady()).isTrue();
        source.add(pod("poison")); // an Error, not an exception: the reflector's retries do not cover it
        await().atMost(WAIT).until(() -> informer.health().state() == InformerHealth.State.STOPPED);
        InformerHealth health = informer.health();
        assertThat(health.lastError()).contains("AssertionError").contains("poison");
        assertThat(health.isReady()).isFalse();
        assertThat(informer.isStopped()).isFalse(); // nobody stopped it: that is the point of the report
    }

    @Test
    void registrationIsNotSyncedBeforeTheInformer() {
        SharedIndexInformer<Pod> informer = build(builder());
        ResourceEventHandlerRegistration r = informer.addEventHandler(new Recorder<>());
        assertThat(r.hasSynced()).isFalse();
        assertThat(informer.hasSynced()).isFalse();
        informer.start();
        awaitSyncedAndWatching(informer); // an empty list syncs too
        await().atMost(WAIT).until(r::hasSynced);
    }

    // ---- handlers added late ------------------------------------------------------------------------------------

    @Test
    void handlerAddedAfterStartGetsTheCacheAsInitialAddsThenTheChanges() {
        source.add(pod("a"));
        source.add(pod("b"));
        SharedIndexInformer<Pod> informer = build(builder());
        informer.start();
        awaitSyncedAndWatching(informer);
        source.add(pod("c"));
        await().atMost(WAIT).until(() -> informer.indexer().listKeys().size() == 3);

        Recorder<Pod> late = new Recorder<Pod>().checking(informer.indexer());
        ResourceEventHandlerRegistration r = informer.addEventHandler(late);
        await().atMost(WAIT).until(r::hasSynced);
        assertThat(late.events())
                .containsExactlyInAnyOrder("add ns/a rv=1 initial", "add ns/b rv=2 initial", "add ns/c rv=3 initial");
        source.modify(withLabel(pod("a"), "x", "1"));
        await().atMost(WAIT).until(() -> late.events.size() == 4);
        assertThat(late.events().get(3)).isEqualTo("update ns/a 1->4");
    }

    @Test
    void handlerAddedMidStreamSeesEveryObjectOnceThenEveryLaterChangeWithNoGap() throws Exception {
        int objects = 50;
        for (int i = 0; i < objects; i++) {
            source.add(pod("p" + i));
        }
        SharedIndexInformer<Pod> informer = build(builder());
        informer.start();
        awaitSyncedAndWatching(informer);

        AtomicReference<Recorder<Pod>> late = new AtomicReference<>();
        Thread writer = Thread.ofVirtual().name("test-writer").start(() -> {
            for (int round = 0; round < 40; round++) {
                for (int i = 0; i < objects; i++) {
                    source.modify(withLabel(pod("p" + i), "round", Integer.toString(round)));
                }
            }
        });
        await().atMost(WAIT).until(() -> Long.parseLong(informer.lastSyncResourceVersion()) > objects + 200);
        Recorder<Pod> recorder = new Recorder<Pod>().checking(informer.indexer());
        late.set(recorder);
        informer.addEventHandler(recorder);
        writer.join(WAIT);
        String last = source.lastResourceVersion();
        await().atMost(WAIT)
                .until(() -> informer.lastSyncResourceVersion().equals(last)
                        && informer.indexer().list().stream().allMatch(p -> p.getMetadata()
                                .getResourceVersion()
                                .equals(recorder.lastView.get(
                                        "ns/" + p.getMetadata().getName()))));

        Map<String, List<String>> perKey = new HashMap<>();
        for (String e : recorder.events()) {
            perKey.computeIfAbsent(e.split(" ")[1], k -> new ArrayList<>()).add(e);
        }
        assertThat(perKey).hasSize(objects);
        perKey.forEach((key, events) -> {
            assertThat(events.getFirst()).as(key).startsWith("add " + key).endsWith("initial");
            assertThat(events.subList(1, events.size())).as(key).allMatch(e -> e.startsWith("update " + key));
            // each update continues exactly from the previous view: no gap, no duplicate
            String previous = events.getFirst().replaceAll(".* rv=(\\d+).*", "$1");
            for (String u : events.subList(1, events.size())) {
                String[] rvs = u.split(" ")[2].split("->");
                assertThat(rvs[0]).as(u).isEqualTo(previous);
                assertThat(Long.parseLong(rvs[1])).as(u).isGreaterThan(Long.parseLong(rvs[0]));
                previous = rvs[1];
            }
        });
        assertThat(recorder.cacheViolations()).isEmpty();
    }

    // ---- resync ---------------------------------------------------------------------------------------------------

    /** Steps the fake clock by {@code d} once the reflector's resync timer is waiting on it. */
    private void stepResync(Duration d) {
        await().atMost(WAIT).until(clock::hasWaiters);
        clock.step(d);
    }

    @Test
    void resyncReachesOnlyTheHandlersThatAreDue() {
        source.add(pod("a"));
        source.add(pod("b"));
        SharedIndexInformer<Pod> informer = build(builder().resyncPeriod(Duration.ofSeconds(10)));
        Recorder<Pod> every10 = new Recorder<>();
        Recorder<Pod> never = new Recorder<>();
        Recorder<Pod> every30 = new Recorder<>();
        ResourceEventHandlerRegistration r10 = informer.addEventHandler(every10);
        ResourceEventHandlerRegistration r0 = informer.addEventHandlerWithResyncPeriod(never, Duration.ZERO);
        ResourceEventHandlerRegistration r30 =
                informer.addEventHandlerWithResyncPeriod(every30, Duration.ofSeconds(30));
        assertThat(List.of(r10.resyncPeriod(), r0.resyncPeriod(), r30.resyncPeriod()))
                .containsExactly(Duration.ofSeconds(10), Duration.ZERO, Duration.ofSeconds(30));
        informer.start();
        awaitSyncedAndWatching(informer);

        for (int tick = 1; tick <= 3; tick++) {
            stepResync(Duration.ofSeconds(10));
            int expected = 2 * tick;
            await().atMost(WAIT)
                    .until(() -> every10.eventsStartingWith("update").size() == expected);
        }
        await().atMost(WAIT).until(() -> every30.eventsStartingWith("update").size() == 2);
        assertThat(every10.eventsStartingWith("update")).containsOnly("update ns/a 1->1", "update ns/b 2->2");
        assertThat(every30.eventsStartingWith("update"))
                .containsExactlyInAnyOrder("update ns/a 1->1", "update ns/b 2->2");
        assertThat(never.eventsStartingWith("update")).isEmpty();
        assertThat(registry.get("cache.resync.count")
                        .tag("name", "pods")
                        .gauge()
                        .value())
                .isEqualTo(3.0);
        assertThat(registry.get("informer.notifications")
                        .tags("name", "pods", "type", "sync")
                        .counter()
                        .count())
                .isEqualTo(6.0);
    }

    record ResyncCase(
            String description,
            Duration informer,
            List<Duration> beforeStart,
            List<Duration> afterStart,
            List<Duration> expected) {}

    @Test
    void resyncPeriodsFollowClientGosDerivation() {
        Duration s1 = Duration.ofSeconds(1);
        Duration s3 = Duration.ofSeconds(3);
        Duration s5 = Duration.ofSeconds(5);
        Duration s10 = Duration.ofSeconds(10);
        Duration s25 = Duration.ofSeconds(25);
        Duration ms500 = Duration.ofMillis(500);
        Duration zero = Duration.ZERO;
        List<ResyncCase> cases = List.of(
                new ResyncCase(
                        "no informer resync: nobody resyncs",
                        zero,
                        List.of(s5, zero),
                        List.of(s5),
                        List.of(zero, zero, zero)),
                new ResyncCase(
                        "a handler asking for 0 never resyncs", s10, List.of(zero), List.of(zero), List.of(zero, zero)),
                new ResyncCase(
                        "more than the check period: as asked", s10, List.of(s25), List.of(s25), List.of(s25, s25)),
                new ResyncCase(
                        "less before start lowers the check period; earlier handlers keep theirs",
                        s10,
                        List.of(s10, s3, s5),
                        List.of(),
                        List.of(s10, s3, s5)),
                new ResyncCase(
                        "below 1 s is raised to 1 s, which becomes the check period",
                        s10,
                        List.of(s3, ms500),
                        List.of(),
                        List.of(s3, s1)),
                new ResyncCase(
                        "less after start is raised to the check period",
                        s10,
                        List.of(),
                        List.of(s5, ms500),
                        List.of(s10, s10)));
        for (ResyncCase c : cases) {
            SharedIndexInformer<Pod> informer =
                    build(builder().name(c.description()).resyncPeriod(c.informer()));
            List<ResourceEventHandlerRegistration> registrations = new ArrayList<>();
            c.beforeStart()
                    .forEach(d -> registrations.add(informer.addEventHandlerWithResyncPeriod(new Recorder<>(), d)));
            informer.start();
            c.afterStart()
                    .forEach(d -> registrations.add(informer.addEventHandlerWithResyncPeriod(new Recorder<>(), d)));
            assertThat(registrations)
                    .as(c.description())
                    .extracting(ResourceEventHandlerRegistration::resyncPeriod)
                    .containsExactlyElementsOf(c.expected());
            informer.stop();
        }
    }

    @Test
    void aHandlerMayStopItsInformer() {
        source.add(pod("a"));
        SharedIndexInformer<Pod> informer = build(builder());
        informer.addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(Pod object, boolean isInInitialList) {
                informer.stop();
            }
        });
        informer.start();
        await().atMost(WAIT).until(informer::isStopped);
        await().atMost(WAIT).until(() -> threads.alive().isEmpty());
        assertThat(informer.health().state()).isEqualTo(InformerHealth.State.STOPPED);
    }

    @Test
    void informerWithoutResyncNeverResyncsWhateverItsHandlersAsk() {
        source.add(pod("a"));
        SharedIndexInformer<Pod> informer = build(builder());
        Recorder<Pod> handler = new Recorder<>();
        ResourceEventHandlerRegistration r = informer.addEventHandlerWithResyncPeriod(handler, Duration.ofSeconds(5));
        assertThat(r.resyncPeriod()).isZero();
        informer.start();
        awaitSyncedAndWatching(informer);
        clock.step(Duration.ofMinutes(10));
        source.add(pod("b")); // a marker: everything before it was processed when it arrives
        await().atMost(WAIT).until(() -> handler.events.size() == 2);
        assertThat(handler.events()).containsExactly("add ns/a rv=1 initial", "add ns/b rv=2");
    }

    @Test
    void relistDeliversChangesToEveryHandlerUnchangedObjectsOnlyToDueOnesAndTombstonesForTheDeleted() {
        Pod a = source.add(pod("a"));
        Pod b = source.add(pod("b"));
        source.add(pod("c"));
        SharedIndexInformer<Pod> informer = build(builder().resyncPeriod(Duration.ofSeconds(10)));
        Recorder<Pod> due = new Recorder<Pod>().checking(informer.indexer());
        Recorder<Pod> notDue = new Recorder<Pod>().checking(informer.indexer());
        informer.addEventHandler(due);
        informer.addEventHandlerWithResyncPeriod(notDue, Duration.ZERO);
        List<Object> deleted = new ArrayList<>();
        informer.addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onDelete(Object object) {
                deleted.add(object);
            }
        });
        informer.start();
        awaitSyncedAndWatching(informer);
        // One resync tick: `due` is flagged as syncing until the next tick, `notDue` is not.
        stepResync(Duration.ofSeconds(10));
        await().atMost(WAIT).until(() -> due.eventsStartingWith("update").size() == 3);
        due.events.clear();

        // While the watch is down: a changes, b is deleted, d appears; c stays as it was.
        source.modifyDropWatch(withLabel(a, "x", "1"));
        source.deleteDropWatch(b);
        source.addDropWatch(pod("d"));
        int listsBefore = source.listCalls();
        source.resetWatch(); // the watch ends and its history is gone: the re-watch gets 410, the reflector relists
        awaitStepping(
                informer,
                () -> source.listCalls() > listsBefore
                        && informer.isWatching()
                        && informer.indexer().listKeys().size() == 3
                        && notDue.events.size() == 6);
        await().atMost(WAIT).until(() -> due.events.size() == 4);

        assertThat(due.events())
                .containsExactlyInAnyOrder(
                        "update ns/a 1->4", "delete ns/b tombstone", "add ns/d rv=6", "update ns/c 3->3");
        assertThat(notDue.events().subList(3, 6))
                .containsExactlyInAnyOrder("update ns/a 1->4", "delete ns/b tombstone", "add ns/d rv=6");
        assertThat(deleted).singleElement().isInstanceOfSatisfying(DeletedFinalStateUnknown.class, t -> {
            assertThat(t.key()).isEqualTo("ns/b");
            assertThat(((Pod) t.object()).getMetadata().getResourceVersion()).isEqualTo("2");
        });
        assertThat(informer.indexer().listKeys()).containsExactlyInAnyOrder("ns/a", "ns/c", "ns/d");
        assertThat(due.cacheViolations()).isEmpty();
        assertThat(notDue.cacheViolations()).isEmpty();
    }

    /**
     * onDelete comes in client-go's form (Object, maybe a tombstone) and a typed one (T, finalStateUnknown): a
     * handler overriding either gets every deletion exactly once, there; one overriding both gets it in the
     * client-go form only.
     */
    @Test
    void everyDeletionReachesExactlyOneOnDeleteFormTypedOrClientGos() {
        Pod a = source.add(pod("a"));
        Pod b = source.add(pod("b"));
        SharedIndexInformer<Pod> informer = build(builder());
        List<String> typed = new java.util.concurrent.CopyOnWriteArrayList<>();
        List<String> untyped = new java.util.concurrent.CopyOnWriteArrayList<>();
        List<String> both = new java.util.concurrent.CopyOnWriteArrayList<>();
        informer.addEventHandler(new ResourceEventHandler<Pod>() {
            @Override
            public void onDelete(Pod pod, boolean finalStateUnknown) {
                typed.add(pod.getMetadata().getName() + "@" + pod.getMetadata().getResourceVersion()
                        + (finalStateUnknown ? " unknown" : " final"));
            }
        });
        informer.addEventHandler(new ResourceEventHandler<Pod>() {
            @Override
            public void onDelete(Object object) {
                untyped.add(
                        object instanceof DeletedFinalStateUnknown<?> t
                                ? "tombstone " + t.key()
                                : ((Pod) object).getMetadata().getName());
            }
        });
        informer.addEventHandler(new ResourceEventHandler<Pod>() {
            @Override
            public void onDelete(Object object) {
                both.add("untyped");
            }

            @Override
            public void onDelete(Pod pod, boolean finalStateUnknown) {
                both.add("typed");
            }
        });
        informer.start();
        awaitSyncedAndWatching(informer);

        source.delete(a); // seen by the watch: the final state is known
        source.deleteDropWatch(b); // missed by the watch: the relist infers it with a tombstone
        int lists = source.listCalls();
        source.resetWatch();
        awaitStepping(
                informer,
                () -> source.listCalls() > lists
                        && informer.isWatching()
                        && typed.size() == 2
                        && untyped.size() == 2
                        && both.size() == 2);

        assertThat(typed).containsExactly("a@3 final", "b@2 unknown");
        assertThat(untyped).containsExactly("a", "tombstone ns/b");
        assertThat(both).containsExactly("untyped", "untyped");
    }

    @Test
    void anObjectDeletedAndCreatedAgainWhileTheWatchWasDownArrivesAsAnUpdateAfterTheRelist() {
        Pod a = source.add(pod("a"));
        SharedIndexInformer<Pod> informer = build(builder());
        Recorder<Pod> handler = new Recorder<Pod>().checking(informer.indexer());
        informer.addEventHandler(handler);
        informer.start();
        awaitSyncedAndWatching(informer);
        source.deleteDropWatch(a);
        source.addDropWatch(new PodBuilder(pod("a"))
                .editMetadata()
                .withUid("second")
                .endMetadata()
                .build());
        int lists = source.listCalls();
        source.resetWatch();
        awaitStepping(informer, () -> source.listCalls() > lists && handler.events.size() == 2);
        // client-go: the key is known and the relist has it with another resourceVersion, so it is an update
        assertThat(handler.events()).containsExactly("add ns/a rv=1 initial", "update ns/a 1->3");
        assertThat(informer.indexer().getByKey("ns/a"))
                .get()
                .extracting(p -> p.getMetadata().getUid())
                .isEqualTo("second");
        assertThat(handler.cacheViolations()).isEmpty();
    }

    @Test
    void beforeTheFirstResyncTickAnUnchangedObjectOfARelistReachesEveryHandler() {
        // client-go §6.6: a listener's syncing flag is true from registration until the first tick.
        source.add(pod("a"));
        SharedIndexInformer<Pod> informer = build(builder());
        Recorder<Pod> handler = new Recorder<>();
        informer.addEventHandler(handler);
        informer.start();
        awaitSyncedAndWatching(informer);
        int lists = source.listCalls();
        source.resetWatch();
        awaitStepping(informer, () -> source.listCalls() > lists && handler.events.size() == 2);
        assertThat(handler.events()).containsExactly("add ns/a rv=1 initial", "update ns/a 1->1");
    }

    // ---- removal, failures, slow handlers ----------------------------------------------------------------------

    @Test
    void removedHandlerGetsNothingMoreAndItsDispatcherEnds() {
        SharedIndexInformer<Pod> informer = build(builder());
        Recorder<Pod> removed = new Recorder<>();
        Recorder<Pod> kept = new Recorder<>();
        ResourceEventHandlerRegistration r = informer.addEventHandler(removed);
        informer.addEventHandler(kept);
        informer.start();
        awaitSyncedAndWatching(informer);
        source.add(pod("a"));
        await().atMost(WAIT).until(() -> removed.events.size() == 1 && kept.events.size() == 1);
        assertThat(threads.isAlive(r.name())).isTrue();

        r.remove();
        assertThat(r.isActive()).isFalse();
        await().atMost(WAIT).until(() -> !threads.isAlive("handler[" + r.name() + "]"));
        source.add(pod("b"));
        await().atMost(WAIT).until(() -> kept.events.size() == 2);
        assertThat(removed.events()).containsExactly("add ns/a rv=1");

        informer.removeEventHandler(r); // again: a no-op
        SharedIndexInformer<Pod> other = build(builder().name("other"));
        other.removeEventHandler(informer.addEventHandler(new Recorder<>())); // foreign: a no-op
        assertThat(informer.health().state()).isEqualTo(InformerHealth.State.WATCHING);
    }

    @Test
    void handlerExceptionIsCountedAndTheHandlerCarriesOn() {
        SharedIndexInformer<Pod> informer = build(builder());
        List<String> seen = new ArrayList<>();
        ResourceEventHandlerRegistration r = informer.addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(Pod object, boolean isInInitialList) {
                seen.add(object.getMetadata().getName());
                if (object.getMetadata().getName().equals("bad")) {
                    throw new IllegalStateException("boom");
                }
            }
        });
        informer.start();
        awaitSyncedAndWatching(informer);
        source.add(pod("bad"));
        source.add(pod("good"));
        await().atMost(WAIT).until(() -> seen.size() == 2);
        assertThat(seen).containsExactly("bad", "good");
        assertThat(registry.get("informer.handler.errors")
                        .tags("name", "pods", "handler", r.name())
                        .counter()
                        .count())
                .isEqualTo(1.0);
        assertThat(registry.get("informer.handler.duration")
                        .tags("name", "pods", "handler", r.name())
                        .timer()
                        .count())
                .isEqualTo(2);
    }

    @Test
    void aBlockedHandlerDelaysNoOtherHandlerNorTheCache() throws Exception {
        SharedIndexInformer<Pod> informer = build(builder());
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger blockedCalls = new AtomicInteger();
        ResourceEventHandlerRegistration blocked = informer.addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(Pod object, boolean isInInitialList) {
                blockedCalls.incrementAndGet();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        });
        AtomicInteger fastAdds = new AtomicInteger();
        informer.addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(Pod object, boolean isInInitialList) {
                fastAdds.incrementAndGet();
            }
        });
        informer.start();
        awaitSyncedAndWatching(informer);
        int n = 10_000;
        for (int i = 0; i < n; i++) {
            source.add(pod("p" + i));
        }
        await().atMost(WAIT).until(() -> fastAdds.get() == n);
        assertThat(informer.indexer().listKeys()).hasSize(n);
        assertThat(informer.lastSyncResourceVersion()).isEqualTo(Integer.toString(n));
        assertThat(blockedCalls.get()).isEqualTo(1);
        assertThat(registry.get("informer.handler.buffer.length")
                        .tags("name", "pods", "handler", blocked.name())
                        .gauge()
                        .value())
                .as("the one in the blocked call counts too")
                .isEqualTo(n);
        assertThat(registry.get("informer.cache.objects")
                        .tag("name", "pods")
                        .gauge()
                        .value())
                .isEqualTo(n);

        release.countDown();
        await().atMost(WAIT).until(() -> blockedCalls.get() == n);
    }

    // ---- transform, indexers, life cycle ---------------------------------------------------------------------

    @Test
    void transformRunsBeforeTheCacheAndTheHandlersOnListedAndWatchedObjects() {
        Pod withFields = new PodBuilder(pod("a"))
                .editMetadata()
                .addToManagedFields(new ManagedFieldsEntryBuilder()
                        .withManager("kubectl")
                        .withOperation("Update")
                        .build())
                .endMetadata()
                .build();
        source.add(withFields);
        SharedIndexInformer<Pod> informer = build(builder());
        informer.setTransform(p -> {
            Transforms.<Pod>stripManagedFields().apply(p);
            p.getMetadata().setLabels(Map.of("seen", "yes"));
            return p;
        });
        List<Pod> delivered = new ArrayList<>();
        informer.addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(Pod object, boolean isInInitialList) {
                delivered.add(object);
            }
        });
        informer.start();
        awaitSyncedAndWatching(informer);
        source.add(new PodBuilder(withFields)
                .editMetadata()
                .withName("b")
                .endMetadata()
                .build());
        await().atMost(WAIT).until(() -> delivered.size() == 2);
        assertThat(delivered).allSatisfy(p -> {
            assertThat(p.getMetadata().getManagedFields()).isNullOrEmpty();
            assertThat(p.getMetadata().getLabels()).containsEntry("seen", "yes");
        });
        assertThat(informer.indexer().list())
                .allSatisfy(p -> assertThat(p.getMetadata().getLabels()).containsEntry("seen", "yes"));
        assertThatThrownBy(() -> informer.setTransform(p -> p))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("has already started");
        assertThatThrownBy(() -> informer.setWatchErrorHandler((n, e) -> {}))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("has already started");
    }

    @Test
    void indexersAddedAfterStartIndexTheCurrentAndLaterObjects() {
        source.add(pod("a"));
        SharedIndexInformer<Pod> informer = build(builder());
        informer.start();
        awaitSyncedAndWatching(informer);
        informer.addIndexers(Map.of("node", p -> List.of(p.getSpec().getNodeName())));
        source.add(pod("b"));
        await().atMost(WAIT).until(() -> informer.indexer().listKeys().size() == 2);
        assertThat(informer.indexer().byIndex("node", "node-1"))
                .extracting(p -> p.getMetadata().getName())
                .containsExactlyInAnyOrder("a", "b");
        assertThat(informer.lister().namespace("ns").list()).hasSize(2);
        assertThatThrownBy(() -> informer.addIndexers(Map.of("node", p -> List.of())))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theNamespaceIndexIsBuiltInAndCannotBeReplaced() {
        assertThatThrownBy(() -> builder().indexers(Map.of("namespace", p -> List.of())))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("built in");
        SharedIndexInformer<Pod> informer = build(builder());
        assertThat(informer.indexer().indexers()).containsKey("namespace");
    }

    @Test
    void lifeCycleRules() {
        SharedIndexInformer<Pod> informer = build(builder());
        assertThat(informer.health().state()).isEqualTo(InformerHealth.State.NOT_STARTED);
        assertThat(informer.lastSyncResourceVersion()).isEmpty();
        assertThat(informer.isWatching()).isFalse();
        informer.start();
        informer.start(); // a no-op
        awaitSyncedAndWatching(informer);
        informer.stop();
        informer.stop(); // idempotent
        assertThat(informer.isStopped()).isTrue();
        assertThat(informer.health().state()).isEqualTo(InformerHealth.State.STOPPED);
        assertThatThrownBy(informer::start)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("cannot be restarted");
        assertThatThrownBy(() -> informer.addEventHandler(new Recorder<>()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("has stopped already");
        assertThatThrownBy(() -> informer.addIndexers(Map.of("x", p -> List.of())))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("has stopped already");
        assertThatThrownBy(() -> builder().resyncPeriod(Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("resyncPeriod");
    }

    @Test
    void stopLeavesNoThreadAndNoWatchBehindAndRemovesTheMeters() {
        source.add(pod("a"));
        SharedIndexInformer<Pod> informer = build(builder().resyncPeriod(Duration.ofSeconds(30)));
        CountDownLatch never = new CountDownLatch(1);
        informer.addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(Pod object, boolean isInInitialList) {
                try {
                    never.await(); // released only by the interrupt of stop()
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        });
        informer.addEventHandler(new Recorder<>());
        informer.start();
        awaitSyncedAndWatching(informer);
        await().atMost(WAIT).until(clock::hasWaiters); // the resync thread runs too
        assertThat(threads.names())
                .anyMatch(n -> n.endsWith("-process"))
                .anyMatch(n -> n.endsWith("-reflector"))
                .anyMatch(n -> n.contains("-handler["))
                .anyMatch(n -> n.endsWith("-reflector-resync"));
        assertThat(source.openWatches()).isEqualTo(1);

        informer.stop();
        assertThat(threads.alive()).isEmpty();
        assertThat(source.openWatches()).isZero();
        assertThat(registry.find("informer.cache.objects").gauges()).isEmpty();
        assertThat(registry.find("informer.handler.buffer.length").gauges()).isEmpty();
    }

    @Test
    void healthShowsBackoffWithTheLastErrorThenWatchingAndSynced() {
        source.setListError(ApiErrors.forbidden());
        SharedIndexInformer<Pod> informer = build(builder());
        informer.start();
        await().atMost(WAIT).until(() -> informer.health().state() == InformerHealth.State.BACKING_OFF);
        InformerHealth backingOff = informer.health();
        assertThat(backingOff.lastError()).isNotBlank();
        assertThat(backingOff.consecutiveFailures()).isPositive();
        assertThat(backingOff.synced()).isFalse();
        assertThat(backingOff.isReady()).isFalse();

        source.setListError(null);
        awaitSyncedAndWatching(informer);
        InformerHealth watching = informer.health();
        assertThat(watching.state()).isEqualTo(InformerHealth.State.WATCHING);
        assertThat(watching.synced()).isTrue();
        assertThat(watching.syncedAt()).isNotNull();
        assertThat(watching.isReady()).isTrue();
        assertThat(watching.name()).isEqualTo("pods");
    }

    @Test
    void waitForCacheSyncOnAFakeClockNobodyStepsReturnsOnceTheCachesSynced() throws Exception {
        FakeClock still = new FakeClock();
        java.util.concurrent.atomic.AtomicBoolean synced = new java.util.concurrent.atomic.AtomicBoolean();
        AtomicReference<Boolean> result = new AtomicReference<>();
        Thread waiter = Thread.ofVirtual()
                .name("test-wait")
                .start(() ->
                        result.set(SharedIndexInformer.waitForCacheSync(still, Duration.ofMinutes(2), synced::get)));
        await().atMost(WAIT).until(still::hasWaiters);
        synced.set(true);
        waiter.join(WAIT);
        assertThat(result.get()).isTrue();
        assertThat(still.hasWaiters()).isFalse();
    }

    @Test
    void waitForCacheSyncReturnsTrueWhenAllSyncAndFalseAfterTheTimeout() throws Exception {
        assertThat(SharedIndexInformer.waitForCacheSync(Duration.ofSeconds(1), () -> true, () -> true))
                .isTrue();
        FakeClock waitClock = new FakeClock();
        AtomicReference<Boolean> result = new AtomicReference<>();
        Thread waiter = Thread.ofVirtual()
                .name("test-wait")
                .start(() -> result.set(
                        SharedIndexInformer.waitForCacheSync(waitClock, Duration.ofSeconds(1), () -> false)));
        for (int i = 0; i < 10 && waiter.isAlive(); i++) {
            await().atMost(WAIT).until(() -> waitClock.hasWaiters() || !waiter.isAlive());
            waitClock.step(Duration.ofMillis(100));
        }
        waiter.join(WAIT);
        assertThat(result.get()).isFalse();
    }
}
