package io.kubeloop.apiserver.internal.registry;

import static io.kubeloop.apiserver.internal.registry.ObjectMetaValidation.forbidden;
import static io.kubeloop.apiserver.internal.registry.ObjectMetaValidation.invalid;
import static io.kubeloop.apiserver.internal.registry.ObjectMetaValidation.required;

import io.kubeloop.model.Statuses.FieldError;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * kube's Secret strategy: {@code type: Opaque} by default, {@code stringData} merged into {@code data} (base64, a
 * stringData key wins) and dropped, as kube's conversion does on every write; {@code data} keys are config keys, the
 * values base64 (400 otherwise) of at most {@value #MAX_SIZE} bytes in total; the typed secrets' required keys; on
 * update {@code type} is immutable, and {@code immutable: true} freezes {@code data} and itself.
 */
final class SecretStrategy implements ResourceStrategy {

    /** kube's {@code MaxSecretSize}, also the limit of a ConfigMap. */
    static final int MAX_SIZE = 1024 * 1024;

    static final String IMMUTABLE = "field is immutable when `immutable` is set";

    @Override
    public void applyDefaults(ObjectNode object) {
        if (object.path("type").asString("").isEmpty()) {
            object.put("type", "Opaque");
        }
        JsonNode stringData = object.remove("stringData");
        if (stringData instanceof ObjectNode strings && !strings.isEmpty()) {
            ObjectNode data = object.get("data") instanceof ObjectNode d ? d : object.putObject("data");
            Base64.Encoder encoder = Base64.getEncoder();
            for (var entry : strings.properties()) {
                data.put(
                        entry.getKey(),
                        encoder.encodeToString(entry.getValue().asString("").getBytes(StandardCharsets.UTF_8)));
            }
        }
        if (object.get("data") instanceof ObjectNode data) {
            for (var entry : data.properties()) {
                if (entry.getValue().isString()) {
                    long ignored =
                            Base64Data.decodedLength("Secret", entry.getValue().asString());
                    String canonical = Base64Data.canonical(entry.getValue().asString());
                    if (ignored >= 0 && !canonical.equals(entry.getValue().asString())) {
                        entry.setValue(data.stringNode(canonical));
                    }
                }
            }
        }
    }

    @Override
    public List<FieldError> validate(ObjectNode object) {
        List<FieldError> errors = new ArrayList<>(0);
        JsonNode data = object.path("data");
        long size = 0;
        for (var entry : data.properties()) {
            for (String message : ObjectMetaValidation.configMapKeyErrors(entry.getKey())) {
                errors.add(invalid("data[" + entry.getKey() + "]", entry.getKey(), message));
            }
            size += Base64Data.decodedLength("Secret", entry.getValue().asString(""));
        }
        if (size > MAX_SIZE) {
            errors.add(ObjectMetaValidation.tooLong("data", MAX_SIZE));
        }
        switch (object.path("type").asString("")) {
            case "kubernetes.io/service-account-token" -> {
                if (object.path("metadata")
                        .path("annotations")
                        .path("kubernetes.io/service-account.name")
                        .asString("")
                        .isEmpty()) {
                    errors.add(required("metadata.annotations[kubernetes.io/service-account.name]"));
                }
            }
            case "kubernetes.io/dockercfg" -> requireKey(data, ".dockercfg", errors);
            case "kubernetes.io/dockerconfigjson" -> requireKey(data, ".dockerconfigjson", errors);
            case "kubernetes.io/basic-auth" -> {
                if (!data.has("username") && !data.has("password")) {
                    errors.add(required("data[username]"));
                    errors.add(required("data[password]"));
                }
            }
            case "kubernetes.io/ssh-auth" -> {
                if (data.path("ssh-privatekey").asString("").isEmpty()) {
                    errors.add(required("data[ssh-privatekey]"));
                }
            }
            case "kubernetes.io/tls" -> {
                requireKey(data, "tls.crt", errors);
                requireKey(data, "tls.key", errors);
            }
            default -> {}
        }
        return errors;
    }

    private static void requireKey(JsonNode data, String key, List<FieldError> errors) {
        if (!data.has(key)) {
            errors.add(required("data[" + key + "]"));
        }
    }

    @Override
    public List<FieldError> validateUpdate(ObjectNode next, ObjectNode current) {
        List<FieldError> errors = new ArrayList<>(0);
        String type = next.path("type").asString("");
        if (!type.equals(current.path("type").asString(""))) {
            errors.add(ObjectMetaValidation.immutable("type", type));
        }
        if (current.path("immutable").asBoolean(false)) {
            if (!next.path("immutable").asBoolean(false)) {
                errors.add(forbidden("immutable", IMMUTABLE));
            }
            if (!current.path("data").equals(next.path("data"))) {
                errors.add(forbidden("data", IMMUTABLE));
            }
        }
        errors.addAll(validate(next));
        return errors;
    }
}
