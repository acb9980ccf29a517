package io.kubeloop.apiserver.internal.patch;

import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * JSON merge patch, RFC 7386 ({@code application/merge-patch+json}): what {@code kubectl label},
 * {@code kubectl annotate}, {@code kubectl scale} and {@code kubectl patch --type=merge} send.
 *
 * <p>Contract of {@link #apply}: if the patch is an object, each member merges into the target (a non-object
 * target counts as {@code {}}): a {@code null} member deletes the key, an object member merges recursively,
 * any other member (arrays included) replaces the value. A patch that is not an object replaces the target
 * whole. Nulls inside a patch value that adds a new object are dropped, as RFC 7386's pseudo-code does by
 * merging into an empty object; arrays are taken as they are.
 *
 * <p>Neither argument is modified; the result shares no node with them.
 */
public final class JsonMergePatch {

    private JsonMergePatch() {}

    /**
     * Applies {@code patch} to {@code target}.
     *
     * @param target the current document; {@code null} counts as JSON {@code null}
     * @param patch the merge patch
     * @return a new document
     */
    public static JsonNode apply(JsonNode target, JsonNode patch) {
        if (patch == null || !patch.isObject()) {
            return patch == null ? JsonValues.NODES.nullNode() : patch.deepCopy();
        }
        ObjectNode result = target != null && target.isObject() ? (ObjectNode) target.deepCopy() : JsonValues.object();
        mergeInto(result, patch);
        return result;
    }

    private static void mergeInto(ObjectNode result, JsonNode patch) {
        for (Map.Entry<String, JsonNode> e : patch.properties()) {
            String key = e.getKey();
            JsonNode value = e.getValue();
            if (value.isNull()) {
                result.remove(key);
            } else if (value.isObject()) {
                JsonNode existing = result.get(key);
                ObjectNode child =
                        existing != null && existing.isObject() ? (ObjectNode) existing : JsonValues.object();
                mergeInto(child, value);
                result.set(key, child);
            } else {
                result.set(key, value.deepCopy());
            }
        }
    }

    /**
     * The merge patch that turns {@code original} into {@code modified}, as {@code jsonpatch.CreateMergePatch}
     * computes it: changed and added members, {@code null} for removed ones, nested objects diffed
     * recursively, arrays and scalars replaced whole. Two equal documents give {@code {}}. When either side
     * is not an object, the patch is {@code modified} itself.
     *
     * <p>Applying the result to {@code original} yields {@code modified} whenever {@code modified} contains no
     * {@code null} member values (those cannot be expressed in a merge patch).
     */
    public static JsonNode diff(JsonNode original, JsonNode modified) {
        if (original == null || modified == null || !original.isObject() || !modified.isObject()) {
            return modified == null ? JsonValues.NODES.nullNode() : modified.deepCopy();
        }
        ObjectNode patch = JsonValues.object();
        for (Map.Entry<String, JsonNode> e : modified.properties()) {
            JsonNode before = original.get(e.getKey());
            JsonNode after = e.getValue();
            if (before == null) {
                patch.set(e.getKey(), after.deepCopy());
            } else if (before.isObject() && after.isObject()) {
                JsonNode nested = diff(before, after);
                if (!nested.isEmpty()) {
                    patch.set(e.getKey(), nested);
                }
            } else if (!JsonValues.jsonEquals(before, after) || before.isNull() != after.isNull()) {
                patch.set(e.getKey(), after.deepCopy());
            }
        }
        for (String key : original.propertyNames()) {
            if (!modified.has(key)) {
                patch.putNull(key);
            }
        }
        return patch;
    }
}
