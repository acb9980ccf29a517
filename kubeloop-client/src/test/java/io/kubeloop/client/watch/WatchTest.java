package io.kubeloop.client.watch;

import static io.kubeloop.client.watch.Streams.bookmark;
import static io.kubeloop.client.watch.Streams.pod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.kubeloop.client.watch.Streams.Feed;
import io.kubeloop.clock.FakeClock;
import io.kubeloop.model.WatchEventType;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class WatchTest {

    private final FakeClock clock = new FakeClock();
    private final AtomicReference<Thread> readerThread = new AtomicReference<>();

    private Watch<Pod> start(Feed feed, Duration idleTimeout) {
        return Watch.builder(feed, Pod.class)
                .description("watch of pods in default")
                .clock(clock)
                .idleTimeout(idleTimeout)
                .threadFactory(r -> {
                    Thread t = Thread.ofVirtual().name("test-watch-reader").unstarted(r);
                    readerThread.set(t);
                    return t;
                })
                .start();
    }

    @Test
    void deliversEventsInOrderThenEndsWhenTheServerEndsTheStream() throws Exception {
        Feed feed = new Feed();
        try (Watch<Pod> watch = start(feed, Duration.ofMinutes(1))) {
            feed.write(pod("ADDED", "a", "1") + "\n" + bookmark("2", false) + "\n");
            assertThat(watch.next().type()).isEqualTo(WatchEventType.ADDED);
            assertThat(watch.next()).isEqualTo(new WatchEvent.Bookmark<Pod>("2", false));
            assertThat(watch.next(Duration.ZERO)).as("nothing more yet").isNull();
            assertThat(watch.isDone()).isFalse();

            feed.write(pod("DELETED", "a", "3") + "\n");
            feed.end();

            assertThat(watch.next().type()).isEqualTo(WatchEventType.DELETED);
            assertThat(watch.next()).isNull();
            assertThat(watch.next()).isNull();
            assertThat(watch.isDone()).isTrue();
            await().atMost(Duration.ofSeconds(5)).until(feed::isClosed); // the body is released at its end
        }
    }

    @Test
    void errorEventsMayBeTheWatchsFailureAfterTheEventsBeforeThem() throws Exception {
        Feed feed = new Feed();
        try (Watch<Pod> watch = Watch.builder(feed, Pod.class)
                .description("watch of pods")
                .errorEvents(status -> new IllegalStateException("gone: " + status.getCode()))
                .start()) {
            feed.write(pod("ADDED", "a", "1") + "\n" + Streams.EXPIRED + "\n" + pod("ADDED", "b", "2") + "\n");

            assertThat(watch.next().type()).isEqualTo(WatchEventType.ADDED);
            assertThatThrownBy(watch::next)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessage("gone: 410");
            assertThatThrownBy(watch::next)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessage("gone: 410");
            assertThat(watch.isDone()).isTrue();
            // The reader stopped at the ERROR without waiting for the server's close, and released the body.
            await().atMost(Duration.ofSeconds(5)).until(feed::isClosed);
        }
    }

    @Test
    void anErrorMappingThatFailsIsAWatchExceptionNamingTheWatch() throws Exception {
        Feed feed = new Feed();
        try (Watch<Pod> watch = Watch.builder(feed, Pod.class)
                .description("watch of pods")
                .errorEvents(status -> null)
                .start()) {
            feed.write(Streams.EXPIRED + "\n");
            assertThatThrownBy(watch::next)
                    .isExactlyInstanceOf(WatchException.class)
                    .hasMessageContaining("watch of pods ended with an ERROR event that could not be mapped");
        }
    }

    @Test
    void iterationEndsWithTheStream() {
        Feed feed = new Feed();
        feed.write(pod("ADDED", "a", "1") + pod("MODIFIED", "a", "2") + pod("DELETED", "a", "3"));
        feed.end();
        List<WatchEventType> types = new ArrayList<>();
        try (Watch<Pod> watch = start(feed, Duration.ofMinutes(1))) {
            for (WatchEvent<Pod> event : watch) {
                types.add(event.type());
            }
        }
        assertThat(types).containsExactly(WatchEventType.ADDED, WatchEventType.MODIFIED, WatchEventType.DELETED);
    }

    @Test
    void aDecodeFailureIsThrownAfterTheEventsBeforeItAndAgainOnEveryCall() throws Exception {
        Feed feed = new Feed();
        feed.write(pod("ADDED", "a", "1") + "\n{\"type\":\"RESYNC\",\"object\":{}}\n");
        try (Watch<Pod> watch = start(feed, Duration.ofMinutes(1))) {
            assertThat(watch.next().type()).isEqualTo(WatchEventType.ADDED);
            assertThatThrownBy(watch::next)
                    .isInstanceOf(WatchDecodeException.class)
                    .hasMessageStartingWith("watch of pods in default: watch event 2 (at byte")
                    .hasMessageContaining("unknown event type \"RESYNC\"");
            assertThatThrownBy(() -> watch.next(Duration.ofSeconds(1))).isInstanceOf(WatchDecodeException.class);
            assertThat(watch.isDone()).isTrue();
        }
    }

    @Test
    void aStreamCutShortFailsTheIteration() {
        Feed feed = new Feed();
        feed.write(pod("ADDED", "a", "1") + "\n" + pod("ADDED", "b", "2").substring(0, 50));
        feed.end();
        List<WatchEvent<Pod>> seen = new ArrayList<>();
        try (Watch<Pod> watch = start(feed, Duration.ofMinutes(1))) {
            assertThatThrownBy(() -> watch.forEach(seen::add))
                    .isInstanceOf(WatchDecodeException.class)
                    .hasMessageContaining("truncated");
        }
        assertThat(seen).hasSize(1);
    }

    @Test
    void closeFromAnotherThreadReleasesABlockedConsumerAndTheReaderAtOnce() throws Exception {
        Feed feed = new Feed(); // deaf to interrupts: only closing the stream releases its reader
        Watch<Pod> watch = start(feed, Duration.ofMinutes(1));
        CompletableFuture<WatchEvent<Pod>> blocked = new CompletableFuture<>();
        Thread.ofVirtual().name("test-consumer").start(() -> {
            try {
                blocked.complete(watch.next());
            } catch (Throwable e) {
                blocked.completeExceptionally(e);
            }
        });
        await().atMost(Duration.ofSeconds(5))
                .until(() -> readerThread.get() != null
                        && readerThread.get().getState() != Thread.State.RUNNABLE
                        && readerThread.get().isAlive());
        assertThat(blocked).isNotDone();

        Thread.ofVirtual().name("test-closer").start(watch::close).join();

        await().atMost(Duration.ofSeconds(5)).until(blocked::isDone);
        assertThat(blocked.join()).isNull();
        assertThat(feed.isClosed()).isTrue();
        await().atMost(Duration.ofSeconds(5)).until(() -> !readerThread.get().isAlive());
        assertThat(watch.next()).isNull();
        watch.close(); // idempotent
    }

    @Test
    void closeDropsQueuedEvents() throws Exception {
        Feed feed = new Feed();
        feed.write(pod("ADDED", "a", "1") + pod("ADDED", "b", "2"));
        Watch<Pod> watch = start(feed, Duration.ofMinutes(1));
        assertThat(watch.next()).isNotNull();

        watch.close();

        assertThat(watch.next()).isNull();
        assertThat(watch.iterator().hasNext()).isFalse();
    }

    @Test
    void aWatchThatReceivesNoBytesForTheIdleTimeoutFailsWithATimeout() throws Exception {
        Feed feed = new Feed();
        Watch<Pod> watch = start(feed, Duration.ofMinutes(5));
        feed.write(pod("ADDED", "a", "1") + "\n");
        assertThat(watch.next()).isNotNull();
        await().atMost(Duration.ofSeconds(5)).until(() -> readerThread.get().getState() != Thread.State.RUNNABLE);

        clock.step(Duration.ofMinutes(4).plusSeconds(59));
        // The idle rule runs on the stepping thread when its time comes: 4m59s of silence is not idle.
        assertThat(watch.isDone()).isFalse();
        assertThat(clock.scheduledCount()).as("the rule waits for its time").isEqualTo(1);

        clock.step(Duration.ofSeconds(1));

        assertThat(watch.isDone()).as("closed by the step itself").isTrue();
        assertThat(clock.scheduledCount())
                .as("a closed watch leaves no timer behind")
                .isZero();
        assertThatThrownBy(watch::next)
                .isInstanceOfSatisfying(WatchIdleTimeoutException.class, e -> assertThat(e.idleTimeout())
                        .isEqualTo(Duration.ofMinutes(5)))
                .hasMessageContaining("watch of pods in default received no bytes for PT5M")
                .hasMessageContaining("idle timeout PT5M");
        assertThat(feed.isClosed()).as("the idle stream is closed").isTrue();
        await().atMost(Duration.ofSeconds(5)).until(() -> !readerThread.get().isAlive());
    }

    @Test
    void bytesResetTheIdleTimer() throws Exception {
        Feed feed = new Feed();
        try (Watch<Pod> watch = start(feed, Duration.ofMillis(200))) {
            for (int i = 0; i < 5; i++) {
                clock.step(Duration.ofMillis(150));
                feed.write(bookmark(Integer.toString(i + 1), false) + "\n");
                assertThat(watch.next()).isEqualTo(new WatchEvent.Bookmark<Pod>(Integer.toString(i + 1), false));
            }
            // Each read began after the clock moved, so none waited 200 ms of clock time.
            assertThat(watch.isDone()).isFalse();
        }
    }

    @Test
    void aSlowConsumerIsBackPressureNotIdleness() throws Exception {
        Feed feed = new Feed();
        int events = Watch.QUEUE_CAPACITY + 50;
        StringBuilder many = new StringBuilder();
        for (int i = 1; i <= events; i++) {
            many.append(bookmark(Integer.toString(i), false)).append('\n');
        }
        feed.write(many.toString());
        try (Watch<Pod> watch = start(feed, Duration.ofMinutes(1))) {
            // The reader fills the queue and waits for the consumer, not for bytes.
            await().atMost(Duration.ofSeconds(5)).until(() -> readerThread.get().getState() == Thread.State.WAITING);
            clock.step(Duration.ofMinutes(10));
            assertThat(watch.isDone())
                    .as("the rule ran during the step and found no read in progress")
                    .isFalse();

            for (int i = 1; i <= events; i++) {
                assertThat(watch.next()).isEqualTo(new WatchEvent.Bookmark<Pod>(Integer.toString(i), false));
            }
            // Now the reader waits for bytes, and that is idleness.
            // Every event is queued, so a timed wait of the reader is the feed's read for more bytes.
            await().atMost(Duration.ofSeconds(5))
                    .until(() -> readerThread.get().getState() == Thread.State.TIMED_WAITING);
            clock.step(Duration.ofMinutes(1));
            assertThat(watch.isDone()).isTrue();
            assertThatThrownBy(watch::next).isInstanceOf(WatchIdleTimeoutException.class);
        }
    }

    @Test
    void aTimedNextWaitsOnTheWatchsClock() throws Exception {
        Feed feed = new Feed();
        try (Watch<Pod> watch = start(feed, Duration.ofMinutes(5))) {
            CompletableFuture<WatchEvent<Pod>> waiting = new CompletableFuture<>();
            Thread.ofVirtual().start(() -> {
                try {
                    waiting.complete(watch.next(Duration.ofSeconds(30)));
                } catch (Throwable e) {
                    waiting.completeExceptionally(e);
                }
            });
            await().atMost(Duration.ofSeconds(5)).until(() -> clock.scheduledCount() == 2); // idle rule + timeout
            clock.step(Duration.ofSeconds(29));
            assertThat(waiting).as("29 s of clock time").isNotDone();
            clock.step(Duration.ofSeconds(1));
            assertThat(waiting.get(5, java.util.concurrent.TimeUnit.SECONDS))
                    .as("timed out: nothing came")
                    .isNull();
            assertThat(watch.isDone()).isFalse();
            assertThat(clock.scheduledCount()).as("only the idle rule is left").isEqualTo(1);

            // An event ends a timed wait at once, and the wait's timer goes with it.
            feed.write(pod("ADDED", "a", "1") + "\n");
            assertThat(watch.next(Duration.ofHours(1))).isNotNull();
            assertThat(clock.scheduledCount()).isEqualTo(1);
        }
    }

    @Test
    void theIdleTimeoutMustBePositive() {
        assertThatThrownBy(() -> Watch.builder(new Feed(), Pod.class).idleTimeout(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("idleTimeout must be positive, was PT0S");
        assertThat(Watch.DEFAULT_IDLE_TIMEOUT).isEqualTo(Duration.ofMinutes(5));
    }

    @Test
    void anInterruptedIterationSaysSoAndKeepsTheInterrupt() throws Exception {
        Feed feed = new Feed();
        try (Watch<Pod> watch = start(feed, Duration.ofMinutes(1))) {
            Thread.currentThread().interrupt();
            assertThatThrownBy(() -> watch.iterator().hasNext())
                    .isInstanceOf(WatchException.class)
                    .hasMessage("interrupted while waiting for an event of watch of pods in default");
            assertThat(Thread.interrupted()).isTrue();
        }
    }
}
