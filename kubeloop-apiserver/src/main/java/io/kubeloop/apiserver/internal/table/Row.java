package io.kubeloop.apiserver.internal.table;

import java.util.List;

/**
 * One table row before it becomes JSON: its cells (String, Long, Double, Boolean or null, one per column) and the optional
 * row conditions (kube sets {@code Completed} on succeeded and failed pods).
 */
record Row(List<Object> cells, List<Condition> conditions) {

    Row {
        cells = java.util.Collections.unmodifiableList(new java.util.ArrayList<>(cells)); // null cells allowed
        conditions = List.copyOf(conditions);
    }

    static Row of(Object... cells) {
        return new Row(List.of(cells), List.of());
    }

    /** A {@code rows[].conditions} entry. */
    record Condition(String type, String status, String reason, String message) {}
}
