package io.kubeloop.apiserver.internal.registry;

import static io.kubeloop.apiserver.internal.registry.KubeFieldErrors.forbidden;
import static io.kubeloop.apiserver.internal.registry.KubeFieldErrors.invalid;
import static io.kubeloop.apiserver.internal.registry.KubeFieldErrors.notSupported;
import static io.kubeloop.apiserver.internal.registry.KubeFieldErrors.required;

import io.kubeloop.model.Statuses.FieldError;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * apps/v1 Deployments as kube's {@code SetDefaults_Deployment}, {@code ValidateDeployment} and deployment registry
 * strategy: replicas 1, a RollingUpdate strategy of 25%/25%, 10 revisions, a 600 s progress deadline; a selector
 * that matches the template; an immutable selector; generation bumped by spec and annotation changes.
 */
final class DeploymentStrategy implements ResourceStrategy {

    private static final List<String> STRATEGIES = List.of("Recreate", "RollingUpdate");

    @Override
    public void applyDefaults(ObjectNode object) {
        ObjectNode spec = WorkloadSpecs.spec(object);
        WorkloadSpecs.defaultReplicas(spec);
        ObjectNode strategy = spec.get("strategy") instanceof ObjectNode s ? s : spec.putObject("strategy");
        PodSpecs.putIfAbsent(strategy, "type", "RollingUpdate");
        if (strategy.path("type").asString("").equals("RollingUpdate")) {
            ObjectNode rolling =
                    strategy.get("rollingUpdate") instanceof ObjectNode r ? r : strategy.putObject("rollingUpdate");
            PodSpecs.putIfAbsent(rolling, "maxUnavailable", "25%");
            PodSpecs.putIfAbsent(rolling, "maxSurge", "25%");
        }
        PodSpecs.putIfAbsent(spec, "revisionHistoryLimit", 10);
        PodSpecs.putIfAbsent(spec, "progressDeadlineSeconds", 600);
        WorkloadSpecs.defaultTemplate(spec);
    }

    @Override
    public void prepareForCreate(ObjectNode object) {
        WorkloadSpecs.resetStatus(object);
    }

    @Override
    public void prepareForUpdate(ObjectNode next, ObjectNode current) {
        WorkloadSpecs.generation(next, current, true);
    }

    @Override
    public List<FieldError> validate(ObjectNode object) {
        List<FieldError> errors = new ArrayList<>();
        JsonNode spec = object.path("spec");
        WorkloadSpecs.nonNegative(spec, "replicas", errors);
        WorkloadSpecs.validateSelector(spec, "deployment", true, errors);
        WorkloadSpecs.validateTemplate(spec, "ReplicaSet", errors);
        validateStrategy(spec.path("strategy"), errors);
        WorkloadSpecs.nonNegative(spec, "minReadySeconds", errors);
        WorkloadSpecs.nonNegative(spec, "revisionHistoryLimit", errors);
        JsonNode deadline = spec.path("progressDeadlineSeconds");
        if (deadline.isNumber()) {
            WorkloadSpecs.nonNegative(spec, "progressDeadlineSeconds", errors);
            long minReady = spec.path("minReadySeconds").asLong(0);
            if (deadline.asLong() <= minReady) {
                errors.add(invalid(
                        "spec.progressDeadlineSeconds", deadline.asLong(), "must be greater than minReadySeconds"));
            }
        }
        return errors;
    }

    private static void validateStrategy(JsonNode strategy, List<FieldError> errors) {
        String type = strategy.path("type").asString("");
        JsonNode rolling = strategy.path("rollingUpdate");
        boolean hasRolling = rolling.isObject();
        if (type.isEmpty()) {
            errors.add(required("spec.strategy.type"));
        } else if (!STRATEGIES.contains(type)) {
            errors.add(notSupported("spec.strategy.type", type, STRATEGIES));
        } else if (type.equals("Recreate") && hasRolling) {
            errors.add(forbidden(
                    "spec.strategy.rollingUpdate", "may not be specified when strategy `type` is 'Recreate'"));
        } else if (hasRolling) {
            long unavailable = WorkloadSpecs.intOrPercent(
                    rolling.path("maxUnavailable"), "spec.strategy.rollingUpdate.maxUnavailable", errors);
            long surge = WorkloadSpecs.intOrPercent(
                    rolling.path("maxSurge"), "spec.strategy.rollingUpdate.maxSurge", errors);
            if (unavailable == 0 && surge == 0) {
                errors.add(invalid(
                        "spec.strategy.rollingUpdate.maxUnavailable",
                        rolling.path("maxUnavailable"),
                        "may not be 0 when `maxSurge` is 0"));
            }
        }
    }

    @Override
    public List<FieldError> validateUpdate(ObjectNode next, ObjectNode current) {
        List<FieldError> errors = validate(next);
        WorkloadSpecs.selectorImmutable(next, current, errors);
        return errors;
    }
}
