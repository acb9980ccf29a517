package io.kubeloop.clock;

import static io.kubeloop.testsupport.TestThreads.eventually;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kubeloop.testsupport.TestThreads;
import io.kubeloop.testsupport.TestThreads.Call;
import io.kubeloop.testsupport.TestThreads.Kind;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** {@link FakeClock} and {@link Clock#system()}: time moves only when stepped, and waiters wake at deadlines. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class FakeClockTest {

    private final FakeClock clock = new FakeClock();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition condition = lock.newCondition();

    /** Waits like a real caller: in a loop, until the clock reaches the deadline. Returns the time it woke. */
    private long waitUntil(Clock c, long deadline) throws InterruptedException {
        lock.lock();
        try {
            while (deadline - c.nanoTime() > 0) {
                c.awaitUntil(lock, condition, deadline);
            }
            return c.nanoTime();
        } finally {
            lock.unlock();
        }
    }

    // ---- time

    @Test
    void aNewFakeClockStartsAtItsWallTimeAndDoesNotMoveByItself() {
        FakeClock c = new FakeClock(Instant.parse("2030-05-06T07:08:09Z"));
        long t0 = c.nanoTime();
        assertThat(c.now()).isEqualTo(Instant.parse("2030-05-06T07:08:09Z"));
        assertThat(c.nanoTime()).isEqualTo(t0);
        assertThat(new FakeClock().now()).isEqualTo(Instant.parse("2026-01-01T00:00:00Z"));
    }

    @Test
    void stepMovesNanoTimeAndNowByTheSameAmount() {
        long t0 = clock.nanoTime();
        Instant w0 = clock.now();
        clock.step(Duration.ofMillis(1500));
        assertThat(clock.nanoTime() - t0).isEqualTo(1_500_000_000L);
        assertThat(clock.now()).isEqualTo(w0.plusMillis(1500));
        clock.step(Duration.ofNanos(1));
        assertThat(clock.nanoTime() - t0).isEqualTo(1_500_000_001L);
        assertThat(clock.now()).isEqualTo(w0.plusNanos(1_500_000_001L));
    }

    @Test
    void aZeroStepChangesNothing() {
        long t0 = clock.nanoTime();
        Instant w0 = clock.now();
        clock.step(Duration.ZERO);
        assertThat(clock.nanoTime()).isEqualTo(t0);
        assertThat(clock.now()).isEqualTo(w0);
    }

    @Test
    void aNegativeStepIsRejectedAndTheClockStaysWhereItWas() {
        long t0 = clock.nanoTime();
        assertThatThrownBy(() -> clock.step(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("PT-0.001S");
        assertThat(clock.nanoTime()).isEqualTo(t0);
        assertThatThrownBy(() -> clock.step(null)).isInstanceOf(NullPointerException.class);
    }

    // ---- waiters

    @ParameterizedTest
    @EnumSource(Kind.class)
    void aThreadWaitingForAFiniteDeadlineIsAWaiterUntilTheClockReachesTheDeadline(Kind kind) throws Exception {
        long deadline = clock.nanoTime() + Duration.ofSeconds(10).toNanos();
        assertThat(clock.hasWaiters()).isFalse();
        assertThat(clock.waiterCount()).isZero();

        Call<Long> waiter = TestThreads.start(kind, () -> waitUntil(clock, deadline));
        eventually().until(clock::hasWaiters);
        assertThat(clock.waiterCount()).isEqualTo(1);

        clock.step(Duration.ofSeconds(9));
        assertThat(clock.waiterCount()).isEqualTo(1);
        assertThat(waiter.awaitBlocked().result()).isNotDone();

        clock.step(Duration.ofSeconds(1));
        assertThat(waiter.join()).isEqualTo(deadline);
        assertThat(clock.hasWaiters()).isFalse();
        assertThat(clock.waiterCount()).isZero();
    }

    @Test
    void aStepPastTheDeadlineWakesTheWaiterToo() throws Exception {
        long deadline = clock.nanoTime() + 1_000;
        Call<Long> waiter = TestThreads.start(() -> waitUntil(clock, deadline));
        eventually().until(clock::hasWaiters);
        clock.step(Duration.ofHours(1));
        assertThat(waiter.join() - deadline).isEqualTo(Duration.ofHours(1).toNanos() - 1_000);
    }

    @Test
    void aStepWakesOnlyTheWaitersWhoseDeadlineItReaches() throws Exception {
        long t0 = clock.nanoTime();
        Call<Long> one = TestThreads.start(() -> waitUntil(clock, t0 + 1_000_000_000L));
        Call<Long> two = TestThreads.start(() -> waitUntil(clock, t0 + 2_000_000_000L));
        Call<Long> three = TestThreads.start(() -> waitUntil(clock, t0 + 3_000_000_000L));
        eventually().until(() -> clock.waiterCount() == 3);

        clock.step(Duration.ofSeconds(2));
        assertThat(one.join() - t0).isEqualTo(2_000_000_000L);
        assertThat(two.join() - t0).isEqualTo(2_000_000_000L);
        eventually().until(() -> clock.waiterCount() == 1);
        assertThat(three.awaitBlocked().result()).isNotDone();

        clock.step(Duration.ofSeconds(1));
        assertThat(three.join() - t0).isEqualTo(3_000_000_000L);
        assertThat(clock.waiterCount()).isZero();
    }

    @Test
    void twoWaitersWithTheSameLockConditionAndDeadlineAreCountedTwice() throws Exception {
        long deadline = clock.nanoTime() + 5;
        Call<Long> a = TestThreads.start(() -> waitUntil(clock, deadline));
        Call<Long> b = TestThreads.start(() -> waitUntil(clock, deadline));
        eventually().until(() -> clock.waiterCount() == 2);
        clock.step(Duration.ofNanos(5));
        a.join();
        b.join();
        assertThat(clock.waiterCount()).isZero();
    }

    @Test
    void aDeadlineAlreadyReachedReturnsAtOnceWithoutBecomingAWaiter() throws InterruptedException {
        clock.step(Duration.ofSeconds(5));
        long now = clock.nanoTime();
        lock.lock();
        try {
            clock.awaitUntil(lock, condition, now);
            clock.awaitUntil(lock, condition, now - 1);
            clock.awaitUntil(lock, condition, Long.MIN_VALUE + now); // long ago, across the sign boundary
        } finally {
            lock.unlock();
        }
        assertThat(clock.hasWaiters()).isFalse();
    }

    @Test
    void aLongMaxValueDeadlineIsNoDeadlineAndNotAWaiter() throws Exception {
        Call<Void> waiter = TestThreads.start(() -> {
            lock.lock();
            try {
                clock.awaitUntil(lock, condition, Long.MAX_VALUE);
            } finally {
                lock.unlock();
            }
            return null;
        });
        waiter.awaitBlocked();
        assertThat(clock.hasWaiters()).isFalse();
        assertThat(clock.waiterCount()).isZero();
        clock.step(Duration.ofDays(365L * 100));
        assertThat(waiter.awaitBlocked().result()).isNotDone();

        lock.lock();
        try {
            condition.signalAll();
        } finally {
            lock.unlock();
        }
        waiter.join();
    }

    @Test
    void aSignalEndsAFiniteWaitEarlyAndTheWaiterIsRemoved() throws Exception {
        Call<Void> waiter = TestThreads.start(() -> {
            lock.lock();
            try {
                clock.awaitUntil(
                        lock, condition, clock.nanoTime() + Duration.ofHours(1).toNanos());
            } finally {
                lock.unlock();
            }
            return null;
        });
        eventually().until(clock::hasWaiters);
        lock.lock();
        try {
            condition.signalAll();
        } finally {
            lock.unlock();
        }
        waiter.join();
        assertThat(clock.hasWaiters()).isFalse();
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void interruptingAWaiterThrowsInterruptedExceptionAndRemovesIt(Kind kind) throws Exception {
        Call<Long> waiter = TestThreads.start(kind, () -> waitUntil(clock, clock.nanoTime() + 1_000_000));
        eventually().until(clock::hasWaiters);
        waiter.thread().interrupt();
        assertThatThrownBy(waiter::join).cause().isInstanceOf(InterruptedException.class);
        assertThat(clock.hasWaiters()).isFalse();
    }

    @Test
    void aWaiterHoldsItsLockAgainWhenItReturns() throws Exception {
        Call<Boolean> waiter = TestThreads.start(() -> {
            lock.lock();
            try {
                long deadline = clock.nanoTime() + 10;
                while (deadline - clock.nanoTime() > 0) {
                    clock.awaitUntil(lock, condition, deadline);
                }
                return lock.isHeldByCurrentThread();
            } finally {
                lock.unlock();
            }
        });
        eventually().until(clock::hasWaiters);
        clock.step(Duration.ofNanos(10));
        assertThat(waiter.join()).isTrue();
    }

    // ---- the system clock

    @Test
    void theSystemClockWaitsInRealTimeUntilTheDeadline() throws InterruptedException {
        Clock system = Clock.system();
        long start = system.nanoTime();
        long deadline = start + Duration.ofMillis(20).toNanos();
        long woke = waitUntil(system, deadline);
        assertThat(woke - deadline).isNotNegative();
        assertThat(Duration.between(Instant.now(), system.now()).abs()).isLessThan(Duration.ofSeconds(1));
    }

    @Test
    void theSystemClockReturnsAtOnceForADeadlineInThePast() throws InterruptedException {
        Clock system = Clock.system();
        lock.lock();
        try {
            system.awaitUntil(lock, condition, system.nanoTime() - 1);
        } finally {
            lock.unlock();
        }
    }
}
