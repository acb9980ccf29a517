package io.kubeloop.controller;

import static io.kubeloop.controller.ControllerHarness.eventually;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.client.errors.KubernetesApiException;
import io.kubeloop.clock.FakeClock;
import io.kubeloop.testkit.KubeloopTest;
import io.kubeloop.testkit.TestNamespace;
import io.kubeloop.workqueue.RateLimiters;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Every row of controller-runtime's reconcile outcome table (§2.1 of the reference), plus maxRetries and the
 * reconcile timeout, through the public builder, on the embedded API server, with every delay on a {@link FakeClock}.
 * The controller's back-off is 1 s × 2^(n-1), so each retry's due time is a whole number of seconds the test steps to.
 */
@KubeloopTest(shared = true)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ReconcileOutcomesTest {

    private static final String C = "outcomes";

    private final FakeClock clock = new FakeClock();
    private ControllerHarness h;
    private final Recorder<ConfigMap> recorder = new Recorder<>();

    @BeforeEach
    void setUp(KubernetesClient client, @TestNamespace String namespace) {
        h = new ControllerHarness(client, namespace, clock);
    }

    @AfterEach
    void tearDown() {
        h.close();
    }

    private ControllerBuilder<ConfigMap> controller() {
        return h.manager
                .newControllerFor(ConfigMap.class)
                .named(C)
                .rateLimiter(RateLimiters.exponentialFailure(Duration.ofSeconds(1), Duration.ofSeconds(1000)));
    }

    private double total(String result) {
        return h.counter("controller.runtime.reconcile", "controller", C, "result", result);
    }

    private double count(String name) {
        return h.counter(name, "controller", C);
    }

    @Test
    void allFourResultSeriesStartAtZero() {
        controller().complete(recorder);
        for (String result : new String[] {"success", "error", "requeue", "requeue_after"}) {
            assertThat(total(result)).as(result).isZero();
        }
        assertThat(h.registry.scrape())
                .contains("controller_runtime_reconcile_total{controller=\"outcomes\",result=\"requeue_after\"} 0");
    }

    @Test
    void doneForgetsTheBackOffAndCountsSuccess() throws Exception {
        recorder.answering((r, n) -> {
            if (r.name().equals("a") && n == 1) {
                throw new Exception("first attempt fails");
            }
            return Result.done();
        });
        controller().complete(recorder);
        h.start();
        h.create("a");
        h.awaitSettled(recorder, "a", 1);
        clock.step(Duration.ofSeconds(1));
        h.awaitSettled(recorder, "a", 2);
        assertThat(total("success")).isEqualTo(1 + 1); // and the namespace's kube-root-ca.crt, reconciled at start
        // forgotten: the next failure waits the base delay again, not 2 s
        recorder.answering((r, n) -> {
            if (r.name().equals("a")) {
                throw new Exception("fails again");
            }
            return Result.done();
        });
        h.setData("a", "k", "v");
        h.awaitSettled(recorder, "a", 3);
        clock.step(Duration.ofSeconds(1));
        h.awaitSettled(recorder, "a", 4);
    }

    @Test
    void anExceptionIsRetriedWithTheGrowingBackOff() throws Exception {
        recorder.answering((r, n) -> {
            if (r.name().equals("a") && n <= 2) {
                throw new Exception("attempt " + n + " fails");
            }
            return Result.done();
        });
        controller().complete(recorder);
        h.start();
        h.create("a");
        h.awaitSettled(recorder, "a", 1);
        clock.step(Duration.ofMillis(999));
        h.assertStillAt(recorder, "a", 1);
        clock.step(Duration.ofMillis(1));
        h.awaitSettled(recorder, "a", 2);
        clock.step(Duration.ofSeconds(1)); // the second failure waits 2 s
        h.assertStillAt(recorder, "a", 2);
        clock.step(Duration.ofSeconds(1));
        h.awaitSettled(recorder, "a", 3);

        assertThat(total("error")).isEqualTo(2);
        assertThat(count("controller.runtime.reconcile.errors")).isEqualTo(2);
        assertThat(count("controller.runtime.reconcile.panics"))
                .as("checked exceptions are not panics")
                .isZero();
        assertThat(total("success")).isEqualTo(1 + 2 + 1); // "a", two probes and kube-root-ca.crt
    }

    @Test
    void aTerminalExceptionIsNotRetriedAndDoesNotResetTheBackOff() throws Exception {
        recorder.answering((r, n) -> {
            if (!r.name().equals("a")) {
                return Result.done();
            }
            if (n == 2) {
                throw new IllegalStateException("wrapped", new TerminalException("bad spec"));
            }
            throw new Exception(n == 1 ? "transient" : "transient again");
        });
        controller().complete(recorder);
        h.start();
        h.create("a");
        h.awaitSettled(recorder, "a", 1);
        clock.step(Duration.ofSeconds(1));
        h.awaitSettled(recorder, "a", 2); // terminal, found in the cause chain
        clock.step(Duration.ofSeconds(1000));
        h.assertStillAt(recorder, "a", 2);
        assertThat(count("controller.runtime.terminal.reconcile.errors")).isEqualTo(1);
        assertThat(count("controller.runtime.reconcile.errors")).isEqualTo(2);

        // not forgotten: after the next event's failure the back-off continues at 2 s (the 2nd recorded failure)
        h.setData("a", "k", "v");
        h.awaitSettled(recorder, "a", 3);
        clock.step(Duration.ofSeconds(1));
        h.assertStillAt(recorder, "a", 3);
        clock.step(Duration.ofSeconds(1));
        h.awaitSettled(recorder, "a", 4);
    }

    @Test
    void requeueAfterForgetsAndAddsAfterExactlyThatDelay() throws Exception {
        recorder.answering((r, n) -> {
            if (!r.name().equals("a")) {
                return Result.done();
            }
            return switch (n) {
                case 1 -> throw new Exception("fails once");
                case 2 -> Result.requeueAfter(Duration.ofSeconds(30));
                case 3 -> throw new Exception("fails after the requeue");
                default -> Result.done();
            };
        });
        controller().complete(recorder);
        h.start();
        h.create("a");
        h.awaitSettled(recorder, "a", 1);
        clock.step(Duration.ofSeconds(1));
        h.awaitSettled(recorder, "a", 2);
        clock.step(Duration.ofSeconds(29));
        h.assertStillAt(recorder, "a", 2);
        clock.step(Duration.ofSeconds(1));
        h.awaitSettled(recorder, "a", 3);
        // the requeue-after forgot the earlier failure: this one waits 1 s, not 2 s
        clock.step(Duration.ofSeconds(1));
        h.awaitSettled(recorder, "a", 4);
        assertThat(total("requeue_after")).isEqualTo(1);
    }

    @Test
    void requeueAddsRateLimitedWithoutResettingTheBackOff() throws Exception {
        recorder.answering((r, n) -> r.name().equals("a") && n <= 2 ? Result.requeue() : Result.done());
        controller().complete(recorder);
        h.start();
        h.create("a");
        h.awaitSettled(recorder, "a", 1);
        clock.step(Duration.ofSeconds(1));
        h.awaitSettled(recorder, "a", 2);
        clock.step(Duration.ofSeconds(1));
        h.assertStillAt(recorder, "a", 2); // 2 s the second time
        clock.step(Duration.ofSeconds(1));
        h.awaitSettled(recorder, "a", 3);
        assertThat(total("requeue")).isEqualTo(2);
        assertThat(count("controller.runtime.reconcile.errors")).isZero();
    }

    @Test
    void runtimeExceptionsAndErrorsAreCountedAsPanicsRetriedAndNeverKillTheWorker() throws Exception {
        recorder.answering((r, n) -> {
            if (r.name().equals("a") && n == 1) {
                throw new NullPointerException("a bug");
            }
            if (r.name().equals("a") && n == 2) {
                throw new StackOverflowError("deep bug");
            }
            if (r.name().equals("a") && n == 3) {
                throw new AssertionError("another kind of Error");
            }
            return Result.done();
        });
        controller().complete(recorder);
        h.start();
        h.create("a");
        h.awaitSettled(recorder, "a", 1);
        clock.step(Duration.ofSeconds(1));
        h.awaitSettled(recorder, "a", 2);
        clock.step(Duration.ofSeconds(2));
        h.awaitSettled(recorder, "a", 3);
        clock.step(Duration.ofSeconds(4));
        h.awaitSettled(recorder, "a", 4);
        assertThat(count("controller.runtime.reconcile.panics")).isEqualTo(3);
        assertThat(total("error")).isEqualTo(3);
        assertThat(recorder.calls).extracting(Recorder.Call::thread).containsOnly(C + "-worker-0");
        h.assertStillAt(recorder, "a", 4); // the same single worker still takes work
    }

    @Test
    void aConflictIsRetriedAndCountedApartFromErrors() throws Exception {
        recorder.answering((r, n) -> {
            if (r.name().equals("a") && n == 1) {
                throw KubernetesApiException.fromStatus(
                        409,
                        new StatusBuilder()
                                .withCode(409)
                                .withReason("Conflict")
                                .withMessage("the object has been modified")
                                .build(),
                        "PUT",
                        "/api/v1/namespaces/x/configmaps/a");
            }
            return Result.done();
        });
        controller().complete(recorder);
        h.start();
        h.create("a");
        h.awaitSettled(recorder, "a", 1);
        clock.step(Duration.ofSeconds(1));
        h.awaitSettled(recorder, "a", 2);
        assertThat(count("controller.runtime.reconcile.conflicts")).isEqualTo(1);
        assertThat(total("requeue")).isEqualTo(1);
        assertThat(count("controller.runtime.reconcile.errors")).isZero();
        assertThat(total("error")).isZero();
    }

    @Test
    void maxRetriesDropsTheKeyAfterThatManyFailedRetries() throws Exception {
        recorder.answering((r, n) -> {
            if (r.name().equals("a")) {
                throw new Exception("always fails");
            }
            return Result.done();
        });
        controller().maxRetries(2).complete(recorder);
        h.start();
        h.create("a");
        h.awaitSettled(recorder, "a", 1);
        clock.step(Duration.ofSeconds(1));
        h.awaitSettled(recorder, "a", 2);
        clock.step(Duration.ofSeconds(2));
        h.awaitSettled(recorder, "a", 3); // the 2nd retry fails: dropped
        clock.step(Duration.ofSeconds(1000));
        h.assertStillAt(recorder, "a", 3);
        assertThat(count("controller.runtime.reconcile.dropped")).isEqualTo(1);
        assertThat(count("controller.runtime.reconcile.errors")).isEqualTo(3);
        eventually()
                .until(() -> h
                        .client
                        .resources(Event.class)
                        .inNamespace(h.configMaps.namespace().orElseThrow())
                        .list()
                        .items()
                        .stream()
                        .anyMatch(e -> "ReconcileRetriesExhausted".equals(e.getReason())
                                && "Warning".equals(e.getType())
                                && "a".equals(e.getInvolvedObject().getName())
                                && e.getMessage().contains("3 times in a row")));

        // the next event starts afresh: back-off forgotten, three more attempts
        h.setData("a", "k", "v");
        h.awaitSettled(recorder, "a", 4);
        clock.step(Duration.ofSeconds(1));
        h.awaitSettled(recorder, "a", 5);
    }

    @Test
    void aReconcileRunningPastTheTimeoutIsInterruptedCountedAndRetried() throws Exception {
        CountDownLatch never = new CountDownLatch(1);
        recorder.answering((r, n) -> {
            if (r.name().equals("a") && n == 1) {
                never.await(); // stuck until interrupted
            }
            return Result.done();
        });
        controller().reconcileTimeout(Duration.ofSeconds(10)).complete(recorder);
        h.start();
        h.create("a");
        eventually().until(() -> recorder.count("a") == 1 && h.activeWorkers() == 1);
        clock.step(Duration.ofSeconds(9));
        assertThat(h.activeWorkers()).isEqualTo(1);
        clock.step(Duration.ofSeconds(1)); // the timeout interrupts it
        h.awaitSettled(recorder, "a", 1);
        assertThat(count("controller.runtime.reconcile.timeouts")).isEqualTo(1);
        assertThat(total("error")).isEqualTo(1);
        clock.step(Duration.ofSeconds(1));
        h.awaitSettled(recorder, "a", 2);
        assertThat(total("success")).isEqualTo(1 + 1); // and the namespace's kube-root-ca.crt, reconciled at start
        // the interrupt did not leak into the worker's next reconcile
        h.assertStillAt(recorder, "a", 2);
        assertThat(count("controller.runtime.reconcile.timeouts")).isEqualTo(1);
    }
}
