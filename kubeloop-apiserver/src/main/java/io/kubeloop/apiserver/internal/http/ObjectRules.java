package io.kubeloop.apiserver.internal.http;

import io.kubeloop.model.ResourceType;
import io.kubeloop.model.Statuses;
import io.kubeloop.model.Statuses.FieldError;
import io.kubeloop.model.Timestamps;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * What kube-apiserver's registry strategies do to an object before it is stored: names checked, server-owned
 * metadata set on create and kept on update, {@code generation} bumped by spec changes, and status changes
 * kept apart from spec changes on resources with a status subresource.
 */
final class ObjectRules {

    private static final Pattern DNS1123_SUBDOMAIN =
            Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
    private static final Pattern DNS1123_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
    private static final String GENERATE_ALPHABET = "bcdfghjklmnpqrstvwxz2456789";

    private ObjectRules() {}

    /**
     * Prepares a new object for storage: apiVersion/kind, namespace, a generated name, uid,
     * creationTimestamp and generation 1; status dropped for resources with a status subresource is NOT done
     * here (kube-apiserver keeps status on create). Throws 422 Invalid for bad names.
     */
    static void prepareCreate(ResourceType type, ObjectNode object, String namespace, Instant now) {
        object.put("apiVersion", type.gvk().apiVersion());
        object.put("kind", type.kind());
        ObjectNode meta = metadata(object);
        if (type.namespaced()) {
            meta.put("namespace", namespace);
        } else {
            meta.remove("namespace");
        }
        String name = meta.path("name").asString("");
        String generateName = meta.path("generateName").asString("");
        if (name.isEmpty() && !generateName.isEmpty()) {
            name = generateName + randomSuffix();
            meta.put("name", name);
        }
        validateName(type, name);
        meta.remove("resourceVersion");
        meta.put("uid", UUID.randomUUID().toString());
        meta.put("creationTimestamp", Timestamps.format(now));
        meta.put("generation", 1L); // a long, as prepareUpdate writes it, so equal objects compare equal
        meta.remove("deletionTimestamp");
        meta.remove("deletionGracePeriodSeconds");
    }

    /**
     * Prepares a replacement of {@code current}: server-owned metadata comes from the stored object; on the main
     * resource of a type with a status subresource the stored status is kept; on {@code /status} only the
     * status changes; generation is bumped when the spec (or, without a status subresource, anything but
     * metadata) changed.
     */
    static ObjectNode prepareUpdate(ResourceType type, ObjectNode current, ObjectNode updated, boolean statusOnly) {
        ObjectNode result;
        if (statusOnly) {
            result = current.deepCopy();
            if (updated.has("status")) {
                result.set("status", updated.get("status"));
            } else {
                result.remove("status");
            }
            return result;
        }
        result = updated;
        result.put("apiVersion", type.gvk().apiVersion());
        result.put("kind", type.kind());
        ObjectNode meta = metadata(result);
        JsonNode currentMeta = current.get("metadata");
        for (String owned : List.of(
                "uid", "creationTimestamp", "namespace", "name", "deletionTimestamp", "deletionGracePeriodSeconds")) {
            if (currentMeta.has(owned)) {
                meta.set(owned, currentMeta.get(owned));
            } else {
                meta.remove(owned);
            }
        }
        if (type.hasStatus()) {
            if (current.has("status")) {
                result.set("status", current.get("status"));
            } else {
                result.remove("status");
            }
        }
        long generation = currentMeta.path("generation").asLong(1);
        if (specChanged(type, current, result)) {
            generation++;
        }
        meta.put("generation", generation);
        return result;
    }

    private static boolean specChanged(ResourceType type, ObjectNode current, ObjectNode updated) {
        if (type.hasStatus()) {
            return !current.path("spec").equals(updated.path("spec"));
        }
        // Any change outside metadata, compared field by field (no copies: this runs on every update).
        if (fieldsOutsideMetadata(current) != fieldsOutsideMetadata(updated)) {
            return true;
        }
        for (var field : current.properties()) {
            if (!field.getKey().equals("metadata") && !field.getValue().equals(updated.get(field.getKey()))) {
                return true;
            }
        }
        return false;
    }

    private static int fieldsOutsideMetadata(ObjectNode object) {
        return object.size() - (object.has("metadata") ? 1 : 0);
    }

    static ObjectNode metadata(ObjectNode object) {
        JsonNode meta = object.get("metadata");
        if (meta == null || meta.isNull()) {
            return object.putObject("metadata");
        }
        if (!meta.isObject()) {
            throw new ApiException(Statuses.badRequest("metadata must be an object"));
        }
        return (ObjectNode) meta;
    }

    static void validateName(ResourceType type, String name) {
        List<FieldError> errors = new ArrayList<>();
        if (name.isEmpty()) {
            errors.add(new FieldError("Required value", "metadata.name", "name or generateName is required"));
        } else if (type.plural().equals("namespaces") && type.group().isEmpty()) {
            if (name.length() > 63 || !DNS1123_LABEL.matcher(name).matches()) {
                errors.add(new FieldError(
                        "Invalid value",
                        "metadata.name",
                        "\"" + name + "\": a lowercase RFC 1123 "
                                + "label must consist of lower case alphanumeric characters or '-', and must start and end "
                                + "with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation "
                                + "is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"));
            }
        } else if (name.length() > 253 || !DNS1123_SUBDOMAIN.matcher(name).matches()) {
            errors.add(new FieldError(
                    "Invalid value",
                    "metadata.name",
                    "\"" + name + "\": a lowercase RFC 1123 "
                            + "subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and "
                            + "end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
                            + "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"));
        }
        if (!errors.isEmpty()) {
            throw new ApiException(Statuses.invalid(type.group(), type.kind(), name, errors));
        }
    }

    private static String randomSuffix() {
        StringBuilder sb = new StringBuilder(5);
        for (int i = 0; i < 5; i++) {
            sb.append(GENERATE_ALPHABET.charAt(ThreadLocalRandom.current().nextInt(GENERATE_ALPHABET.length())));
        }
        return sb.toString();
    }
}
