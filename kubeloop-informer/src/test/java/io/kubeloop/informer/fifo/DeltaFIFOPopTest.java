package io.kubeloop.informer.fifo;

import static io.kubeloop.informer.fifo.FifoFixtures.key;
import static io.kubeloop.informer.fifo.FifoFixtures.pod;
import static io.kubeloop.informer.fifo.FifoFixtures.pods;
import static io.kubeloop.informer.fifo.FifoFixtures.render;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import io.fabric8.kubernetes.api.model.Pod;
import io.kubeloop.clock.FakeClock;
import io.kubeloop.informer.fifo.FifoFixtures.Known;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The consumer side: pop order, the process function under the lock, requeue, errors, hasSynced, close. */
@Timeout(30)
class DeltaFIFOPopTest {

    private static DeltaFIFO<Pod> fifo() {
        return DeltaFIFO.<Pod>builder(FifoFixtures.KEY).build();
    }

    private static DeltaFIFO<Pod> fifo(Known known) {
        return DeltaFIFO.<Pod>builder(FifoFixtures.KEY).knownObjects(known).build();
    }

    /** Pops one key and renders {@code key:deltas initial|later}. */
    private static String popOne(DeltaFIFO<Pod> fifo) throws InterruptedException {
        AtomicReference<String> seen = new AtomicReference<>();
        List<Delta<Pod>> deltas = fifo.pop((d, initial) -> seen.set(render(d) + (initial ? " initial" : " later")));
        assertThat(render(deltas) + seen.get().substring(seen.get().lastIndexOf(' ')))
                .isEqualTo(seen.get());
        return seen.get();
    }

    @Test
    void popHandsOutKeysInFirstEnqueueOrderAndRemovesThem() throws InterruptedException {
        DeltaFIFO<Pod> fifo = fifo();
        fifo.add(pod("b@1"));
        fifo.add(pod("a@1"));
        fifo.update(pod("b@2"));

        assertThat(popOne(fifo)).isEqualTo("ADDED(b@1),UPDATED(b@2) later");
        assertThat(fifo.listKeys()).containsExactly(key("a"));
        fifo.update(pod("b@3")); // b is enqueued again, behind a
        assertThat(popOne(fifo)).isEqualTo("ADDED(a@1) later");
        assertThat(popOne(fifo)).isEqualTo("UPDATED(b@3) later");
        assertThat(fifo.isEmpty()).isTrue();
        assertThat(fifo.getByKey(key("b"))).isEmpty();
    }

