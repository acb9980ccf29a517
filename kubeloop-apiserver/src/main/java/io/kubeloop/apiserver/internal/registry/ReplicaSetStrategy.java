package io.kubeloop.apiserver.internal.registry;

import io.kubeloop.model.Statuses.FieldError;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * apps/v1 ReplicaSets as kube's {@code SetDefaults_ReplicaSet}, {@code ValidateReplicaSet} and replicaset registry
 * strategy: replicas 1; a selector that matches the template (kube words an empty one "invalid for deployment"
 * here too); an immutable selector.
 */
final class ReplicaSetStrategy implements ResourceStrategy {

    @Override
    public void applyDefaults(ObjectNode object) {
        ObjectNode spec = WorkloadSpecs.spec(object);
        WorkloadSpecs.defaultReplicas(spec);
        WorkloadSpecs.defaultTemplate(spec);
    }

    @Override
    public void prepareForCreate(ObjectNode object) {
        WorkloadSpecs.resetStatus(object);
    }

    @Override
    public void prepareForUpdate(ObjectNode next, ObjectNode current) {
        WorkloadSpecs.generation(next, current, false);
    }

    @Override
    public List<FieldError> validate(ObjectNode object) {
        List<FieldError> errors = new ArrayList<>();
        JsonNode spec = object.path("spec");
        WorkloadSpecs.nonNegative(spec, "replicas", errors);
        WorkloadSpecs.nonNegative(spec, "minReadySeconds", errors);
        WorkloadSpecs.validateSelector(spec, "deployment", true, errors);
        WorkloadSpecs.validateTemplate(spec, "ReplicaSet", errors);
        return errors;
    }

    @Override
    public List<FieldError> validateUpdate(ObjectNode next, ObjectNode current) {
        List<FieldError> errors = validate(next);
        WorkloadSpecs.selectorImmutable(next, current, errors);
        return errors;
    }
}
