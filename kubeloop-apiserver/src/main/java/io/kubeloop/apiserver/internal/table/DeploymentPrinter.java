package io.kubeloop.apiserver.internal.table;

import java.time.Instant;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** Deployments: READY {@code ready/desired}, UP-TO-DATE, AVAILABLE, AGE; wide: containers, images, selector. */
final class DeploymentPrinter implements Printer {

    private static final List<Column> COLUMNS = List.of(
            Column.NAME,
            Column.string("Ready", Descriptions.READY_PODS),
            Column.string("Up-to-date", Descriptions.UPDATED_REPLICAS),
            Column.string("Available", Descriptions.AVAILABLE_REPLICAS),
            Column.AGE,
            Column.containers(),
            Column.images(),
            Column.wide("Selector", Descriptions.DEPLOYMENT_SELECTOR));

    @Override
    public List<Column> columns() {
        return COLUMNS;
    }

    @Override
    public Row row(ObjectNode deployment, Instant now) {
        JsonNode status = deployment.path("status");
        ContainerCells containers = ContainerCells.ofTemplate(deployment);
        String selector = Labels.selector(deployment.path("spec").get("selector"));
        return Row.of(
                Fields.text(deployment.path("metadata").get("name")),
                Fields.integer(status.get("readyReplicas")) + "/" + Replicas.desired(deployment),
                Fields.integer(status.get("updatedReplicas")),
                Fields.integer(status.get("availableReplicas")),
                Ages.of(deployment, now),
                containers.names(),
                containers.images(),
                selector == null ? "<invalid>" : selector);
    }
}
