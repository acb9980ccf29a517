package io.kubeloop.apiserver.internal.registry;

import static io.kubeloop.apiserver.internal.registry.FieldChecks.notSupported;

import io.kubeloop.model.Statuses.FieldError;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * networking.k8s.io/v1 NetworkPolicy, as kube's {@code SetDefaults_NetworkPolicy} and validation: policyTypes
 * default to Ingress, plus Egress when egress rules are given; rule ports default to TCP; policyTypes are
 * Ingress or Egress.
 */
final class NetworkPolicyStrategy implements ResourceStrategy {

    @Override
    public void applyDefaults(ObjectNode policy) {
        ObjectNode spec = JobStrategy.object(policy, "spec");
        if (spec.path("policyTypes").isEmpty()) {
            ArrayNode types = spec.putArray("policyTypes");
            types.add("Ingress");
            if (!spec.path("egress").isEmpty()) {
                types.add("Egress");
            }
        }
        for (String direction : List.of("ingress", "egress")) {
            for (JsonNode rule : spec.path(direction)) {
                for (JsonNode port : rule.path("ports")) {
                    if (port instanceof ObjectNode p && !p.has("protocol")) {
                        p.put("protocol", "TCP");
                    }
                }
            }
        }
    }

    @Override
    public List<FieldError> validate(ObjectNode policy) {
        List<FieldError> errors = new ArrayList<>();
        JsonNode types = policy.path("spec").path("policyTypes");
        for (int i = 0; i < types.size(); i++) {
            if (!List.of("Ingress", "Egress").contains(FieldChecks.text(types.get(i)))) {
                errors.add(notSupported("spec.policyTypes[" + i + "]", types.get(i), List.of("Ingress", "Egress")));
            }
        }
        return errors;
    }
}
