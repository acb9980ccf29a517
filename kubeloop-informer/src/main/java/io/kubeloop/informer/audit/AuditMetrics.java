package io.kubeloop.informer.audit;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@link CacheAuditor}'s meters. Under Prometheus' naming convention the dotted names come out as
 * {@code informer_cache_drift_objects{name}} (gauge: the drifted objects of the last completed audit, 0 before
 * the first) and {@code informer_cache_audits_total{name,result}} (counter; {@code result} is {@code clean},
 * {@code drift}, or {@code error} for an audit that could not read the server).
 *
 * <p>Without a registry the meters live in an empty composite registry, Micrometer's no-op: recording costs
 * nothing and nothing is published.
 */
final class AuditMetrics {

    static final String DRIFT_OBJECTS = "informer.cache.drift.objects";
    static final String AUDITS = "informer.cache.audits";

    private final MeterRegistry registry;
    private final AtomicLong driftObjects = new AtomicLong();
    private final Gauge drift;
    private final Counter clean;
    private final Counter drifted;
    private final Counter error;

    AuditMetrics(String name, MeterRegistry registryOrNull) {
        this.registry = registryOrNull == null ? new CompositeMeterRegistry() : registryOrNull;
        this.drift = Gauge.builder(DRIFT_OBJECTS, driftObjects, AtomicLong::get)
                .description("Objects that differed between the informer's cache and the server in the last audit")
                .tag("name", name)
                .strongReference(true)
                .register(registry);
        this.clean = audits(name, "clean");
        this.drifted = audits(name, "drift");
        this.error = audits(name, "error");
    }

    private Counter audits(String name, String result) {
        return Counter.builder(AUDITS)
                .description("Cache audits, by result: clean, drift, or error (the server could not be read)")
                .tags("name", name, "result", result)
                .register(registry);
    }

    void completed(AuditResult result) {
        driftObjects.set(result.driftedObjects());
        (result.isClean() ? clean : drifted).increment();
    }

    void failed() {
        error.increment();
    }

    /** Removes the gauge, which would otherwise report a closed auditor's last result forever. */
    void close() {
        registry.remove(drift);
    }
}
