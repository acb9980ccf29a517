package io.kubeloop.informer.testing;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

/** Reads metrics the way Prometheus sees them: from the registry's text exposition. */
public final class PrometheusScrape {

    private PrometheusScrape() {}

    /**
     * The value of one series, given exactly as it is printed before the value (name and tags, e.g.
     * {@code reflector_lists_total{name="pods"}}); NaN when the registry does not print it.
     */
    public static double value(PrometheusMeterRegistry registry, String series) {
        for (String line : registry.scrape().split("\n")) {
            if (line.startsWith(series + " ")) {
                return Double.parseDouble(line.substring(series.length() + 1).trim());
            }
        }
        return Double.NaN;
    }
}
