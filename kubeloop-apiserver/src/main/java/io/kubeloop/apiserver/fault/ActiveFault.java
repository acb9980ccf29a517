package io.kubeloop.apiserver.fault;

import java.util.Map;

/**
 * One fault in force, as {@link Faults#active()} and {@code GET /kubeloop/faults} report it.
 *
 * @param fault the kind: {@code fail}, {@code latency}, {@code partition} or {@code stall}
 * @param settings what it was started with (the admin API's field names), plus {@code remainingSeconds} for a
 *     timed fault and {@code remainingCount} for a counted failure
 */
public record ActiveFault(String fault, Map<String, Object> settings) {

    public ActiveFault {
        settings = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(settings));
    }
}
