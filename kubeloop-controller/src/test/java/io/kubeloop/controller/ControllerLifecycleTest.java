package io.kubeloop.controller;

import static io.kubeloop.controller.ControllerHarness.eventually;
import static org.assertj.core.api.Assertions.assertThat;

import com.sun.management.HotSpotDiagnosticMXBean;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.clock.Clock;
import io.kubeloop.testkit.KubeloopTest;
import io.kubeloop.testkit.TestNamespace;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Workers, single-flight, stop and restart, on the embedded API server over HTTP, in real time. */
@KubeloopTest(shared = true)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ControllerLifecycleTest {

    private ControllerHarness h;
    private final Recorder<ConfigMap> recorder = new Recorder<>();

    @BeforeEach
    void setUp(KubernetesClient client, @TestNamespace String namespace) {
        h = new ControllerHarness(client, namespace, Clock.system());
    }

    @AfterEach
    void tearDown() {
        h.close();
    }

    @Test
    void aKeyIsNeverReconciledByTwoWorkersAtOnce() throws Exception {
        CountDownLatch allInside = new CountDownLatch(4);
        CountDownLatch release = new CountDownLatch(1);
        recorder.answering((r, n) -> {
            if (n == 1) {
                allInside.countDown();
                release.await();
            }
            return Result.done();
        });
        h.manager.newControllerFor(ConfigMap.class).workers(6).complete(recorder);
        h.start();
        for (int i = 0; i < 4; i++) {
            h.create("k" + i);
        }
        assertThat(allInside.await(20, TimeUnit.SECONDS))
                .as("4 reconciles at once")
                .isTrue();
        // every key is re-added while in flight, several times; two workers are idle and must not take them
        for (int round = 0; round < 3; round++) {
            for (int i = 0; i < 4; i++) {
                h.setData("k" + i, "round", Integer.toString(round));
            }
        }
        eventually().until(() -> h.depth("configmap") == 4);
        assertThat(recorder.calls).hasSize(4);
        release.countDown();
        eventually().until(() -> recorder.calls.size() == 8 && h.activeWorkers() == 0);
        assertThat(recorder.maxConcurrent.get()).isEqualTo(4);
        assertThat(recorder.overlaps.get())
                .as("reconciles of one key that overlapped")
                .isZero();
        for (int i = 0; i < 4; i++) {
            assertThat(recorder.count("k" + i))
                    .as("k%d: once more after its in-flight run, however many adds", i)
                    .isEqualTo(2);
        }
        assertThat(recorder.calls).extracting(Recorder.Call::thread).allMatch(t -> t.matches("configmap-worker-[0-5]"));
    }

    @Test
    void aSlowReconcileBlocksNeitherOtherKeysNorAnotherController() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        recorder.answering((r, n) -> {
            if (r.name().equals("slow")) {
                release.await();
            }
            return Result.done();
        });
        Recorder<ConfigMap> other = new Recorder<>();
        h.manager.newControllerFor(ConfigMap.class).workers(2).complete(recorder);
        h.manager.newControllerFor(ConfigMap.class).named("other").complete(other);
        h.start();
        h.create("slow");
        eventually().until(() -> recorder.count("slow") == 1);
        for (int i = 0; i < 5; i++) {
            h.create("fast-" + i);
        }
        eventually().until(() -> {
            for (int i = 0; i < 5; i++) {
                if (recorder.count("fast-" + i) != 1 || other.count("fast-" + i) != 1) {
                    return false;
                }
            }
            return true;
        });
        assertThat(h.gauge("controller.runtime.active.workers", "controller", "configmap"))
                .as("the slow one is still inside")
                .isEqualTo(1);
        release.countDown();
        eventually().until(() -> h.gauge("controller.runtime.active.workers", "controller", "configmap") == 0);
    }

    @Test
    void stopLetsTheReconcileInFlightFinishAndTakesNoMoreKeys() throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        recorder.answering((r, n) -> {
            if (r.name().equals("busy")) {
                entered.countDown();
                release.await();
            }
            return Result.done();
        });
        Controller c = h.manager.newControllerFor(ConfigMap.class).complete(recorder);
        ManagedRunnable runnable = (ManagedRunnable) c;
        h.start();
        h.create("busy");
        assertThat(entered.await(20, TimeUnit.SECONDS)).isTrue();
        h.create("queued");
        eventually().until(() -> c.queueDepth() == 1);

        CompletableFuture<Void> stopped = CompletableFuture.runAsync(() -> {
            try {
                runnable.stop(Duration.ofSeconds(20));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        eventually().until(() -> c.queueDepth() == 0 || stopped.isDone());
        assertThat(stopped).as("stop waits for the reconcile in flight").isNotDone();
        release.countDown();
        stopped.get(20, TimeUnit.SECONDS);
        assertThat(h.counter("controller.runtime.reconcile", "controller", "configmap", "result", "success"))
                .as("the reconcile in flight finished normally (and the namespace's kube-root-ca.crt before it)")
                .isEqualTo(2);
        assertThat(recorder.count("queued")).as("no key taken after stop").isZero();
        assertThat(h.activeWorkers()).isZero();
    }

    @Test
    void stopInterruptsAReconcileStillRunningAfterTheTimeout() throws Exception {
        CountDownLatch never = new CountDownLatch(1);
        CompletableFuture<Throwable> seen = new CompletableFuture<>();
        recorder.answering((r, n) -> {
            try {
                never.await();
            } catch (InterruptedException e) {
                seen.complete(e);
                throw e;
            }
            return Result.done();
        });
        Controller c = h.manager.newControllerFor(ConfigMap.class).complete(recorder);
        h.start();
        h.create("stuck");
        eventually().until(() -> h.activeWorkers() == 1);
        ((ManagedRunnable) c).stop(Duration.ofMillis(50));
        assertThat(seen.get(20, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
        eventually().until(() -> h.activeWorkers() == 0);
    }

    @Test
    void noWorkerOrQueueThreadIsLeftAfterAStop(@TempDir Path dir) throws Exception {
        recorder.answering((r, n) -> n == 1 ? Result.requeueAfter(Duration.ofMinutes(5)) : Result.done());
        Controller c = h.manager.newControllerFor(ConfigMap.class).workers(3).complete(recorder);
        h.start();
        h.create("a"); // its requeue-after starts the queue's timer thread
        eventually().until(() -> recorder.count("a") == 1 && h.activeWorkers() == 0);
        String running = threadDump(dir.resolve("before.txt"));
        assertThat(running)
                .contains("\"configmap-worker-0\"", "\"configmap-worker-2\"", "\"workqueue-configmap-timer\"");

        ((ManagedRunnable) c).stop(Duration.ofSeconds(5));
        eventually().until(() -> {
            String after = threadDump(dir.resolve("after-" + System.nanoTime() + ".txt"));
            return !after.contains("\"configmap-worker-") && !after.contains("\"workqueue-configmap-timer\"");
        });
    }

    /** A thread dump that lists virtual threads too (Thread.getAllStackTraces does not). */
    private static String threadDump(Path file) throws java.io.IOException {
        ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class)
                .dumpThreads(file.toString(), HotSpotDiagnosticMXBean.ThreadDumpFormat.TEXT_PLAIN);
        return Files.readString(file);
    }

    @Test
    void aRestartedControllerReconcilesEveryCachedObjectAgainWithAFreshQueue() throws Exception {
        Controller c = h.manager.newControllerFor(ConfigMap.class).complete(recorder);
        ManagedRunnable runnable = (ManagedRunnable) c;
        h.start();
        h.create("a");
        h.create("b");
        eventually().until(() -> recorder.count("a") == 1 && recorder.count("b") == 1);

        runnable.stop(Duration.ofSeconds(5)); // leadership lost
        h.create("while-stopped");
        // a, b, while-stopped and the namespace's kube-root-ca.crt
        eventually().until(() -> h.informer(ConfigMap.class).lister().list().size() == 4);
        assertThat(c.queueDepth()).isZero();
        assertThat(recorder.count("while-stopped"))
                .as("nothing reconciles while stopped")
                .isZero();

        runnable.start(); // elected again
        eventually()
                .until(() ->
                        recorder.count("a") == 2 && recorder.count("b") == 2 && recorder.count("while-stopped") == 1);
        h.create("after");
        eventually().until(() -> recorder.count("after") == 1);
    }
}
