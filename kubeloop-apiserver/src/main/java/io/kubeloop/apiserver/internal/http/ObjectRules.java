package io.kubeloop.apiserver.internal.http;

import io.kubeloop.apiserver.internal.registry.ObjectMetaValidation;
import io.kubeloop.model.ResourceRegistry;
import io.kubeloop.model.ResourceType;
import io.kubeloop.model.Statuses;
import io.kubeloop.model.Statuses.FieldError;
import io.kubeloop.model.Timestamps;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * What kube-apiserver's generic registry ({@code rest.BeforeCreate}/{@code BeforeUpdate}) does to every object,
 * built-in or custom, before its strategy runs: server-owned metadata set on create and kept on update, the
 * metadata validated ({@link ObjectMetaValidation}: names by the resource's rule, labels, annotations, finalizers),
 * {@code generation} kept only on the resources whose kube strategy keeps one and bumped by their spec changes, and
 * status changes kept apart from spec changes on resources with a status subresource.
 *
 * <p>An update may not move an object: a patch whose result names another object or namespace is a 400 (kube's
 * {@code checkName}), a changed {@code uid} a 422 {@code field is immutable}.
 */
final class ObjectRules {

    private static final String GENERATE_ALPHABET = "bcdfghjklmnpqrstvwxz2456789";
    private static final ResourceRegistry BUILT_IN = ResourceRegistry.builtIn();

    /** How a resource's {@code generation} moves: the strategies whose PrepareForCreate sets it to 1. */
    private enum Generation {
        /** No generation (ConfigMap, Secret, Service, Pod in 1.32, RBAC, ...): the stored one is kept as it is. */
        NONE,
        /** Bumped when {@code spec} changes. */
        SPEC,
        /** Deployment: bumped when {@code spec} or the annotations change (they are copied to ReplicaSets). */
        SPEC_AND_ANNOTATIONS,
        /** EndpointSlice (no spec): bumped when anything but metadata, or the labels, change. */
        CONTENT_AND_LABELS,
        /** Custom resources: bumped when anything but metadata (and status, with a status subresource) changes. */
        CONTENT
    }

    /** group/plural of the built-in resources that keep a generation; every other built-in has none. */
    private static final Map<String, Generation> GENERATIONS = Map.ofEntries(
            Map.entry("apps/deployments", Generation.SPEC_AND_ANNOTATIONS),
            Map.entry("apps/replicasets", Generation.SPEC),
            Map.entry("apps/statefulsets", Generation.SPEC),
            Map.entry("apps/daemonsets", Generation.SPEC),
            Map.entry("/replicationcontrollers", Generation.SPEC),
            Map.entry("batch/jobs", Generation.SPEC),
            Map.entry("batch/cronjobs", Generation.SPEC),
            Map.entry("policy/poddisruptionbudgets", Generation.SPEC),
            Map.entry("networking.k8s.io/networkpolicies", Generation.SPEC),
            Map.entry("networking.k8s.io/ingresses", Generation.SPEC),
            Map.entry("networking.k8s.io/ingressclasses", Generation.SPEC),
            Map.entry("discovery.k8s.io/endpointslices", Generation.CONTENT_AND_LABELS),
            Map.entry("apiextensions.k8s.io/customresourcedefinitions", Generation.SPEC));

    private ObjectRules() {}

    /** Whether {@code type} is one of kube's own resources (not a custom resource or a type the user registered). */
    static boolean builtIn(ResourceType type) {
        return BUILT_IN.byResource(type.group(), type.plural()).isPresent();
    }

    private static Generation generation(ResourceType type) {
        if (!builtIn(type)) {
            return Generation.CONTENT;
        }
        return GENERATIONS.getOrDefault(type.group() + "/" + type.plural(), Generation.NONE);
    }

    /**
     * Prepares a new object for storage: apiVersion/kind, namespace, a generated name, uid, creationTimestamp and
     * generation 1 where the resource keeps one; status is kept (kube-apiserver keeps status on create unless the
     * strategy resets it). Throws 422 Invalid listing every problem of the metadata.
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
            name = ObjectMetaValidation.generatedNameBase(generateName) + randomSuffix();
            meta.put("name", name);
        }
        boolean builtIn = builtIn(type);
        List<FieldError> errors = ObjectMetaValidation.validateCreate(
                ObjectMetaValidation.nameRule(type.group(), type.plural()), meta, builtIn);
        if (!errors.isEmpty()) {
            throw new ApiException(Statuses.invalid(type.group(), type.kind(), name, errors));
        }
        meta.remove("resourceVersion");
        meta.put("uid", UUID.randomUUID().toString());
        meta.put("creationTimestamp", Timestamps.format(now));
        if (generation(type) != Generation.NONE) {
            meta.put("generation", 1L); // a long, as prepareUpdate writes it, so equal objects compare equal
        }
        meta.remove("deletionTimestamp");
        meta.remove("deletionGracePeriodSeconds");
    }

    /**
     * Prepares a replacement of {@code current}: server-owned metadata comes from the stored object; on the main
     * resource of a type with a status subresource the stored status is kept; on {@code /status} only the
     * status changes; generation is bumped as the resource's kube strategy bumps it.
     *
     * @throws ApiException 400 when {@code updated} names another object or namespace, 422 when it changes the uid
     *     or its metadata is invalid
     */
    static ObjectNode prepareUpdate(ResourceType type, ObjectNode current, ObjectNode updated, boolean statusOnly) {
        JsonNode currentMeta = current.get("metadata");
        List<FieldError> errors = checkIdentity(type, currentMeta, updated.get("metadata"));
        ObjectNode result;
        if (statusOnly) {
            reject(type, currentMeta, errors);
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
        errors.addAll(ObjectMetaValidation.validateUpdate(meta, builtIn(type)));
        reject(type, currentMeta, errors);
        for (String owned : OWNED) {
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
        Generation rule = generation(type);
        JsonNode generation = currentMeta.get("generation");
        if (rule != Generation.NONE) {
            long next = generation == null ? 1 : generation.asLong();
            meta.put("generation", changed(rule, type, current, result) ? next + 1 : next);
        } else if (generation != null) {
            meta.set("generation", generation);
        } else {
            meta.remove("generation");
        }
        return result;
    }

    /**
     * A PUT's uid is a precondition in kube (the object it replaces must be that one): a different one is a 409
     * Conflict, where a patch that changes the uid is the 422 of {@link #prepareUpdate}.
     */
    static void checkUidPrecondition(ResourceType type, JsonNode current, JsonNode sent) {
        String uid = sent.path("metadata").path("uid").asString("");
        String currentUid = current.path("metadata").path("uid").asString("");
        if (!uid.isEmpty() && !uid.equals(currentUid)) {
            throw new ApiException(Statuses.conflict(
                    type.group(),
                    type.plural(),
                    current.path("metadata").path("name").asString(""),
                    "Precondition failed: UID in precondition: " + uid + ", UID in object meta: " + currentUid));
        }
    }

    private static final List<String> OWNED =
            List.of("uid", "creationTimestamp", "namespace", "name", "deletionTimestamp", "deletionGracePeriodSeconds");

    /**
     * kube's {@code checkName} (400) for a name or namespace that differs from the stored object's, and the 422 of a
     * changed uid; a field left out keeps the stored value, as kube fills it in.
     */
    private static List<FieldError> checkIdentity(ResourceType type, JsonNode currentMeta, JsonNode meta) {
        List<FieldError> errors = new ArrayList<>(0);
        if (!(meta instanceof ObjectNode m)) {
            return errors;
        }
        String currentName = currentMeta.path("name").asString("");
        String name = m.path("name").asString("");
        if (!name.isEmpty() && !name.equals(currentName)) {
            throw new ApiException(Statuses.badRequest(
                    "the name of the object (" + name + ") does not match the name on the URL (" + currentName + ")"));
        }
        String namespace = m.path("namespace").asString("");
        String currentNamespace = currentMeta.path("namespace").asString("");
        if (type.namespaced() && !namespace.isEmpty() && !namespace.equals(currentNamespace)) {
            throw new ApiException(Statuses.badRequest("the namespace of the object (" + namespace
                    + ") does not match the namespace on the URL (" + currentNamespace + ")"));
        }
        String uid = m.path("uid").asString("");
        if (!uid.isEmpty() && !uid.equals(currentMeta.path("uid").asString(""))) {
            errors.add(ObjectMetaValidation.immutable("metadata.uid", uid));
        }
        return errors;
    }

    private static void reject(ResourceType type, JsonNode currentMeta, List<FieldError> errors) {
        if (!errors.isEmpty()) {
            throw new ApiException(Statuses.invalid(
                    type.group(), type.kind(), currentMeta.path("name").asString(""), errors));
        }
    }

    private static boolean changed(Generation rule, ResourceType type, ObjectNode current, ObjectNode updated) {
        return switch (rule) {
            case NONE -> false;
            case SPEC -> !current.path("spec").equals(updated.path("spec"));
            case SPEC_AND_ANNOTATIONS ->
                !current.path("spec").equals(updated.path("spec"))
                        || !current.path("metadata")
                                .path("annotations")
                                .equals(updated.path("metadata").path("annotations"));
            case CONTENT_AND_LABELS ->
                contentChanged(current, updated, false)
                        || !current.path("metadata")
                                .path("labels")
                                .equals(updated.path("metadata").path("labels"));
            case CONTENT -> contentChanged(current, updated, type.hasStatus());
        };
    }

    /** Any change outside metadata (and status), compared field by field: no copies, this runs on every update. */
    private static boolean contentChanged(ObjectNode current, ObjectNode updated, boolean skipStatus) {
        if (fieldsCompared(current, skipStatus) != fieldsCompared(updated, skipStatus)) {
            return true;
        }
        for (var field : current.properties()) {
            String key = field.getKey();
            if (!key.equals("metadata")
                    && !(skipStatus && key.equals("status"))
                    && !field.getValue().equals(updated.get(key))) {
                return true;
            }
        }
        return false;
    }

    private static int fieldsCompared(ObjectNode object, boolean skipStatus) {
        return object.size() - (object.has("metadata") ? 1 : 0) - (skipStatus && object.has("status") ? 1 : 0);
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

    private static String randomSuffix() {
        StringBuilder sb = new StringBuilder(5);
        for (int i = 0; i < 5; i++) {
            sb.append(GENERATE_ALPHABET.charAt(ThreadLocalRandom.current().nextInt(GENERATE_ALPHABET.length())));
        }
        return sb.toString();
    }
}
