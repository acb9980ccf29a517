package io.kubeloop.informer.reflector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.kubeloop.clock.FakeClock;
import io.kubeloop.informer.testing.FakeSource;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.UnaryOperator;

/** A reflector over a {@link FakeSource} and a {@link RecordingStore}, on a fake clock, run on its own thread. */
final class ReflectorHarness implements AutoCloseable {

    /** Backoff without jitter, so that delays are exact: 800 ms, 1.6 s, ... 30 s. */
    static final Backoff EXACT = Backoff.DEFAULT.withJitter(0);

    final FakeClock clock = new FakeClock();
    final FakeSource<ConfigMap> source = new FakeSource<>();
    final RecordingStore<ConfigMap> store = new RecordingStore<>();
    final List<Throwable> errors = new CopyOnWriteArrayList<>();
    final List<Thread> resyncThreads = new CopyOnWriteArrayList<>();
    Reflector<ConfigMap> reflector;
    Thread thread;

    ReflectorHarness start() {
        return start(UnaryOperator.identity());
    }

    ReflectorHarness start(UnaryOperator<Reflector.Builder<ConfigMap>> options) {
        return start(source, options);
    }

    ReflectorHarness start(ListerWatcher<ConfigMap> lw, UnaryOperator<Reflector.Builder<ConfigMap>> options) {
        Reflector.Builder<ConfigMap> b = Reflector.builder(lw, store)
                .name("configmaps under test")
                .clock(clock)
                .backoff(EXACT)
                .random(new SplittableRandom(42))
                .watchErrorHandler((name, e) -> {
                    errors.add(e);
                    WatchErrorHandler.LOGGING.onWatchError(name, e);
                })
                .threadFactory(r -> {
                    Thread t = Thread.ofVirtual().name("test-resync").unstarted(r);
                    resyncThreads.add(t);
                    return t;
                });
        reflector = options.apply(b).build();
        thread = Thread.ofVirtual().name("test-reflector").start(reflector::run);
        return this;
    }

    static ConfigMap cm(String name) {
        return new ConfigMapBuilder()
                .withNewMetadata()
                .withNamespace("default")
                .withName(name)
                .endMetadata()
                .addToData("k", "v")
                .build();
    }

    /** Waits until the reflector watches with an open stream. */
    void awaitWatching() {
        await().atMost(Duration.ofSeconds(10)).until(() -> reflector.isWatching() && source.openWatches() == 1);
    }

    /** Waits until the run thread (only it) waits on the clock, then steps it. */
    void stepWhenWaiting(Duration d) {
        await().atMost(Duration.ofSeconds(10)).until(clock::hasWaiters);
        clock.step(d);
    }

    /** Gives the reflector time to misbehave: {@code condition} must hold throughout 200 ms. */
    static void assertStays(java.util.concurrent.Callable<Boolean> condition) {
        await().during(Duration.ofMillis(200)).atMost(Duration.ofSeconds(5)).until(condition);
    }

    void awaitBackingOff() {
        await().atMost(Duration.ofSeconds(10))
                .until(() -> reflector.status().phase() == ReflectorStatus.Phase.BACKING_OFF && clock.hasWaiters());
    }

    @Override
    public void close() {
        try {
            stopAndCheck();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while stopping the reflector", e);
        }
    }

    private void stopAndCheck() throws InterruptedException {
        if (reflector != null) {
            reflector.stop();
            assertThat(reflector.awaitTermination(Duration.ofSeconds(10)))
                    .as("run() returned after stop()")
                    .isTrue();
            thread.join(Duration.ofSeconds(10));
            assertThat(thread.isAlive()).isFalse();
            for (Thread t : resyncThreads) {
                t.join(Duration.ofSeconds(10));
                assertThat(t.isAlive()).as("resync thread ended").isFalse();
            }
            assertThat(source.openWatches()).as("no watch left open").isZero();
            assertThat(store.callsOverlapped()).as("store calls never overlap").isFalse();
        }
    }
}
