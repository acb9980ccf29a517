package io.kubeloop.apiserver.internal.registry;

import static io.kubeloop.apiserver.internal.registry.FieldChecks.forbidden;
import static io.kubeloop.apiserver.internal.registry.FieldChecks.notSupported;
import static io.kubeloop.apiserver.internal.registry.FieldChecks.required;

import io.kubeloop.model.Statuses.FieldError;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * storage.k8s.io/v1 StorageClass, as kube's {@code SetDefaults_StorageClass} and
 * {@code ValidateStorageClass(Update)}: reclaimPolicy Delete and volumeBindingMode Immediate by default; a
 * provisioner is required; reclaimPolicy is Delete or Retain, volumeBindingMode Immediate or
 * WaitForFirstConsumer; parameters, provisioner, reclaimPolicy and volumeBindingMode never change.
 */
final class StorageClassStrategy implements ResourceStrategy {

    @Override
    public void applyDefaults(ObjectNode storageClass) {
        if (!storageClass.has("reclaimPolicy")) {
            storageClass.put("reclaimPolicy", "Delete");
        }
        if (!storageClass.has("volumeBindingMode")) {
            storageClass.put("volumeBindingMode", "Immediate");
        }
    }

    @Override
    public List<FieldError> validate(ObjectNode storageClass) {
        List<FieldError> errors = new ArrayList<>();
        if (FieldChecks.text(storageClass.get("provisioner")).isEmpty()) {
            errors.add(required("provisioner", ""));
        }
        JsonNode reclaim = storageClass.get("reclaimPolicy");
        if (reclaim != null && !List.of("Delete", "Retain").contains(FieldChecks.text(reclaim))) {
            errors.add(notSupported("reclaimPolicy", reclaim, List.of("Delete", "Retain")));
        }
        JsonNode binding = storageClass.get("volumeBindingMode");
        if (binding != null && !List.of("Immediate", "WaitForFirstConsumer").contains(FieldChecks.text(binding))) {
            errors.add(notSupported("volumeBindingMode", binding, List.of("Immediate", "WaitForFirstConsumer")));
        }
        return errors;
    }

    @Override
    public List<FieldError> validateUpdate(ObjectNode next, ObjectNode current) {
        List<FieldError> errors = new ArrayList<>(validate(next));
        if (!FieldChecks.same(next.get("parameters"), current.get("parameters"))) {
            errors.add(forbidden("parameters", "updates to parameters are forbidden."));
        }
        if (!FieldChecks.same(next.get("provisioner"), current.get("provisioner"))) {
            errors.add(forbidden("provisioner", "updates to provisioner are forbidden."));
        }
        if (!FieldChecks.same(next.get("reclaimPolicy"), current.get("reclaimPolicy"))) {
            errors.add(forbidden("reclaimPolicy", "updates to reclaimPolicy are forbidden."));
        }
        FieldChecks.immutable(
                errors, "volumeBindingMode", next.get("volumeBindingMode"), current.get("volumeBindingMode"));
        return errors;
    }
}
