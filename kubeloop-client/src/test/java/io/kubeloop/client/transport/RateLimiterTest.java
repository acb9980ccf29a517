package io.kubeloop.client.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class RateLimiterTest {

    private static final long MS = 1_000_000L;

    @Test
    void aFullBucketLetsTheBurstThroughAtOnceThenOneTokenPerInterval() {
        FakeTicker ticker = new FakeTicker(false);
        RateLimiter limiter = RateLimiter.tokenBucket(50, 100, ticker);

        for (int i = 0; i < 100; i++) {
            assertThat(limiter.tryAcquire()).as("token %d of the burst", i).isTrue();
        }
        assertThat(limiter.tryAcquire()).isFalse();
        ticker.step(19 * MS);
        assertThat(limiter.tryAcquire()).as("a token takes 20 ms at 50 QPS").isFalse();
        ticker.step(1 * MS);
        assertThat(limiter.tryAcquire()).isTrue();
        assertThat(limiter.tryAcquire()).isFalse();
        ticker.step(1000 * MS);
        for (int i = 0; i < 50; i++) {
            assertThat(limiter.tryAcquire()).isTrue();
        }
    }

    @Test
    void theBucketRefillsOnlyUpToTheBurst() {
        FakeTicker ticker = new FakeTicker(false);
        RateLimiter limiter = RateLimiter.tokenBucket(10, 3, ticker);
        ticker.step(3600_000 * MS); // an hour idle
        int taken = 0;
        while (limiter.tryAcquire()) {
            taken++;
        }
        assertThat(taken).isEqualTo(3);
    }

    @Test
    void acquireBeyondTheBurstWaitsOneIntervalEachAndReportsTheWait() throws InterruptedException {
        FakeTicker ticker = new FakeTicker(true);
        RateLimiter limiter = RateLimiter.tokenBucket(50, 2, ticker);

        assertThat(limiter.acquire()).isZero();
        assertThat(limiter.acquire()).isZero();
        assertThat(limiter.acquire()).isEqualTo(Duration.ofMillis(20));
        assertThat(limiter.acquire()).isEqualTo(Duration.ofMillis(20));
        ticker.step(40 * MS);
        assertThat(limiter.acquire()).isZero();
        assertThat(ticker.sleeps).containsExactly(20 * MS, 20 * MS);
    }

    @Test
    void concurrentCallersEachGetTheirOwnSlot() throws Exception {
        FakeTicker ticker = new FakeTicker(false); // time stands still: every reservation is made at t=0
        RateLimiter limiter = RateLimiter.tokenBucket(1000, 100, ticker);
        int threads = 8;
        int perThread = 100;
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> workers = new ArrayList<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        for (int t = 0; t < threads; t++) {
            workers.add(Thread.ofPlatform().start(() -> {
                try {
                    start.await();
                    for (int i = 0; i < perThread; i++) {
                        limiter.acquire();
                    }
                } catch (Throwable e) {
                    failure.set(e);
                }
            }));
        }
        start.countDown();
        for (Thread w : workers) {
            w.join(Duration.ofSeconds(30));
        }
        assertThat(failure.get()).isNull();
        // 800 reservations, the first 100 free, then one at every millisecond: no slot given twice, none skipped.
        List<Long> expected = new ArrayList<>();
        for (int k = 1; k <= threads * perThread - 100; k++) {
            expected.add(k * MS);
        }
        assertThat(ticker.sleeps.stream().map(n -> Math.round(n / (double) MS) * MS).sorted().toList())
                .isEqualTo(expected);
    }

    @Test
    void anInterruptedAcquireGivesItsTokenBack() {
        FakeTicker ticker = new FakeTicker(false);
        RateLimiter limiter = RateLimiter.tokenBucket(1, 1, ticker);
        assertThat(limiter.tryAcquire()).isTrue();

        ticker.interruptNextSleep = true;
        assertThatThrownBy(limiter::acquire).isInstanceOf(InterruptedException.class);

        // Had the interrupted caller kept its slot, the next one would wait 2 s.
        assertThat(limiter.tryAcquire()).isFalse();
        ticker.step(1000 * MS);
        assertThat(limiter.tryAcquire()).isTrue();
    }

    @Test
    void anInterruptedAcquireWithTheRealTickerEndsAtOnce() throws Exception {
        RateLimiter limiter = RateLimiter.tokenBucket(0.001, 1); // the second token comes in 1000 s
        limiter.acquire();
        AtomicReference<Throwable> outcome = new AtomicReference<>();
        Thread waiter = Thread.ofVirtual().start(() -> {
            try {
                limiter.acquire();
                outcome.set(new AssertionError("acquired"));
            } catch (Throwable e) {
                outcome.set(e);
            }
        });
        await().atMost(Duration.ofSeconds(10)).until(() -> waiter.getState() == Thread.State.TIMED_WAITING);
        waiter.interrupt();
        assertThat(waiter.join(Duration.ofSeconds(10))).isTrue();
        assertThat(outcome.get()).isInstanceOf(InterruptedException.class);
    }

    @Test
    void unlimitedNeverWaitsAndDefaultsAreDocumented() throws InterruptedException {
        RateLimiter unlimited = RateLimiter.unlimited();
        for (int i = 0; i < 10_000; i++) {
            assertThat(unlimited.tryAcquire()).isTrue();
        }
        assertThat(unlimited.acquire()).isZero();
        assertThat(unlimited.toString()).isEqualTo("RateLimiter[unlimited]");
        RateLimiter defaults = RateLimiter.defaults();
        assertThat(defaults.qps()).isEqualTo(50);
        assertThat(defaults.burst()).isEqualTo(100);
    }

    @Test
    void badSettingsAreRefusedNamingTheField() {
        assertThatThrownBy(() -> RateLimiter.tokenBucket(0, 1)).hasMessageContaining("qps must be a positive")
                .hasMessageContaining("unlimited()");
        assertThatThrownBy(() -> RateLimiter.tokenBucket(Double.NaN, 1)).hasMessageContaining("qps");
        assertThatThrownBy(() -> RateLimiter.tokenBucket(Double.POSITIVE_INFINITY, 1)).hasMessageContaining("qps");
        assertThatThrownBy(() -> RateLimiter.tokenBucket(5, 0)).hasMessage("burst must be at least 1, was 0");
    }
}
