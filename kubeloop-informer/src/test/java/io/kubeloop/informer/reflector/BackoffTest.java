package io.kubeloop.informer.reflector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kubeloop.clock.FakeClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;

class BackoffTest {

    private static long ms(long nanos) {
        return nanos / 1_000_000;
    }

    @Test
    void defaultGrowsByTwoFromEightHundredMillisToTheThirtySecondCap() {
        BackoffTimer t = new BackoffTimer(Backoff.DEFAULT.withJitter(0), new FakeClock(), new SplittableRandom(1));
        List<Long> delays = new ArrayList<>();
        for (int i = 0; i < 9; i++) {
            delays.add(ms(t.nextDelayNanos()));
        }
        assertThat(delays).containsExactly(800L, 1600L, 3200L, 6400L, 12800L, 25600L, 30000L, 30000L, 30000L);
    }

    @Test
    void jitterAddsUpToOneStepAndStaysWithinTheDocumentedRanges() {
        FakeClock clock = new FakeClock();
        BackoffTimer t = new BackoffTimer(Backoff.DEFAULT, clock, new SplittableRandom(7));
        long[][] ranges = {
            {800, 1600},
            {1600, 3200},
            {3200, 6400},
            {6400, 12800},
            {12800, 25600},
            {25600, 51200},
            {30000, 60000},
            {30000, 60000}
        };
        for (long[] r : ranges) {
            assertThat(ms(t.nextDelayNanos())).isGreaterThanOrEqualTo(r[0]).isLessThan(r[1]);
        }
    }

    @Test
    void jitterUsesTheWholeRange() {
        RandomGenerator almostOne = new RandomGenerator() {
            @Override
            public long nextLong() {
                return -1L;
            }

            @Override
            public double nextDouble() {
                return 0.999;
            }
        };
        BackoffTimer t = new BackoffTimer(Backoff.DEFAULT, new FakeClock(), almostOne);
        assertThat(ms(t.nextDelayNanos())).isEqualTo(1599);
    }

    @Test
    void startsOverWhenMoreThanResetAfterPassedSinceTheLastReset() {
        FakeClock clock = new FakeClock();
        BackoffTimer t = new BackoffTimer(Backoff.DEFAULT.withJitter(0), clock, new SplittableRandom(1));
        assertThat(ms(t.nextDelayNanos())).isEqualTo(800);
        assertThat(ms(t.nextDelayNanos())).isEqualTo(1600);
        clock.step(Duration.ofMinutes(2));
        assertThat(ms(t.nextDelayNanos())).as("exactly 2 minutes is not more").isEqualTo(3200);
        clock.step(Duration.ofMillis(1));
        assertThat(ms(t.nextDelayNanos())).isEqualTo(800);
        assertThat(ms(t.nextDelayNanos())).isEqualTo(1600);
    }

    @Test
    void rejectsNonsense() {
        assertThatThrownBy(() -> Backoff.DEFAULT.withInitial(Duration.ZERO))
                .hasMessageContaining("initial must be positive");
        assertThatThrownBy(() -> Backoff.DEFAULT.withFactor(0.5)).hasMessageContaining("factor");
        assertThatThrownBy(() -> Backoff.DEFAULT.withJitter(-1)).hasMessageContaining("jitter");
        assertThatThrownBy(() -> Backoff.DEFAULT.withCap(Duration.ofMillis(1))).hasMessageContaining("cap");
        assertThatThrownBy(() -> Backoff.DEFAULT.withResetAfter(Duration.ZERO)).hasMessageContaining("resetAfter");
    }
}
