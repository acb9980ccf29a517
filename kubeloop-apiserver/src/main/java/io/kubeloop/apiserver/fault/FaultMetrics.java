package io.kubeloop.apiserver.fault;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import java.util.function.ToIntFunction;

/**
 * The fault meters on the server's {@code /metrics}:
 * <ul>
 *   <li>{@code kubeloop_apiserver_faults_injected_total{fault,resource,verb}}: faults started, labelled with
 *       their scope ("" for any);
 *   <li>{@code kubeloop_apiserver_fault_affected_requests_total{fault,resource,verb}}: requests a fault acted on
 *       (failed, delayed, held by a partition) and watches it closed or held;
 *   <li>{@code kubeloop_apiserver_faults_active{fault}}: faults in force now.
 * </ul>
 * Nothing is counted until {@link #bind} gives it the server's registry.
 */
final class FaultMetrics {

    /** The faults that last, and so have a gauge. */
    static final List<String> LASTING = List.of("fail", "latency", "partition", "stall");

    private volatile MeterRegistry registry;

    void bind(MeterRegistry registry, ToIntFunction<String> active) {
        for (String fault : LASTING) {
            Gauge.builder("kubeloop.apiserver.faults.active", () -> active.applyAsInt(fault))
                    .description("Faults injected into the kubeloop API server that are in force now.")
                    .tag("fault", fault)
                    .register(registry);
        }
        this.registry = registry;
    }

    void injected(String fault, Scope scope) {
        MeterRegistry r = registry;
        if (r != null) {
            Counter.builder("kubeloop.apiserver.faults.injected")
                    .description("Faults injected into the kubeloop API server, by kind and scope.")
                    .tags("fault", fault, "resource", scope.resourceLabel(), "verb", scope.verbLabel())
                    .register(r)
                    .increment();
        }
    }

    void affected(String fault, String resource, String verb) {
        MeterRegistry r = registry;
        if (r != null) {
            Counter.builder("kubeloop.apiserver.fault.affected.requests")
                    .description("Requests and watches an injected fault acted on: failed, delayed, held or closed.")
                    .tags("fault", fault, "resource", resource, "verb", verb)
                    .register(r)
                    .increment();
        }
    }
}
