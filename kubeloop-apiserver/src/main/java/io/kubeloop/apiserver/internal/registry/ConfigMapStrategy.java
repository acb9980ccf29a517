package io.kubeloop.apiserver.internal.registry;

import static io.kubeloop.apiserver.internal.registry.ObjectMetaValidation.forbidden;
import static io.kubeloop.apiserver.internal.registry.ObjectMetaValidation.invalid;

import io.kubeloop.model.Statuses.FieldError;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * kube's ConfigMap validation: {@code data} and {@code binaryData} keys are config keys and not in both,
 * {@code binaryData} values are base64 (400 otherwise), everything together at most 1 MiB; {@code immutable: true}
 * freezes {@code data}, {@code binaryData} and itself.
 */
final class ConfigMapStrategy implements ResourceStrategy {

    @Override
    public void applyDefaults(ObjectNode object) {
        if (object.get("binaryData") instanceof ObjectNode binary) {
            for (var entry : binary.properties()) {
                if (entry.getValue().isString()) {
                    Base64Data.decodedLength("ConfigMap", entry.getValue().asString());
                    String canonical = Base64Data.canonical(entry.getValue().asString());
                    if (!canonical.equals(entry.getValue().asString())) {
                        entry.setValue(binary.stringNode(canonical));
                    }
                }
            }
        }
    }

    @Override
    public List<FieldError> validate(ObjectNode object) {
        List<FieldError> errors = new ArrayList<>(0);
        long size = 0;
        JsonNode data = object.path("data");
        for (var entry : data.properties()) {
            for (String message : ObjectMetaValidation.configMapKeyErrors(entry.getKey())) {
                errors.add(invalid("data[" + entry.getKey() + "]", entry.getKey(), message));
            }
            size += ObjectMetaValidation.utf8Length(entry.getValue().asString(""));
        }
        for (var entry : object.path("binaryData").properties()) {
            String path = "binaryData[" + entry.getKey() + "]";
            for (String message : ObjectMetaValidation.configMapKeyErrors(entry.getKey())) {
                errors.add(invalid(path, entry.getKey(), message));
            }
            size += Base64Data.decodedLength("ConfigMap", entry.getValue().asString(""));
            if (data.has(entry.getKey())) {
                errors.add(invalid(path, entry.getKey(), "duplicate key in both data and binaryData"));
            }
        }
        if (size > SecretStrategy.MAX_SIZE) {
            // kube's path for "the whole object" is the empty path, printed as []
            errors.add(ObjectMetaValidation.tooLong("[]", SecretStrategy.MAX_SIZE));
        }
        return errors;
    }

    @Override
    public List<FieldError> validateUpdate(ObjectNode next, ObjectNode current) {
        List<FieldError> errors = new ArrayList<>(0);
        if (current.path("immutable").asBoolean(false)) {
            if (!next.path("immutable").asBoolean(false)) {
                errors.add(forbidden("immutable", SecretStrategy.IMMUTABLE));
            }
            if (!current.path("data").equals(next.path("data"))) {
                errors.add(forbidden("data", SecretStrategy.IMMUTABLE));
            }
            if (!current.path("binaryData").equals(next.path("binaryData"))) {
                errors.add(forbidden("binaryData", SecretStrategy.IMMUTABLE));
            }
        }
        errors.addAll(validate(next));
        return errors;
    }
}
