package io.kubeloop.apiserver.internal.table;

import java.time.Instant;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * PodDisruptionBudgets (kube's {@code printPodDisruptionBudget}): MIN AVAILABLE and MAX UNAVAILABLE (the
 * int-or-string, {@code N/A} when unset), ALLOWED DISRUPTIONS ({@code status.disruptionsAllowed}), AGE.
 */
final class PodDisruptionBudgetPrinter implements Printer {

    private static final List<Column> COLUMNS = List.of(
            Column.NAME,
            Column.string("Min Available", "The minimum number of pods that must be available."),
            Column.string("Max Unavailable", "The maximum number of pods that may be unavailable."),
            Column.integer("Allowed Disruptions", "Calculated number of pods that may be disrupted at this time."),
            Column.AGE);

    @Override
    public List<Column> columns() {
        return COLUMNS;
    }

    @Override
    public Row row(ObjectNode pdb, Instant now) {
        JsonNode spec = pdb.path("spec");
        return Row.of(
                Fields.text(pdb.path("metadata").get("name")),
                intOrString(spec.get("minAvailable")),
                intOrString(spec.get("maxUnavailable")),
                Fields.integer(pdb.path("status").get("disruptionsAllowed")),
                Ages.of(pdb, now));
    }

    private static String intOrString(JsonNode value) {
        return value == null || value.isNull() ? "N/A" : Fields.text(value);
    }
}
