package io.kubeloop.demo.internal.scenario;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

/** Sums of the operator's meters the live view shows. */
final class Meters {
    private Meters() {}

    /** Every counter {@code name} with tag {@code key=value}, summed; 0 when there is none. */
    static double counter(MeterRegistry registry, String name, String key, String value) {
        return registry.find(name).tag(key, value).counters().stream()
                .mapToDouble(Counter::count)
                .sum();
    }

    /** Every gauge {@code name} with tag {@code key=value}, summed (NaN values skipped); 0 when there is none. */
    static double gauge(MeterRegistry registry, String name, String key, String value) {
        return registry.find(name).tag(key, value).gauges().stream()
                .mapToDouble(Gauge::value)
                .filter(v -> !Double.isNaN(v))
                .sum();
    }
}
