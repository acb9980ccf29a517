package io.kubeloop.apiserver.internal.table;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** {@code spec.replicas} of a workload, with the API default of 1 when it was not set. */
final class Replicas {

    private Replicas() {}

    static long desired(ObjectNode workload) {
        JsonNode replicas = workload.path("spec").get("replicas");
        return replicas != null && replicas.isNumber() ? replicas.asLong() : 1;
    }
}
