package io.kubeloop.apiserver.internal.http;

import io.kubeloop.apiserver.internal.storage.Store;
import io.kubeloop.model.ResourceRegistry;
import io.kubeloop.model.ResourceType;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * The server's {@code /metrics}, in Prometheus text with kube-apiserver's names: {@code apiserver_request_total}
 * (verb, group, version, resource, subresource, code), {@code apiserver_request_duration_seconds} (not for
 * watches, which are long-running, as in kube-apiserver), {@code apiserver_longrunning_requests} (open
 * watches) and {@code apiserver_storage_objects} (objects per resource, counted when scraped).
 */
final class ApiServerMetrics {

    /** kube-apiserver's request duration buckets, in seconds. */
    private static final double[] BUCKETS = {
        0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60
    };

    /** What one request was, for its metrics: filled in by the router as it learns it. */
    static final class RequestLabels {
        String verb = "";
        String group = "";
        String version = "";
        String resource = "";
        String subresource = "";
    }

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final ConcurrentHashMap<String, AtomicInteger> openWatches = new ConcurrentHashMap<>();

    ApiServerMetrics(Supplier<ResourceRegistry> resources, Store store) {
        for (ResourceType t : resources.get().types()) {
            String resource = t.group().isEmpty() ? t.plural() : t.plural() + "." + t.group();
            Gauge.builder("apiserver.storage.objects", () -> count(store, t))
                    .description("Number of stored objects at the time of last check split by kind.")
                    .tags("resource", resource)
                    .register(registry);
        }
    }

    private static double count(Store store, ResourceType t) {
        return store.list(t.group(), t.plural(), null, 0, null, 0, null).items().size();
    }

    void recordRequest(RequestLabels l, int code, long nanos) {
        Tags tags = Tags.of(
                "verb",
                l.verb,
                "group",
                l.group,
                "version",
                l.version,
                "resource",
                l.resource,
                "subresource",
                l.subresource);
        Counter.builder("apiserver.request")
                .description("Counter of apiserver requests broken out for each verb, "
                        + "group, version, resource, subresource and HTTP response code.")
                .tags(tags)
                .tag("code", Integer.toString(code))
                .register(registry)
                .increment();
        if (!l.verb.equals("WATCH")) {
            Timer.builder("apiserver.request.duration")
                    .description("Response latency distribution in seconds for "
                            + "each verb, group, version, resource and subresource.")
                    .serviceLevelObjectives(buckets())
                    .tags(tags)
                    .register(registry)
                    .record(nanos, TimeUnit.NANOSECONDS);
        }
    }

    /** Ends the counting of one open watch. */
    interface OpenWatch extends AutoCloseable {
        @Override
        void close();
    }

    /** Counts an open watch until the returned handle is closed. */
    OpenWatch watchOpened(RequestLabels l) {
        String key = l.group + "/" + l.resource;
        AtomicInteger open = openWatches.computeIfAbsent(key, k -> {
            AtomicInteger n = new AtomicInteger();
            Gauge.builder("apiserver.longrunning.requests", n, AtomicInteger::get)
                    .description("Gauge of all active long-running apiserver requests broken out by verb, group, "
                            + "version, resource.")
                    .tags("verb", "WATCH", "group", l.group, "version", l.version, "resource", l.resource)
                    .register(registry);
            return n;
        });
        open.incrementAndGet();
        return open::decrementAndGet;
    }

    String scrape() {
        return registry.scrape();
    }

    /** The registry behind {@link #scrape()}, for meters kept elsewhere (the fault injector's). */
    io.micrometer.core.instrument.MeterRegistry registry() {
        return registry;
    }

    private static Duration[] buckets() {
        Duration[] d = new Duration[BUCKETS.length];
        for (int i = 0; i < d.length; i++) {
            d[i] = Duration.ofNanos((long) (BUCKETS[i] * 1e9));
        }
        return d;
    }
}
