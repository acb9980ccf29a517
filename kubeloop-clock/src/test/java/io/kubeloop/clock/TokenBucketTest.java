package io.kubeloop.clock;

import static io.kubeloop.testsupport.TestThreads.eventually;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kubeloop.testsupport.TestThreads;
import io.kubeloop.testsupport.TestThreads.Call;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link TokenBucket}: x/time/rate's reservations, on a fake clock. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class TokenBucketTest {

    private final FakeClock clock = new FakeClock();

    @Test
    void aFullBucketLetsTheBurstThroughThenOneTokenPerInterval() {
        TokenBucket bucket = new TokenBucket(50, 100, clock);
        for (int i = 0; i < 100; i++) {
            assertThat(bucket.tryTake()).as("token %d of the burst", i).isTrue();
        }
        assertThat(bucket.tryTake()).isFalse();
        clock.step(Duration.ofMillis(19));
        assertThat(bucket.tryTake()).as("a token takes 20 ms at 50 QPS").isFalse();
        clock.step(Duration.ofMillis(1));
        assertThat(bucket.tryTake()).isTrue();
        assertThat(bucket.tryTake()).isFalse();
    }

    @Test
    void reserveNeverRefusesTheNthCallBeyondTheBurstWaitsNIntervals() {
        TokenBucket bucket = new TokenBucket(10, 3, clock);
        List<Duration> waits = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            waits.add(bucket.reserve());
        }
        assertThat(waits)
                .containsExactly(
                        Duration.ZERO,
                        Duration.ZERO,
                        Duration.ZERO,
                        Duration.ofMillis(100),
                        Duration.ofMillis(200),
                        Duration.ofMillis(300));
        assertThat(bucket.tryTake()).as("reservations are taken tokens").isFalse();
        clock.step(Duration.ofMillis(350)); // the debt is paid 50 ms into the future: half a token
        assertThat(bucket.reserve()).isEqualTo(Duration.ofMillis(50));
    }

    @Test
    void theBucketRefillsOnlyUpToTheBurst() {
        TokenBucket bucket = new TokenBucket(10, 3, clock);
        clock.step(Duration.ofHours(1));
        int taken = 0;
        while (bucket.tryTake()) {
            taken++;
        }
        assertThat(taken).isEqualTo(3);
    }

    @Test
    void aFractionalIntervalIsTruncatedToWholeNanoseconds() {
        TokenBucket bucket = new TokenBucket(3, 1, clock);
        assertThat(bucket.reserve()).isZero();
        assertThat(bucket.reserve()).isEqualTo(Duration.ofNanos(333_333_333));
        assertThat(bucket.reserve()).isEqualTo(Duration.ofNanos(666_666_666));
    }

    @Test
    void takeWaitsOnTheClockAndReportsHowLong() throws Exception {
        TokenBucket bucket = new TokenBucket(50, 2, clock);
        assertThat(bucket.take()).isZero();
        assertThat(bucket.take()).isZero();

        Call<Duration> third = TestThreads.start(bucket::take);
        eventually().until(clock::hasWaiters);
        clock.step(Duration.ofMillis(19));
        assertThat(third.awaitBlocked().result())
                .as("not before the token exists")
                .isNotDone();
        clock.step(Duration.ofMillis(1));

        assertThat(third.join()).isEqualTo(Duration.ofMillis(20));
        clock.step(Duration.ofMillis(40));
        assertThat(bucket.take()).isZero();
    }

    @Test
    void anInterruptedTakeGivesItsTokenBack() throws Exception {
        TokenBucket bucket = new TokenBucket(1, 1, clock);
        assertThat(bucket.tryTake()).isTrue();

        Call<Duration> waiting = TestThreads.start(bucket::take);
        eventually().until(clock::hasWaiters);
        waiting.thread().interrupt();
        assertThatThrownBy(waiting::join).cause().isInstanceOf(InterruptedException.class);

        // Had the interrupted caller kept its slot, the next one would wait 2 s.
        assertThat(bucket.tryTake()).isFalse();
        clock.step(Duration.ofSeconds(1));
        assertThat(bucket.tryTake()).isTrue();
    }

    @Test
    void concurrentReservationsEachGetTheirOwnSlot() throws Exception {
        TokenBucket bucket = new TokenBucket(1000, 100, clock); // time stands still: all reserved at t=0
        int threads = 8;
        int perThread = 100;
        CountDownLatch start = new CountDownLatch(1);
        List<Long> waits = new CopyOnWriteArrayList<>();
        List<Call<Void>> calls = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            calls.add(TestThreads.start(() -> {
                start.await();
                for (int i = 0; i < perThread; i++) {
                    waits.add(bucket.reserve().toNanos());
                }
                return null;
            }));
        }
        start.countDown();
        for (Call<Void> c : calls) {
            c.join();
        }
        // 800 reservations, the first 100 free, then one every millisecond: no slot given twice, none skipped.
        List<Long> expected = new ArrayList<>();
        for (int k = 0; k < 100; k++) {
            expected.add(0L);
        }
        for (int k = 1; k <= threads * perThread - 100; k++) {
            expected.add(k * 1_000_000L);
        }
        long ms = 1_000_000L;
        assertThat(waits.stream()
                        .map(n -> Math.round(n / (double) ms) * ms)
                        .sorted()
                        .toList())
                .isEqualTo(expected);
    }

    @Test
    void badSettingsAreRefusedNamingTheField() {
        assertThatThrownBy(() -> new TokenBucket(0, 1, clock))
                .hasMessage("qps must be a positive finite number, was 0.0");
        assertThatThrownBy(() -> new TokenBucket(Double.NaN, 1, clock)).hasMessageContaining("was NaN");
        assertThatThrownBy(() -> new TokenBucket(Double.POSITIVE_INFINITY, 1, clock))
                .hasMessageContaining("Infinity");
        assertThatThrownBy(() -> new TokenBucket(5, 0, clock)).hasMessage("burst must be at least 1, was 0");
        assertThatThrownBy(() -> new TokenBucket(5, 1, null)).hasMessage("clock");
        TokenBucket b = new TokenBucket(2.5, 7, clock);
        assertThat(b.qps()).isEqualTo(2.5);
        assertThat(b.burst()).isEqualTo(7);
        assertThat(b).hasToString("TokenBucket[qps=2.5, burst=7]");
    }
}
