package io.kubeloop.apiserver.internal.lifecycle;

import io.kubeloop.apiserver.internal.storage.StorageKey;
import io.kubeloop.model.ResourceType;
import io.kubeloop.model.Timestamps;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/** Reads and writes the lifecycle fields of an object's {@code metadata}: finalizers, deletion and owners. */
final class Meta {

    static final String ORPHAN = "orphan";
    static final String FOREGROUND = "foregroundDeletion";
    /** The finalizer in a namespace's {@code spec.finalizers} that its contents must be gone before removal. */
    static final String KUBERNETES = "kubernetes";

    private Meta() {}

    static JsonNode metadata(JsonNode object) {
        return object.path("metadata");
    }

    static ObjectNode metadataForWrite(ObjectNode object) {
        JsonNode meta = object.get("metadata");
        return meta instanceof ObjectNode o ? o : object.putObject("metadata");
    }

    static String uid(JsonNode object) {
        return metadata(object).path("uid").asString("");
    }

    static String resourceVersion(JsonNode object) {
        return metadata(object).path("resourceVersion").asString("");
    }

    static boolean deleting(JsonNode object) {
        JsonNode ts = metadata(object).get("deletionTimestamp");
        return ts != null && !ts.isNull();
    }

    /** {@code deletionGracePeriodSeconds}, or null when it is not set. */
    static Long gracePeriod(JsonNode object) {
        JsonNode grace = metadata(object).get("deletionGracePeriodSeconds");
        return grace == null || grace.isNull() ? null : grace.asLong();
    }

    /** {@code deletionTimestamp}; null when it is not set or not a timestamp. */
    static Instant deletionTimestamp(JsonNode object) {
        JsonNode ts = metadata(object).get("deletionTimestamp");
        if (ts == null || !ts.isString()) {
            return null;
        }
        try {
            return Timestamps.parse(ts.asString());
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    static List<String> finalizers(JsonNode object) {
        return strings(metadata(object).path("finalizers"));
    }

    static void setFinalizers(ObjectNode object, List<String> finalizers) {
        ObjectNode meta = metadataForWrite(object);
        if (finalizers.isEmpty()) {
            meta.remove("finalizers");
        } else {
            ArrayNode array = meta.putArray("finalizers");
            finalizers.forEach(array::add);
        }
    }

    /** Removes {@code finalizer} from {@code metadata.finalizers}; true if it was there. */
    static boolean removeFinalizer(ObjectNode object, String finalizer) {
        List<String> finalizers = new ArrayList<>(finalizers(object));
        if (!finalizers.remove(finalizer)) {
            return false;
        }
        finalizers.removeIf(finalizer::equals);
        setFinalizers(object, finalizers);
        return true;
    }

    static List<String> strings(JsonNode array) {
        List<String> values = new ArrayList<>();
        if (array.isArray()) {
            array.forEach(v -> values.add(v.asString()));
        }
        return values;
    }

    static List<JsonNode> ownerReferences(JsonNode object) {
        List<JsonNode> refs = new ArrayList<>();
        JsonNode array = metadata(object).path("ownerReferences");
        if (array.isArray()) {
            array.forEach(refs::add);
        }
        return refs;
    }

    /** The owners' uids, in order, without blanks. */
    static List<String> ownerUids(JsonNode object) {
        List<String> uids = new ArrayList<>();
        for (JsonNode ref : ownerReferences(object)) {
            String uid = ref.path("uid").asString("");
            if (!uid.isEmpty()) {
                uids.add(uid);
            }
        }
        return uids;
    }

    /** Removes the owner references whose uid is in {@code uids}; true if any was removed. */
    static boolean removeOwnerReferences(ObjectNode object, java.util.Collection<String> uids) {
        JsonNode array = metadata(object).path("ownerReferences");
        if (!array.isArray()) {
            return false;
        }
        ArrayNode kept = object.arrayNode();
        for (JsonNode ref : array) {
            if (!uids.contains(ref.path("uid").asString(""))) {
                kept.add(ref);
            }
        }
        if (kept.size() == array.size()) {
            return false;
        }
        ObjectNode meta = metadataForWrite(object);
        if (kept.isEmpty()) {
            meta.remove("ownerReferences");
        } else {
            meta.set("ownerReferences", kept);
        }
        return true;
    }

    static boolean isNamespace(ResourceType type) {
        return type.group().isEmpty() && type.plural().equals("namespaces");
    }

    static boolean isNamespace(StorageKey key) {
        return key.group().isEmpty() && key.resource().equals("namespaces");
    }

    static boolean isPod(ResourceType type) {
        return type.group().isEmpty() && type.plural().equals("pods");
    }

    static boolean isNode(ResourceType type) {
        return type.group().isEmpty() && type.plural().equals("nodes");
    }

    /** A pod's {@code spec.nodeName}, {@code ""} when it is not bound. */
    static String nodeName(JsonNode pod) {
        return pod.path("spec").path("nodeName").asString("");
    }

    static StorageKey key(ResourceType type, JsonNode object) {
        JsonNode meta = metadata(object);
        return new StorageKey(
                type.group(),
                type.plural(),
                type.namespaced() ? meta.path("namespace").asString("") : "",
                meta.path("name").asString(""));
    }

    static StorageKey namespaceKey(String namespace) {
        return StorageKey.clusterScoped("", "namespaces", namespace);
    }
}