    @Test
    void poppedDeltasAndGetByKeyCopiesAreNotModifiable() throws InterruptedException {
        DeltaFIFO<Pod> fifo = fifo();
        fifo.add(pod("a@1"));
        List<Delta<Pod>> copy = fifo.getByKey(key("a")).orElseThrow();
        fifo.update(pod("a@2"));

        assertThat(render(copy)).isEqualTo("ADDED(a@1)"); // a copy: later enqueues do not show
        assertThatThrownBy(() -> copy.add(copy.get(0))).isInstanceOf(UnsupportedOperationException.class);
        List<Delta<Pod>> popped = fifo.pop((d, i) -> {});
        assertThatThrownBy(popped::clear).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void processRunsUnderTheLockSoEnqueuesWaitForIt() throws Exception {
        DeltaFIFO<Pod> fifo = fifo();
        fifo.add(pod("a@1"));
        CountDownLatch processing = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CompletableFuture<List<Delta<Pod>>> popped = CompletableFuture.supplyAsync(() -> {
            try {
                return fifo.pop((d, i) -> {
                    processing.countDown();
                    release.await();
                });
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        assertThat(processing.await(10, TimeUnit.SECONDS)).isTrue();
        CompletableFuture<Void> adding = CompletableFuture.runAsync(() -> fifo.add(pod("b@1")));

        // the add cannot complete while process holds the lock
        await().during(Duration.ofMillis(200)).atMost(Duration.ofSeconds(5)).until(() -> !adding.isDone());
        release.countDown();
        adding.get(10, TimeUnit.SECONDS);
        assertThat(render(popped.get(10, TimeUnit.SECONDS))).isEqualTo("ADDED(a@1)");
        assertThat(fifo.listKeys()).containsExactly(key("b"));
    }

    // ------------------------------------------------------------------------------------------ requeue

    @Test
    void requeueWithoutACausePutsTheDeltasBackAtTheEndAndPopReturnsNormally() throws InterruptedException {
        DeltaFIFO<Pod> fifo = fifo();
        fifo.add(pod("a@1"));
        fifo.add(pod("b@1"));

        List<Delta<Pod>> popped = fifo.pop((d, i) -> {
            throw new DeltaFIFO.RequeueException();
        });

        assertThat(render(popped)).isEqualTo("ADDED(a@1)");
        assertThat(render(fifo)).isEqualTo("b:ADDED(b@1) | a:ADDED(a@1)");
        fifo.update(pod("a@2"));
        assertThat(render(popped))
                .as("what pop returned does not change with the requeued list")
                .isEqualTo("ADDED(a@1)");
        assertThat(render(fifo)).isEqualTo("b:ADDED(b@1) | a:ADDED(a@1),UPDATED(a@2)");
    }

    /** client-go's Pop returns ErrRequeue's inner error: the caller must see why the deltas went back. */
    @Test
    void requeueWithACauseRequeuesThenHandsTheCauseToTheCaller() throws InterruptedException {
        DeltaFIFO<Pod> fifo =
                DeltaFIFO.<Pod>builder(FifoFixtures.KEY).name("pods").build();
        fifo.add(pod("a@1"));
        fifo.add(pod("b@1"));
        IOException busy = new IOException("store busy");

        assertThatThrownBy(() -> fifo.pop((d, i) -> {
                    throw new DeltaFIFO.RequeueException(busy);
                }))
                .isInstanceOfSatisfying(DeltaFIFO.RequeuedException.class, e -> {
                    assertThat(e.getCause()).isSameAs(busy);
                    assertThat(e.key()).isEqualTo(key("a"));
                    assertThat(e.putBack()).isTrue();
                    assertThat(e.getMessage())
                            .isEqualTo("DeltaFIFO pods: processing " + key("a") + " asked for a requeue"
                                    + " (its deltas are back in the queue): java.io.IOException: store busy");
                });
        assertThat(render(fifo)).as("requeued before the caller hears of it").isEqualTo("b:ADDED(b@1) | a:ADDED(a@1)");
        assertThat(popOne(fifo)).isEqualTo("ADDED(b@1) later");
        assertThat(popOne(fifo)).isEqualTo("ADDED(a@1) later");
    }

    @Test
    void aRequeueSupersededByNewerDeltasStillHandsTheCauseToTheCaller() throws InterruptedException {
        DeltaFIFO<Pod> fifo = fifo();
        fifo.add(pod("a@1"));
        IllegalStateException conflict = new IllegalStateException("conflict");

        assertThatThrownBy(() -> fifo.pop((d, i) -> {
                    fifo.update(pod("a@2")); // the lock is reentrant: a newer delta of the same key
                    throw new DeltaFIFO.RequeueException(conflict);
                }))
                .isInstanceOfSatisfying(DeltaFIFO.RequeuedException.class, e -> {
                    assertThat(e.getCause()).isSameAs(conflict);
                    assertThat(e.putBack()).isFalse();
                    assertThat(e.getMessage()).contains("dropped: newer deltas of the key were queued");
                });
        assertThat(render(fifo)).isEqualTo("a:UPDATED(a@2)");
    }

    @Test
    void slowProcessingWhileKeysWaitIsLogged() throws InterruptedException {
        FakeClock clock = new FakeClock();
        DeltaFIFO<Pod> fifo = DeltaFIFO.<Pod>builder(FifoFixtures.KEY)
                .clock(clock)
                .name("pods")
                .build();
        for (int i = 0; i < 13; i++) {
            fifo.add(pod("p" + i + "@1"));
        }

        String fast = FifoFixtures.logged(() -> popQuietly(fifo, () -> clock.step(Duration.ofMillis(100))));
        String slow = FifoFixtures.logged(() -> popQuietly(fifo, () -> clock.step(Duration.ofMillis(101))));
        while (fifo.size() > 10) {
            popQuietly(fifo, () -> {});
        }
        String slowButShortQueue = FifoFixtures.logged(() -> popQuietly(fifo, () -> clock.step(Duration.ofSeconds(1))));

        assertThat(fast).doesNotContain("slow processing");
        assertThat(slow).contains("INFO").contains("DeltaFIFO pods: processing ns/p1 took 101 ms while 11 keys wait");
        assertThat(slowButShortQueue).doesNotContain("slow processing");
    }

    private static void popQuietly(DeltaFIFO<Pod> fifo, Runnable during) {
        try {
            fifo.pop((d, i) -> during.run());
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void requeueAfterTheKeyWasEnqueuedAgainKeepsOnlyTheNewerDeltas() throws InterruptedException {
        DeltaFIFO<Pod> fifo = fifo();
        fifo.add(pod("a@1"));

        // the lock is reentrant: process itself enqueues a newer delta for its key, then asks for a requeue
        fifo.pop((d, i) -> {
            fifo.update(pod("a@2"));
            throw new DeltaFIFO.RequeueException();
        });

        assertThat(render(fifo)).isEqualTo("a:UPDATED(a@2)");
    }

    @Test
    void otherExceptionsAreRethrownAfterTheDeltasAreGone() throws InterruptedException {
        DeltaFIFO<Pod> fifo = fifo();
        fifo.add(pod("a@1"));
        fifo.add(pod("b@1"));
        fifo.add(pod("c@1"));
        fifo.add(pod("d@1"));
        IllegalStateException boom = new IllegalStateException("boom");
        IOException checked = new IOException("disk");

        assertThatThrownBy(() -> fifo.pop((d, i) -> {
                    throw boom;
                }))
                .isSameAs(boom);
        assertThatThrownBy(() -> fifo.pop((d, i) -> {
                    throw checked;
                }))
                .isInstanceOf(RuntimeException.class)
                .hasCause(checked)
                .hasMessageContaining(key("b"));
        assertThatThrownBy(() -> fifo.pop((d, i) -> {
                    throw new AssertionError("bug");
                }))
                .isInstanceOf(AssertionError.class);
        assertThatThrownBy(() -> fifo.pop((d, i) -> {
                    throw new InterruptedException("stop");
                }))
                .isInstanceOf(InterruptedException.class);

        assertThat(fifo.isEmpty()).isTrue();
    }

    // ------------------------------------------------------------------------------------------ hasSynced

    static Stream<Arguments> syncScenarios() {
        return Stream.of(
                // name, known objects, calls, pops needed before synced (-1: synced never)
                arguments("a fresh FIFO has not synced", null, "", -1),
                arguments("an add before any replace: synced at once", null, "add a@1", 0),
                arguments("an update before any replace: synced at once", null, "update a@1", 0),
                arguments("an ignored delete before any replace: synced at once", null, "delete a@1", 0),
                arguments("a resync alone does not populate", "a@1", "resync", -1),
                arguments("replace with an empty list: synced at once", null, "replace", 0),
                arguments("replace with N keys: synced after N pops", null, "replace a@1 b@1 c@1", 3),
                arguments("duplicate keys count once", null, "replace a@1 a@2 b@1", 2),
                arguments("N keys and D known tombstones: N + D pops", "x@1 y@1", "replace a@1 b@1", 4),
                arguments("empty list but a known tombstone: one pop", "x@1", "replace", 1),
                arguments(
                        "watch events after the list are not part of it",
                        null,
                        "replace a@1 b@1; add c@1; update a@2",
                        2),
                arguments(
                        "a second replace does not extend the initial population",
                        null,
                        "replace a@1; replace a@2 b@1 c@1",
                        1));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("syncScenarios")
    void hasSyncedAfterTheInitialPopulationIsProcessed(String name, String known, String calls, int popsToSync)
            throws InterruptedException {
        DeltaFIFO<Pod> fifo = known == null ? fifo() : fifo(Known.of(known));
        for (String call : calls.split(";")) {
            if (!call.isBlank()) {
                DeltaFIFOEnqueueTest.apply(fifo, call.trim());
            }
        }

        List<Boolean> initialFlags = new ArrayList<>();
        if (popsToSync < 0) {
            assertThat(fifo.hasSynced()).isFalse();
            return;
        }
        for (int i = 0; i < popsToSync; i++) {
            assertThat(fifo.hasSynced()).as("before pop %d", i + 1).isFalse();
            fifo.pop((d, initial) -> initialFlags.add(initial));
        }
        assertThat(fifo.hasSynced()).isTrue();
        assertThat(initialFlags)
                .as("isInInitialList of the initial pops")
                .hasSize(popsToSync)
                .allMatch(b -> b);
        while (!fifo.isEmpty()) {
            fifo.pop((d, initial) ->
                    assertThat(initial).as("isInInitialList after sync").isFalse());
        }
        fifo.replace(pods("z@1"), "2");
        assertThat(fifo.hasSynced()).as("never goes back").isTrue();
    }

    @Test
    void hasSyncedStaysFalseWhileTheLastInitialItemIsStillBeingProcessed() throws Exception {
        DeltaFIFO<Pod> fifo = fifo();
        fifo.replace(pods("a@1 b@1"), "10");
        fifo.pop((d, initial) -> {});
        CountDownLatch processing = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Thread consumer = Thread.ofVirtual().name("test-consumer").start(() -> {
            try {
                fifo.pop((d, initial) -> {
                    processing.countDown();
                    release.await();
                });
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        assertThat(processing.await(10, TimeUnit.SECONDS)).isTrue();

        // client-go ≥1.36 would report synced here, before the last item's processing returned (§4.8)
        await().during(Duration.ofMillis(200)).atMost(Duration.ofSeconds(5)).until(() -> !fifo.hasSynced());
        release.countDown();
        await().atMost(Duration.ofSeconds(10)).until(fifo::hasSynced);
        consumer.join(10_000);
    }

    @Test
    void aRequeuedInitialItemStaysInitialAndDelaysSync() throws InterruptedException {
        DeltaFIFO<Pod> fifo = fifo();
        fifo.replace(pods("a@1"), "10");
        fifo.add(pod("b@1"));

        fifo.pop((d, initial) -> {
            assertThat(initial).isTrue();
            throw new DeltaFIFO.RequeueException();
        });
        assertThat(fifo.hasSynced()).isFalse();
        assertThat(popOne(fifo))
                .as("the watch event overtook the requeued item")
                .isEqualTo("ADDED(b@1) later");
        assertThat(fifo.hasSynced()).isFalse();
        assertThat(popOne(fifo)).isEqualTo("REPLACED(a@1) initial");
        assertThat(fifo.hasSynced()).isTrue();
    }

    @Test
    void anInitialItemWhoseProcessingFailedCountsAsProcessed() {
        DeltaFIFO<Pod> fifo = fifo();
        fifo.replace(pods("a@1"), "10");

        assertThatThrownBy(() -> fifo.pop((d, initial) -> {
                    throw new IllegalStateException("handler bug");
                }))
                .hasMessage("handler bug");
        assertThat(fifo.hasSynced()).isTrue();
    }

    // ------------------------------------------------------------------------------------------ close

    @Test
    void closeWakesABlockedPopWhichReturnsNull() throws Exception {
        DeltaFIFO<Pod> fifo = fifo();
        AtomicReference<Object> result = new AtomicReference<>("not returned");
        Thread consumer = Thread.ofVirtual().name("test-consumer").start(() -> {
            try {
                result.set(fifo.pop((d, i) -> {}));
            } catch (InterruptedException e) {
                result.set(e);
            }
        });
        await().atMost(Duration.ofSeconds(10)).until(() -> consumer.getState() == Thread.State.WAITING);

        fifo.close();

        consumer.join(10_000);
        assertThat(consumer.isAlive()).isFalse();
        assertThat(result.get()).isNull();
        assertThat(fifo.isClosed()).isTrue();
    }

    @Test
    void aClosedFifoStillHandsOutWhatItHoldsThenReturnsNull() throws InterruptedException {
        DeltaFIFO<Pod> fifo = fifo();
        fifo.add(pod("a@1"));
        fifo.close();
        fifo.close(); // idempotent

        assertThat(popOne(fifo)).isEqualTo("ADDED(a@1) later");
        assertThat(fifo.pop((d, i) -> {
                    throw new AssertionError("nothing to process");
                }))
                .isNull();
    }

    @Test
    void anInterruptedPopThrowsAndPopsNothing() throws Exception {
        DeltaFIFO<Pod> fifo = fifo();
        AtomicReference<Object> result = new AtomicReference<>();
        Thread consumer = Thread.ofVirtual().name("test-consumer").start(() -> {
            try {
                result.set(fifo.pop((d, i) -> {}));
            } catch (InterruptedException e) {
                result.set(e);
            }
        });
        await().atMost(Duration.ofSeconds(10)).until(() -> consumer.getState() == Thread.State.WAITING);

        consumer.interrupt();

        consumer.join(10_000);
        assertThat(result.get()).isInstanceOf(InterruptedException.class);
    }
}
