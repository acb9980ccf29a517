package io.kubeloop.controller;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.client.errors.KubernetesApiException;
import io.kubeloop.clock.FakeClock;
import io.kubeloop.testkit.KubeloopTest;
import io.kubeloop.testkit.TestNamespace;
import io.kubeloop.workqueue.RateLimiters;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;

/**
 * The MDC a reconciler sees, and the lines SREs alert on. slf4j-simple (the tests' binding) writes to
 * {@code System.err} as it is at each call, so the test reads what it writes by swapping that stream.
 */
@KubeloopTest(shared = true)
class ReconcileLogsTest {

    @Test
    void aReconcileRunsWithTheMdcOfItsRequestAndAFreshReconcileId(KubernetesClient client, @TestNamespace String ns)
            throws Exception {
        List<Map<String, String>> mdcs = new CopyOnWriteArrayList<>();
        FakeClock clock = new FakeClock();
        try (ControllerHarness h = new ControllerHarness(client, ns, clock)) {
            Recorder<ConfigMap> recorder = new Recorder<>();
            recorder.answering((r, n) -> {
                mdcs.add(MDC.getCopyOfContextMap());
                return n == 1 ? Result.requeueAfter(Duration.ofSeconds(1)) : Result.done();
            });
            h.manager.newControllerFor(ConfigMap.class).named("mdc").complete(recorder);
            h.start();
            h.create("a");
            h.awaitSettled(recorder, "a", 1);
            clock.step(Duration.ofSeconds(1));
            h.awaitSettled(recorder, "a", 2);
        }
        assertThat(mdcs).hasSize(2).allSatisfy(mdc -> {
            assertThat(mdc)
                    .containsEntry("controller", "mdc")
                    .containsEntry("namespace", ns)
                    .containsEntry("name", "a");
            assertThat(mdc.get("reconcileID")).matches("[0-9a-f-]{36}");
        });
        assertThat(mdcs.get(0).get("reconcileID")).isNotEqualTo(mdcs.get(1).get("reconcileID"));
    }

    @Test
    void aRetriedErrorLogsTheAlertLineAndAConflictDoesNot(KubernetesClient client, @TestNamespace String ns)
            throws Exception {
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        PrintStream original = System.err;
        FakeClock clock = new FakeClock();
        try (ControllerHarness h = new ControllerHarness(client, ns, clock)) {
            Recorder<ConfigMap> recorder = new Recorder<>();
            recorder.answering((r, n) -> {
                if (r.name().equals("failing") && n == 1) {
                    throw new java.io.IOException("disk on fire");
                }
                if (r.name().equals("conflicting") && n == 1) {
                    throw KubernetesApiException.fromStatus(
                            409,
                            new StatusBuilder()
                                    .withCode(409)
                                    .withReason("Conflict")
                                    .withMessage("the object has been modified")
                                    .build(),
                            "PUT",
                            "/api/v1/namespaces/" + ns + "/configmaps/conflicting");
                }
                return Result.done();
            });
            h.manager
                    .newControllerFor(ConfigMap.class)
                    .named("logs")
                    .rateLimiter(RateLimiters.exponentialFailure(Duration.ofSeconds(1), Duration.ofSeconds(10)))
                    .complete(recorder);
            h.start();
            System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
            h.create("failing");
            h.awaitSettled(recorder, "failing", 1);
            h.create("conflicting");
            h.awaitSettled(recorder, "conflicting", 1);
        } finally {
            System.setErr(original);
        }
        String log = captured.toString(StandardCharsets.UTF_8);
        assertThat(log)
                .containsPattern("ERROR io.kubeloop.controller.Controller - Reconcile error, requeuing " + ns
                        + "/failing \\(reconcile took [0-9.]+ ms\\)")
                .contains("java.io.IOException: disk on fire")
                .containsPattern("INFO io.kubeloop.controller.Controller - Reconcile conflict \\(409\\).*" + ns
                        + "/conflicting");
        assertThat(log.lines().filter(l -> l.contains("Reconcile error") && l.contains("conflicting")))
                .as("a conflict is not an error line")
                .isEmpty();
    }
}
