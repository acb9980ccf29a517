package io.kubeloop.apiserver.http;

import io.kubeloop.model.ResourceType;
import io.kubeloop.model.Statuses;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/** The {@code autoscaling/v1 Scale} view of a workload's {@code spec.replicas}, as {@code /scale} serves it. */
final class Scale {

    private Scale() {}

    static ObjectNode of(JsonMapper json, ResourceType type, JsonNode object) {
        ObjectNode scale = json.createObjectNode();
        scale.put("kind", "Scale");
        scale.put("apiVersion", "autoscaling/v1");
        ObjectNode meta = scale.putObject("metadata");
        JsonNode m = object.get("metadata");
        for (String f : List.of("name", "namespace", "uid", "resourceVersion", "creationTimestamp")) {
            if (m.has(f)) {
                meta.set(f, m.get(f));
            }
        }
        scale.putObject("spec").put("replicas", object.path("spec").path("replicas").asInt(1));
        ObjectNode status = scale.putObject("status");
        status.put("replicas", object.path("status").path("replicas").asInt(0));
        String selector = selector(object.path("spec").path("selector"));
        if (!selector.isEmpty()) {
            status.put("selector", selector);
        }
        return scale;
    }

    /** {@code spec.replicas} of a Scale sent by a client; 422 when it is missing or negative. */
    static int replicas(ResourceType type, String name, JsonNode scale) {
        JsonNode r = scale.path("spec").path("replicas");
        if (!r.canConvertToInt() || r.asInt() < 0) {
            throw new ApiException(Statuses.invalid("autoscaling", "Scale", name, List.of(new Statuses.FieldError(
                    "Invalid value", "spec.replicas", (r.isMissingNode() ? "null" : r.toString())
                            + ": must be greater than or equal to 0"))));
        }
        return r.asInt();
    }

    static ObjectNode withReplicas(ObjectNode current, int replicas) {
        ObjectNode copy = current.deepCopy();
        JsonNode spec = copy.get("spec");
        (spec instanceof ObjectNode o ? o : copy.putObject("spec")).put("replicas", replicas);
        return copy;
    }

    /** A LabelSelector object as the selector string kubectl shows: {@code app=web}. */
    private static String selector(JsonNode selector) {
        Map<String, String> labels = new TreeMap<>();
        selector.path("matchLabels").properties().forEach(e -> labels.put(e.getKey(), e.getValue().asString()));
        StringBuilder sb = new StringBuilder();
        labels.forEach((k, v) -> sb.append(sb.isEmpty() ? "" : ",").append(k).append('=').append(v));
        return sb.toString();
    }
}
