package io.kubeloop.controller;

import static io.kubeloop.controller.ControllerHarness.eventually;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.clock.FakeClock;
import io.kubeloop.testkit.KubeloopTest;
import io.kubeloop.testkit.TestNamespace;
import io.kubeloop.workqueue.PriorityWorkQueue;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Real events go ahead of the initial list (controller-runtime's priority queue), and the initial list is not starved
 * by a stream of real events (the queue ages items; its aging period runs on the manager's {@link FakeClock}).
 */
@KubeloopTest(shared = true)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PriorityTest {

    private static final int INITIAL = 10;

    private final FakeClock clock = new FakeClock();
    private ControllerHarness h;
    private final Recorder<ConfigMap> recorder = new Recorder<>();
    private final CountDownLatch release = new CountDownLatch(1);

    @BeforeEach
    void setUp(KubernetesClient client, @TestNamespace String namespace) throws Exception {
        h = new ControllerHarness(client, namespace, clock);
        AtomicInteger calls = new AtomicInteger();
        recorder.answering((r, n) -> {
            if (calls.incrementAndGet() == 1) {
                release.await(); // the one worker holds the first key while the test fills the queue
            }
            return Result.done();
        });
        for (int i = 0; i < INITIAL; i++) {
            h.create("init-" + i);
        }
        h.manager.newControllerFor(ConfigMap.class).complete(recorder);
        h.start();
        // the initial list, in key order: init-0 is held, the other inits and kube-root-ca.crt (every namespace has
        // it; the recorder does not record it) wait
        eventually().until(() -> recorder.calls.size() == 1 && h.depth("configmap") == INITIAL);
    }

    @AfterEach
    void tearDown() {
        release.countDown();
        h.close();
    }

    private List<String> order() {
        return recorder.calls.stream().map(c -> c.request().name()).toList();
    }

    @Test
    void aRealEventIsReconciledBeforeTheRestOfTheInitialList() {
        h.create("real");
        eventually().until(() -> h.depth("configmap") == INITIAL + 1);
        release.countDown();
        eventually().until(() -> recorder.calls.size() == INITIAL + 1);
        assertThat(order().get(1)).isEqualTo("real");
    }

    @Test
    void theInitialListIsNotStarvedByRealEvents() {
        for (int i = 0; i < 3; i++) {
            h.create("real-" + i);
        }
        eventually().until(() -> h.depth("configmap") == INITIAL + 3);
        clock.step(PriorityWorkQueue.DEFAULT_AGING_PERIOD); // everything waiting has aged
        release.countDown();
        eventually().until(() -> recorder.calls.size() == INITIAL + 3);
        List<String> next = order().subList(1, 4);
        assertThat(next).as("strict priority would give real-0, real-1, real-2").anyMatch(n -> n.startsWith("init-"));
        assertThat(next).anyMatch(n -> n.startsWith("real-"));
    }
}
