package io.kubeloop.apiserver.internal.registry;

import static io.kubeloop.apiserver.internal.registry.FieldChecks.invalid;
import static io.kubeloop.apiserver.internal.registry.FieldChecks.notSupported;

import io.kubeloop.model.Statuses.FieldError;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * policy/v1 PodDisruptionBudget, as kube's {@code pkg/registry/policy/poddisruptionbudget} strategy and
 * {@code ValidatePodDisruptionBudgetSpec}: minAvailable and maxUnavailable may not both be set, each is a
 * non-negative integer or a percentage of at most 100%; unhealthyPodEvictionPolicy is IfHealthyBudget or
 * AlwaysAllow. A new budget's status is the zero status Go serializes (its four counters are not omitempty).
 */
final class PodDisruptionBudgetStrategy implements ResourceStrategy {

    @Override
    public void prepareForCreate(ObjectNode pdb) {
        ObjectNode status = pdb.putObject("status");
        status.put("disruptionsAllowed", 0);
        status.put("currentHealthy", 0);
        status.put("desiredHealthy", 0);
        status.put("expectedPods", 0);
    }

    @Override
    public List<FieldError> validate(ObjectNode pdb) {
        List<FieldError> errors = new ArrayList<>();
        JsonNode spec = pdb.path("spec");
        JsonNode min = spec.get("minAvailable");
        JsonNode max = spec.get("maxUnavailable");
        if (isSet(min) && isSet(max)) {
            errors.add(invalid("spec", spec, "minAvailable and maxUnavailable cannot be both set"));
        }
        intOrPercent(errors, min, "spec.minAvailable");
        intOrPercent(errors, max, "spec.maxUnavailable");
        JsonNode policy = spec.get("unhealthyPodEvictionPolicy");
        if (isSet(policy) && !List.of("IfHealthyBudget", "AlwaysAllow").contains(FieldChecks.text(policy))) {
            errors.add(
                    notSupported("spec.unhealthyPodEvictionPolicy", policy, List.of("IfHealthyBudget", "AlwaysAllow")));
        }
        return errors;
    }

    private static boolean isSet(JsonNode node) {
        return node != null && !node.isNull();
    }

    /** {@code ValidatePositiveIntOrPercent} and {@code IsNotMoreThan100Percent}. */
    private static void intOrPercent(List<FieldError> errors, JsonNode value, String path) {
        if (!isSet(value)) {
            return;
        }
        if (value.isNumber()) {
            if (value.asLong() < 0) {
                errors.add(invalid(path, value.asLong(), "must be greater than or equal to 0"));
            }
            return;
        }
        String s = FieldChecks.text(value);
        if (!s.matches("[0-9]+%")) {
            errors.add(invalid(path, s, "must be an integer or percentage (e.g '5%')"));
        } else if (Long.parseLong(s.substring(0, s.length() - 1)) > 100) {
            errors.add(invalid(path, s, "must not be greater than 100%"));
        }
    }
}
