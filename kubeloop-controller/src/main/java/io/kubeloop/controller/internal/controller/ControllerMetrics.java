package io.kubeloop.controller.internal.controller;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * One controller's meters, every one tagged {@code controller=<name>}. Micrometer names are chosen so that a Prometheus
 * registry renders controller-runtime's exact names (§8.1); the module README's meter table lists them and a test
 * compares it with what is registered.
 *
 * <p>Counters live as long as the registry (a restarted controller keeps counting); the gauges read the controller's
 * live state.
 */
final class ControllerMetrics {

    /** controller-runtime's {@code controller_runtime_reconcile_time_seconds} buckets, in seconds. */
    static final double[] RECONCILE_TIME_BUCKETS = {
        0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.25, 1.5,
        1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60
    };

    static final String SUCCESS = "success";
    static final String ERROR = "error";
    static final String REQUEUE = "requeue";
    static final String REQUEUE_AFTER = "requeue_after";

    final Counter success;
    final Counter error;
    final Counter requeue;
    final Counter requeueAfter;
    final Counter errors;
    final Counter terminalErrors;
    final Counter panics;
    final Counter timeouts;
    final Counter conflicts;
    final Counter dropped;
    private final Timer reconcileTime;
    private final Timer seedReconcileDuration;

    ControllerMetrics(
            MeterRegistry registry,
            String controller,
            int workers,
            AtomicInteger activeWorkers,
            Supplier<Number> oldestWaitingSeconds) {
        success = result(registry, controller, SUCCESS);
        error = result(registry, controller, ERROR);
        requeue = result(registry, controller, REQUEUE);
        requeueAfter = result(registry, controller, REQUEUE_AFTER);
        errors = counter(registry, "controller.runtime.reconcile.errors", controller, "reconciles that failed");
        terminalErrors = counter(
                registry,
                "controller.runtime.terminal.reconcile.errors",
                controller,
                "reconciles that failed with a TerminalException (not retried)");
        panics = counter(
                registry,
                "controller.runtime.reconcile.panics",
                controller,
                "reconciles that ended with an unexpected RuntimeException or Error");
        timeouts = counter(
                registry,
                "controller.runtime.reconcile.timeouts",
                controller,
                "reconciles interrupted by the controller's reconcile timeout");
        conflicts = counter(
                registry,
                "controller.runtime.reconcile.conflicts",
                controller,
                "reconciles that ended with a 409 Conflict (requeued, not counted as errors)");
        dropped = counter(
                registry,
                "controller.runtime.reconcile.dropped",
                controller,
                "keys dropped after the controller's maximum number of retries");
        reconcileTime = histogram(
                registry, "controller.runtime.reconcile.time", controller, "time per reconcile (controller-runtime)");
        seedReconcileDuration =
                histogram(registry, "reconcile.duration", controller, "time per reconcile (the same observations)");
        Gauge.builder("controller.runtime.max.concurrent.reconciles", () -> workers)
                .tag("controller", controller)
                .description("the controller's number of workers")
                .strongReference(true)
                .register(registry);
        Gauge.builder("controller.runtime.active.workers", activeWorkers, AtomicInteger::get)
                .tag("controller", controller)
                .description("workers inside a reconcile now")
                .strongReference(true)
                .register(registry);
        Gauge.builder("workqueue.oldest.waiting", oldestWaitingSeconds)
                .tag("name", controller)
                .tag("controller", controller)
                .baseUnit("seconds")
                .description("how long the oldest request waiting for a worker has waited")
                .strongReference(true)
                .register(registry);
    }

    void observe(Duration duration) {
        reconcileTime.record(duration.toNanos(), TimeUnit.NANOSECONDS);
        seedReconcileDuration.record(duration.toNanos(), TimeUnit.NANOSECONDS);
    }

    private static Counter result(MeterRegistry registry, String controller, String result) {
        return Counter.builder("controller.runtime.reconcile")
                .tag("controller", controller)
                .tag("result", result)
                .description("reconciles by result")
                .register(registry);
    }

    private static Counter counter(MeterRegistry registry, String name, String controller, String description) {
        return Counter.builder(name)
                .tag("controller", controller)
                .description(description)
                .register(registry);
    }

    private static Timer histogram(MeterRegistry registry, String name, String controller, String description) {
        Duration[] slos = new Duration[RECONCILE_TIME_BUCKETS.length];
        for (int i = 0; i < slos.length; i++) {
            slos[i] = Duration.ofNanos(Math.round(RECONCILE_TIME_BUCKETS[i] * 1e9));
        }
        return Timer.builder(name)
                .tag("controller", controller)
                .description(description)
                .serviceLevelObjectives(slos)
                .register(registry);
    }
}
