package io.kubeloop.apiserver.internal.table;

import java.time.Instant;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** IngressClasses (kube's {@code printIngressClass}): CONTROLLER, PARAMETERS ({@code Kind.group/name}), AGE. */
final class IngressClassPrinter implements Printer {

    private static final List<Column> COLUMNS = List.of(
            Column.NAME,
            Column.string("Controller", "Controller that is responsible for handling this class"),
            Column.string("Parameters", "A reference to a resource with additional parameters"),
            Column.AGE);

    @Override
    public List<Column> columns() {
        return COLUMNS;
    }

    @Override
    public Row row(ObjectNode ingressClass, Instant now) {
        JsonNode spec = ingressClass.path("spec");
        String parameters = "<none>";
        JsonNode p = spec.get("parameters");
        if (Fields.isSet(p)) {
            parameters = Fields.text(p.get("kind"));
            if (p.path("apiGroup").isString()) {
                parameters = parameters + "." + p.get("apiGroup").asString();
            }
            parameters = parameters + "/" + Fields.text(p.get("name"));
        }
        return Row.of(
                Fields.text(ingressClass.path("metadata").get("name")),
                Fields.text(spec.get("controller")),
                parameters,
                Ages.of(ingressClass, now));
    }
}
