package io.kubeloop.apiserver.internal.http;

import io.kubeloop.apiserver.internal.crd.ScaleSubresource;
import io.kubeloop.model.ResourceType;
import io.kubeloop.model.Statuses;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The {@code autoscaling/v1 Scale} view of a workload's replicas, as {@code /scale} serves it: the built-ins'
 * {@code spec.replicas}, or where a custom resource's {@link ScaleSubresource} says.
 */
final class Scale {

    private Scale() {}

    /**
     * The Scale of {@code object}; {@code paths} says where a custom resource keeps its replicas and selector,
     * null means the built-in workloads' fixed {@code spec.replicas}, {@code status.replicas} and
     * {@code spec.selector} (whose unset replicas default to 1; a custom resource's to 0, as kube's).
     */
    static ObjectNode of(JsonMapper json, ResourceType type, JsonNode object, ScaleSubresource paths) {
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
        ScaleSubresource p = paths == null ? ScaleSubresource.BUILT_IN : paths;
        scale.putObject("spec").put("replicas", at(object, p.specReplicasPath()).asInt(paths == null ? 1 : 0));
        ObjectNode status = scale.putObject("status");
        status.put("replicas", at(object, p.statusReplicasPath()).asInt(0));
        String selector = paths == null
                ? selector(object.path("spec").path("selector"))
                : p.labelSelectorPath().isEmpty()
                        ? ""
                        : at(object, p.labelSelectorPath()).asString("");
        if (!selector.isEmpty()) {
            status.put("selector", selector);
        }
        return scale;
    }

    private static JsonNode at(JsonNode object, String path) {
        JsonNode node = object;
        for (String field : ScaleSubresource.fields(path)) {
            node = node.path(field);
        }
        return node;
    }

    /** {@code spec.replicas} of a Scale sent by a client; 422 when it is missing or negative. */
    static int replicas(ResourceType type, String name, JsonNode scale) {
        JsonNode r = scale.path("spec").path("replicas");
        if (!r.canConvertToInt() || r.asInt() < 0) {
            throw new ApiException(Statuses.invalid(
                    "autoscaling",
                    "Scale",
                    name,
                    List.of(new Statuses.FieldError(
                            "Invalid value",
                            "spec.replicas",
                            (r.isMissingNode() ? "null" : r.toString()) + ": must be greater than or equal to 0"))));
        }
        return r.asInt();
    }

    /** A copy of {@code current} with {@code replicas} at the spec replicas path (null paths: built-in). */
    static ObjectNode withReplicas(ObjectNode current, int replicas, ScaleSubresource paths) {
        ObjectNode copy = current.deepCopy();
        String[] fields =
                ScaleSubresource.fields((paths == null ? ScaleSubresource.BUILT_IN : paths).specReplicasPath());
        ObjectNode node = copy;
        for (int i = 0; i < fields.length - 1; i++) {
            node = node.get(fields[i]) instanceof ObjectNode o ? o : node.putObject(fields[i]);
        }
        node.put(fields[fields.length - 1], replicas);
        return copy;
    }

    /** A LabelSelector object as the selector string kubectl shows: {@code app=web}. */
    private static String selector(JsonNode selector) {
        Map<String, String> labels = new TreeMap<>();
        selector.path("matchLabels")
                .properties()
                .forEach(e -> labels.put(e.getKey(), e.getValue().asString()));
        StringBuilder sb = new StringBuilder();
        labels.forEach((k, v) ->
                sb.append(sb.isEmpty() ? "" : ",").append(k).append('=').append(v));
        return sb.toString();
    }
}
