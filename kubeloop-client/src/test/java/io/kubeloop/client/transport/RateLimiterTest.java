package io.kubeloop.client.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.kubeloop.clock.FakeClock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The client's limiter over kubeloop-clock's {@code TokenBucket} (whose arithmetic {@code TokenBucketTest}
 * pins down): waits on its clock, gives an interrupted wait's token back, and the unlimited and default cases.
 */
class RateLimiterTest {

    private final FakeClock clock = new FakeClock();

    private CompletableFuture<Duration> acquireOnAThread(RateLimiter limiter) {
        CompletableFuture<Duration> result = new CompletableFuture<>();
        Thread.ofVirtual().start(() -> {
            try {
                result.complete(limiter.acquire());
            } catch (Throwable e) {
                result.completeExceptionally(e);
            }
        });
        return result;
    }

    @Test
    void aFullBucketLetsTheBurstThroughAtOnceThenOneTokenPerInterval() {
        RateLimiter limiter = RateLimiter.tokenBucket(50, 100, clock);
        for (int i = 0; i < 100; i++) {
            assertThat(limiter.tryAcquire()).as("token %d of the burst", i).isTrue();
        }
        assertThat(limiter.tryAcquire()).isFalse();
        clock.step(Duration.ofMillis(19));
        assertThat(limiter.tryAcquire()).as("a token takes 20 ms at 50 QPS").isFalse();
        clock.step(Duration.ofMillis(1));
        assertThat(limiter.tryAcquire()).isTrue();
    }

    @Test
    void acquireBeyondTheBurstWaitsOnTheClockAndReportsTheWait() throws Exception {
        RateLimiter limiter = RateLimiter.tokenBucket(50, 2, clock);
        assertThat(limiter.acquire()).isZero();
        assertThat(limiter.acquire()).isZero();

        CompletableFuture<Duration> third = acquireOnAThread(limiter);
        await().atMost(Duration.ofSeconds(10)).until(clock::hasWaiters);
        clock.step(Duration.ofMillis(10));
        assertThat(third).as("half a token is not a token").isNotDone();
        clock.step(Duration.ofMillis(10));

        assertThat(third.get(10, TimeUnit.SECONDS)).isEqualTo(Duration.ofMillis(20));
    }

    @Test
    void anInterruptedAcquireGivesItsTokenBack() throws Exception {
        RateLimiter limiter = RateLimiter.tokenBucket(1, 1, clock);
        assertThat(limiter.tryAcquire()).isTrue();

        Thread.currentThread().interrupt();
        assertThatThrownBy(limiter::acquire).isInstanceOf(InterruptedException.class);

        // Had the interrupted caller kept its slot, the next one would wait 2 s.
        assertThat(limiter.tryAcquire()).isFalse();
        clock.step(Duration.ofSeconds(1));
        assertThat(limiter.tryAcquire()).isTrue();
    }

    @Test
    void anInterruptedAcquireOnTheSystemClockEndsAtOnce() throws Exception {
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
        assertThat(defaults).hasToString("RateLimiter[qps=50.0, burst=100]");
    }

    @Test
    void badSettingsAreRefusedNamingTheField() {
        assertThatThrownBy(() -> RateLimiter.tokenBucket(0, 1))
                .hasMessageContaining("qps must be a positive")
                .hasMessageContaining("unlimited()");
        assertThatThrownBy(() -> RateLimiter.tokenBucket(Double.NaN, 1)).hasMessageContaining("qps");
        assertThatThrownBy(() -> RateLimiter.tokenBucket(Double.POSITIVE_INFINITY, 1))
                .hasMessageContaining("qps");
        assertThatThrownBy(() -> RateLimiter.tokenBucket(5, 0)).hasMessage("burst must be at least 1, was 0");
        assertThatThrownBy(() -> HttpTransport.builder(io.kubeloop.client.config.ClientConfig.builder()
                                .server("http://127.0.0.1:1")
                                .build())
                        .rateLimit(5, 0))
                .hasMessage("burst must be at least 1, was 0");
    }
}
