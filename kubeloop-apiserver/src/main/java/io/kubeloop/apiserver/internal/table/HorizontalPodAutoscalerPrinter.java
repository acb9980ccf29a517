package io.kubeloop.apiserver.internal.table;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * HorizontalPodAutoscalers (kube's {@code printHorizontalPodAutoscaler}): REFERENCE ({@code Kind/name}), TARGETS
 * ({@code formatHPAMetrics}: {@code cpu: <unknown>/80%}, the first two metrics and {@code + N more...}), MINPODS
 * ({@code <unset>}), MAXPODS, REPLICAS, AGE.
 */
final class HorizontalPodAutoscalerPrinter implements Printer {

    private static final List<Column> COLUMNS = List.of(
            Column.NAME,
            Column.string(
                    "Reference",
                    "scaleTargetRef points to the target resource to scale, and is used to the pods for which "
                            + "metrics should be collected, as well as to actually change the replica count."),
            Column.string(
                    "Targets",
                    "metrics contains the specifications for which to use to calculate the desired replica count "
                            + "(the maximum replica count across all metrics will be used).  The desired replica "
                            + "count is calculated multiplying the ratio between the target value and the current "
                            + "value by the current number of pods.  Ergo, metrics used must decrease as the pod "
                            + "count is increased, and vice-versa.  See the individual metric source types for more "
                            + "information about how each type of metric must respond."),
            Column.string(
                    "MinPods",
                    "minReplicas is the lower limit for the number of replicas to which the autoscaler can scale "
                            + "down. It defaults to 1 pod."),
            Column.string(
                    "MaxPods",
                    "maxReplicas is the upper limit for the number of replicas to which the autoscaler can scale "
                            + "up. It cannot be less that minReplicas."),
            Column.string(
                    "Replicas",
                    "currentReplicas is current number of replicas of pods managed by this autoscaler, as last "
                            + "seen by the autoscaler."),
            Column.AGE);

    @Override
    public List<Column> columns() {
        return COLUMNS;
    }

    @Override
    public Row row(ObjectNode hpa, Instant now) {
        JsonNode spec = hpa.path("spec");
        JsonNode ref = spec.path("scaleTargetRef");
        String minPods =
                spec.path("minReplicas").isNumber() ? spec.get("minReplicas").asString() : "<unset>";
        return Row.of(
                Fields.text(hpa.path("metadata").get("name")),
                Fields.text(ref.get("kind")) + "/" + Fields.text(ref.get("name")),
                metrics(spec.path("metrics"), hpa.path("status").path("currentMetrics")),
                minPods,
                Fields.integer(spec.get("maxReplicas")),
                Fields.integer(hpa.path("status").get("currentReplicas")),
                Ages.of(hpa, now));
    }

    /** kube's {@code formatHPAMetrics}. */
    static String metrics(JsonNode specs, JsonNode statuses) {
        if (specs.isEmpty()) {
            return "<none>";
        }
        List<String> list = new ArrayList<>();
        int max = 2;
        int count = 0;
        for (int i = 0; i < specs.size(); i++) {
            JsonNode spec = specs.get(i);
            JsonNode status = statuses.path(i);
            switch (Fields.text(spec.get("type"))) {
                case "External" -> list.add(valueOrAverage(spec.path("external"), status.get("external")));
                case "Object" -> list.add(valueOrAverage(spec.path("object"), status.get("object")));
                case "Pods" -> {
                    String current = Fields.isSet(status.get("pods"))
                            ? Fields.text(status.path("pods").path("current").get("averageValue"))
                            : "<unknown>";
                    list.add(current + "/"
                            + Fields.text(spec.path("pods").path("target").get("averageValue")));
                }
                case "Resource" -> list.add(resource(spec.path("resource"), status.get("resource")));
                case "ContainerResource" ->
                    list.add(resource(spec.path("containerResource"), status.get("containerResource")));
                default -> list.add("<unknown type>");
            }
            count++;
        }
        if (count > max) {
            return String.join(", ", list.subList(0, max)) + " + " + (count - max) + " more...";
        }
        return String.join(", ", list);
    }

    private static String valueOrAverage(JsonNode spec, JsonNode status) {
        JsonNode target = spec.path("target");
        if (!Fields.text(target.get("averageValue")).isEmpty()) {
            String current = "<unknown>";
            if (Fields.isSet(status)
                    && !Fields.text(status.path("current").get("averageValue")).isEmpty()) {
                current = Fields.text(status.path("current").get("averageValue"));
            }
            return current + "/" + Fields.text(target.get("averageValue")) + " (avg)";
        }
        String current =
                Fields.isSet(status) ? Fields.text(status.path("current").get("value")) : "<unknown>";
        return current + "/" + Fields.text(target.get("value"));
    }

    private static String resource(JsonNode spec, JsonNode status) {
        String name = Fields.text(spec.get("name"));
        JsonNode target = spec.path("target");
        if (!Fields.text(target.get("averageValue")).isEmpty()) {
            String current =
                    Fields.isSet(status) ? Fields.text(status.path("current").get("averageValue")) : "<unknown>";
            return name + ": " + current + "/" + Fields.text(target.get("averageValue"));
        }
        String current = "<unknown>";
        if (Fields.isSet(status)
                && status.path("current").path("averageUtilization").isNumber()) {
            current = status.path("current").path("averageUtilization").asLong() + "%";
        }
        String goal = target.path("averageUtilization").isNumber()
                ? target.path("averageUtilization").asLong() + "%"
                : "<auto>";
        return name + ": " + current + "/" + goal;
    }
}
