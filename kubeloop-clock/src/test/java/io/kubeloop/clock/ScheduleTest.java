package io.kubeloop.clock;

import static io.kubeloop.testsupport.TestThreads.eventually;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kubeloop.testsupport.TestThreads;
import io.kubeloop.testsupport.TestThreads.Call;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link Clock#schedule} and {@link Clock#sleep}, on the fake clock and the system clock. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ScheduleTest {

    private final FakeClock clock = new FakeClock();
    private final List<String> ran = new CopyOnWriteArrayList<>();

    private Runnable record(String name) {
        return () -> ran.add(name + "@" + clock.nanoTime() / 1_000_000_000L + "s on "
                + Thread.currentThread().getName());
    }

    // ---- the fake clock's tasks

    @Test
    void aTaskRunsOnTheSteppingThreadOnceItsDelayHasPassedAndNotBefore() {
        Thread.currentThread().setName("stepper");
        clock.schedule(record("a"), Duration.ofSeconds(10));
        assertThat(clock.scheduledCount()).isEqualTo(1);

        clock.step(Duration.ofSeconds(9));
        assertThat(ran).isEmpty();
        clock.step(Duration.ofSeconds(2));

        assertThat(ran).containsExactly("a@11s on stepper");
        assertThat(clock.scheduledCount()).isZero();
        clock.step(Duration.ofSeconds(100));
        assertThat(ran).as("a task runs once").hasSize(1);
    }

    @Test
    void dueTasksRunInDeadlineOrderThenSchedulingOrder() {
        clock.schedule(() -> ran.add("c"), Duration.ofSeconds(3));
        clock.schedule(() -> ran.add("a"), Duration.ofSeconds(1));
        clock.schedule(() -> ran.add("b1"), Duration.ofSeconds(2));
        clock.schedule(() -> ran.add("b2"), Duration.ofSeconds(2));
        clock.schedule(() -> ran.add("later"), Duration.ofSeconds(4));

        clock.step(Duration.ofSeconds(3));

        assertThat(ran).containsExactly("a", "b1", "b2", "c");
        assertThat(clock.scheduledCount()).isEqualTo(1);
    }

    @Test
    void aZeroDelayTaskRunsAtTheNextStepEvenByZero() {
        clock.schedule(() -> ran.add("now"), Duration.ZERO);
        clock.schedule(() -> ran.add("past"), Duration.ofSeconds(-5));
        assertThat(ran).as("never on the scheduling thread").isEmpty();

        clock.step(Duration.ZERO);

        assertThat(ran).containsExactly("now", "past");
    }

    @Test
    void aTaskThatSchedulesADueTaskSeesItRunInTheSameStepButNotALaterOne() {
        clock.schedule(
                () -> {
                    ran.add("first");
                    clock.schedule(() -> ran.add("chained"), Duration.ZERO);
                    clock.schedule(() -> ran.add("next period"), Duration.ofSeconds(1));
                },
                Duration.ofSeconds(1));

        clock.step(Duration.ofSeconds(5));
        assertThat(ran).containsExactly("first", "chained");
        clock.step(Duration.ofSeconds(1));
        assertThat(ran).containsExactly("first", "chained", "next period");
    }

    @Test
    void aCancelledTaskNeverRunsAndCancelSaysWhetherItPrevented() {
        Clock.Scheduled a = clock.schedule(() -> ran.add("a"), Duration.ofSeconds(1));
        Clock.Scheduled b = clock.schedule(() -> ran.add("b"), Duration.ofSeconds(1));

        assertThat(a.cancel()).isTrue();
        assertThat(a.cancel()).as("cancelled before").isFalse();
        assertThat(clock.scheduledCount()).isEqualTo(1);
        clock.step(Duration.ofSeconds(1));

        assertThat(ran).containsExactly("b");
        assertThat(b.cancel()).as("already ran").isFalse();
    }

    @Test
    void aTaskMayCancelAnotherDueInTheSameStep() {
        AtomicReference<Clock.Scheduled> second = new AtomicReference<>();
        clock.schedule(
                () -> {
                    ran.add("first");
                    assertThat(second.get().cancel()).isTrue();
                },
                Duration.ofSeconds(1));
        second.set(clock.schedule(() -> ran.add("second"), Duration.ofSeconds(1)));

        clock.step(Duration.ofSeconds(1));

        assertThat(ran).containsExactly("first");
    }

    @Test
    void aFailingTaskIsThrownFromStepAfterTheOtherDueTasksRan() {
        clock.schedule(
                () -> {
                    throw new IllegalStateException("boom 1");
                },
                Duration.ofSeconds(1));
        clock.schedule(() -> ran.add("survivor"), Duration.ofSeconds(1));
        clock.schedule(
                () -> {
                    throw new IllegalArgumentException("boom 2");
                },
                Duration.ofSeconds(1));

        assertThatThrownBy(() -> clock.step(Duration.ofSeconds(1)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("boom 1")
                .satisfies(e ->
                        assertThat(e.getSuppressed()).singleElement().hasFieldOrPropertyWithValue("message", "boom 2"));
        assertThat(ran).containsExactly("survivor");
        assertThat(clock.scheduledCount()).isZero();
    }

    @Test
    void anAbsurdlyLongDelayIsNever() {
        clock.schedule(() -> ran.add("never"), Duration.ofDays(365L * 1000));
        clock.step(Duration.ofDays(365L * 100));
        assertThat(ran).isEmpty();
        assertThat(clock.scheduledCount()).isEqualTo(1);
    }

    // ---- sleep on the fake clock

    @Test
    void sleepIsAWaiterUntilTheClockIsSteppedPastItsDuration() throws Exception {
        Call<Long> sleeper = TestThreads.start(() -> {
            clock.sleep(Duration.ofSeconds(3));
            return clock.nanoTime();
        });
        eventually().until(clock::hasWaiters);
        clock.step(Duration.ofSeconds(2));
        assertThat(sleeper.awaitBlocked().result()).isNotDone();

        clock.step(Duration.ofSeconds(1));

        assertThat(sleeper.join()).isEqualTo(3_000_000_000L);
        assertThat(clock.hasWaiters()).isFalse();
    }

    @Test
    void sleepOfZeroReturnsAtOnceUnlessInterrupted() throws Exception {
        clock.sleep(Duration.ZERO);
        clock.sleep(Duration.ofSeconds(-1));
        Thread.currentThread().interrupt();
        assertThatThrownBy(() -> clock.sleep(Duration.ZERO)).isInstanceOf(InterruptedException.class);
        assertThat(Thread.interrupted()).as("the interrupt status is cleared").isFalse();
    }

    @Test
    void anInterruptedSleepThrowsAndLeavesNoWaiter() throws Exception {
        Call<Void> sleeper = TestThreads.start(() -> {
            clock.sleep(Duration.ofHours(1));
            return null;
        });
        eventually().until(clock::hasWaiters);
        sleeper.thread().interrupt();
        assertThatThrownBy(sleeper::join).cause().isInstanceOf(InterruptedException.class);
        assertThat(clock.hasWaiters()).isFalse();
    }

    // ---- the system clock

    @Test
    void theSystemClockRunsATaskOnItsTimerThreadAfterTheDelay() throws Exception {
        Clock system = Clock.system();
        CountDownLatch done = new CountDownLatch(1);
        AtomicReference<String> thread = new AtomicReference<>();
        long start = System.nanoTime();
        AtomicReference<Long> ranAfter = new AtomicReference<>();
        system.schedule(
                () -> {
                    ranAfter.set(System.nanoTime() - start);
                    thread.set(Thread.currentThread().getName());
                    done.countDown();
                },
                Duration.ofMillis(20));

        assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(ranAfter.get()).isGreaterThanOrEqualTo(Duration.ofMillis(20).toNanos());
        assertThat(thread.get()).isEqualTo("kubeloop-clock");
    }

    @Test
    void theSystemClockNeverRunsACancelledTaskAndSurvivesAFailingOne() throws Exception {
        Clock system = Clock.system();
        Clock.Scheduled cancelled = system.schedule(() -> ran.add("cancelled"), Duration.ofMillis(50));
        assertThat(cancelled.cancel()).isTrue();
        system.schedule(
                () -> {
                    throw new IllegalStateException(
                            "a failing task, on purpose: the uncaught exception handler reports it");
                },
                Duration.ZERO);
        CountDownLatch after = new CountDownLatch(1);
        system.schedule(after::countDown, Duration.ofMillis(100));

        assertThat(after.await(10, TimeUnit.SECONDS))
                .as("the timer thread survived")
                .isTrue();
        assertThat(ran).isEmpty();
    }

    @Test
    void theSystemClockSleepsInRealTime() throws InterruptedException {
        long start = System.nanoTime();
        Clock.system().sleep(Duration.ofMillis(20));
        assertThat(System.nanoTime() - start)
                .isGreaterThanOrEqualTo(Duration.ofMillis(20).toNanos());
    }
}
