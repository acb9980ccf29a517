package io.kubeloop.apiserver.internal.table;

import java.time.Instant;
import java.util.List;
import tools.jackson.databind.node.ObjectNode;

/** NetworkPolicies (kube's {@code printNetworkPolicy}): POD-SELECTOR ({@code <none>} for all pods), AGE. */
final class NetworkPolicyPrinter implements Printer {

    private static final List<Column> COLUMNS = List.of(
            Column.NAME,
            Column.string(
                    "Pod-Selector",
                    "Selects the pods to which this NetworkPolicy object applies.  The array of ingress rules is "
                            + "applied to any pods selected by this field. Multiple network policies can select the "
                            + "same set of pods.  In this case, the ingress rules for each are combined additively. "
                            + "This field is NOT optional and follows standard label selector semantics. An empty "
                            + "podSelector matches all pods in this namespace."),
            Column.AGE);

    @Override
    public List<Column> columns() {
        return COLUMNS;
    }

    @Override
    public Row row(ObjectNode policy, Instant now) {
        return Row.of(
                Fields.text(policy.path("metadata").get("name")),
                Labels.formatSelector(policy.path("spec").path("podSelector")),
                Ages.of(policy, now));
    }
}
