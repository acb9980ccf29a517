package io.kubeloop.apiserver.internal.patch;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * JSON patch, RFC 6902 ({@code application/json-patch+json}): what {@code kubectl patch --type=json} sends.
 *
 * <p>Contract of {@link #apply}: the patch is an array of operation objects applied in order to a copy of the
 * target; {@code add}, {@code remove}, {@code replace}, {@code move}, {@code copy} and {@code test} are
 * supported, paths are JSON pointers (RFC 6901, {@code ~0}/{@code ~1} escapes), {@code -} appends to an
 * array, and members an operation does not use are ignored. The patch applies whole or not at all.
 *
 * <p>Errors, as kube-apiserver reports them: a document that is not an array of objects is
 * {@link PatchException.Kind#BAD_REQUEST 400}; an operation that does not apply (missing path or value,
 * bad index, failed {@code test}, unknown {@code op}) is {@link PatchException.Kind#INVALID 422} with the
 * message {@value PatchException#REJECTED} and a {@link PatchException#detail() detail} in the words of
 * kube-apiserver's JSON patch library (e.g. {@code testing value /a failed: test failed}). More than
 * 10000 operations is 413, as kube-apiserver answers. The {@code copy} operations of one patch may add at most
 * {@link PatchLimits#MAX_COPY_BYTES} together (kube's {@code AccumulatedCopySizeLimit}; 422 beyond), so that
 * a few operations cannot double a document until memory runs out.
 *
 * <p>Where kube-apiserver's library is laxer than the RFC, this follows the RFC: an index must be canonical
 * ({@code 01} and negative indices are rejected), {@code add}/{@code replace}/{@code test} need a
 * {@code value}, and {@code test} of a missing location fails even when the value is {@code null}.
 *
 * <p>Neither argument is modified; the result shares no node with them.
 */
public final class JsonPatch {

    /** kube-apiserver's {@code maxJSONPatchOperations}. */
    static final int MAX_OPERATIONS = 10_000;

    private JsonPatch() {}

    /**
     * Applies {@code patch} to {@code target}.
     *
     * @param target the current document
     * @param patch the JSON patch document (an array of operations)
     * @return a new document
     * @throws PatchException if the patch is malformed or does not apply
     */
    public static JsonNode apply(JsonNode target, JsonNode patch) {
        if (patch == null || !patch.isArray()) {
            throw PatchException.badRequest(
                    "json: cannot unmarshal " + jsonKind(patch) + " into Go value of type jsonpatch.Patch");
        }
        for (JsonNode op : patch.values()) {
            if (!op.isObject() && !op.isNull()) {
                throw PatchException.badRequest(
                        "json: cannot unmarshal " + jsonKind(op) + " into Go value of type jsonpatch.Operation");
            }
        }
        if (patch.size() > MAX_OPERATIONS) {
            throw PatchException.tooLarge(
                    "The allowed maximum operations in a JSON patch is " + MAX_OPERATIONS + ", got " + patch.size());
        }
        JsonNode doc = target == null ? JsonValues.NODES.nullNode() : target.deepCopy();
        long[] copied = {0}; // bytes the copy operations added so far
        for (JsonNode op : patch.values()) {
            doc = applyOne(doc, op.isNull() ? JsonValues.object() : op, copied);
        }
        return doc;
    }

    private static String jsonKind(JsonNode n) {
        if (n == null || n.isNull()) {
            return "null";
        }
        if (n.isObject()) {
            return "object";
        }
        if (n.isArray()) {
            return "array";
        }
        if (n.isString()) {
            return "string";
        }
        if (n.isNumber()) {
            return "number";
        }
        return "bool";
    }

    private static JsonNode applyOne(JsonNode doc, JsonNode op, long[] copied) {
        JsonNode kindNode = op.get("op");
        String kind = kindNode != null && kindNode.isString() ? kindNode.stringValue() : "unknown";
        return switch (kind) {
            case "add" -> add(doc, path(op, kind, "path"), value(op, kind));
            case "remove" -> remove(doc, path(op, kind, "path"));
            case "replace" -> replace(doc, path(op, kind, "path"), value(op, kind));
            case "move" -> move(doc, path(op, kind, "from"), path(op, kind, "path"));
            case "copy" -> copy(doc, path(op, kind, "from"), path(op, kind, "path"), copied);
            case "test" -> test(doc, path(op, kind, "path"), value(op, kind));
            default -> throw PatchException.invalid("Unexpected kind: " + kind);
        };
    }

    private static Pointer path(JsonNode op, String kind, String member) {
        JsonNode node = op.get(member);
        if (node == null || !node.isString()) {
            throw PatchException.invalid(
                    kind + " operation failed to decode " + member + ": operation missing " + member + " field");
        }
        Pointer pointer = Pointer.parse(node.stringValue());
        if (pointer == null) {
            throw PatchException.invalid(
                    kind + " operation failed to decode " + member + ": invalid JSON pointer " + node.stringValue());
        }
        return pointer;
    }

    private static JsonNode value(JsonNode op, String kind) {
        JsonNode value = op.get("value");
        if (value == null) {
            throw PatchException.invalid(kind + " operation failed: operation missing value field");
        }
        return value;
    }

    /** The node at {@code pointer}, or {@code null} if there is none. */
    static JsonNode find(JsonNode doc, Pointer pointer) {
        JsonNode node = doc;
        for (String token : pointer.tokens()) {
            if (node == null) {
                return null;
            }
            if (node.isObject()) {
                node = node.get(token);
            } else if (node.isArray()) {
                int i = Pointer.index(token);
                node = i >= 0 && i < node.size() ? node.get(i) : null;
            } else {
                return null;
            }
        }
        return node;
    }

    private static JsonNode container(JsonNode doc, Pointer path) {
        JsonNode parent = find(doc, path.parent());
        return parent != null && (parent.isObject() || parent.isArray()) ? parent : null;
    }

    private static JsonNode add(JsonNode doc, Pointer path, JsonNode value) {
        if (path.isRoot()) {
            return value.deepCopy();
        }
        JsonNode parent = container(doc, path);
        if (parent == null) {
            throw PatchException.invalid("add operation does not apply: doc is missing path: \"" + path + "\"");
        }
        String key = path.last();
        if (parent instanceof ObjectNode object) {
            object.set(key, value.deepCopy());
        } else {
            ArrayNode array = (ArrayNode) parent;
            int i = key.equals("-") ? array.size() : Pointer.index(key);
            if (i < 0 || i > array.size()) {
                throw PatchException.invalid("error in add for path: '" + path + "': Unable to access invalid index: "
                        + key + ": invalid index referenced");
            }
            array.insert(i, value.deepCopy());
        }
        return doc;
    }

    private static JsonNode remove(JsonNode doc, Pointer path) {
        if (path.isRoot()) {
            throw PatchException.invalid(
                    "error in remove for path: '': Unable to remove nonexistent key: : missing value");
        }
        JsonNode parent = container(doc, path);
        if (parent == null) {
            throw PatchException.invalid("remove operation does not apply: doc is missing path: \"" + path + "\"");
        }
        String key = path.last();
        if (parent instanceof ObjectNode object) {
            if (!object.has(key)) {
                throw PatchException.invalid("error in remove for path: '" + path
                        + "': Unable to remove nonexistent key: " + key + ": missing value");
            }
            object.remove(key);
        } else {
            ArrayNode array = (ArrayNode) parent;
            int i = Pointer.index(key);
            if (i < 0 || i >= array.size()) {
                throw PatchException.invalid("error in remove for path: '" + path
                        + "': Unable to access invalid index: " + key + ": invalid index referenced");
            }
            array.remove(i);
        }
        return doc;
    }

    private static JsonNode replace(JsonNode doc, Pointer path, JsonNode value) {
        if (path.isRoot()) {
            return value.deepCopy();
        }
        JsonNode parent = container(doc, path);
        if (parent == null) {
            throw PatchException.invalid("replace operation does not apply: doc is missing path: " + path);
        }
        String key = path.last();
        if (parent instanceof ObjectNode object) {
            if (!object.has(key)) {
                throw PatchException.invalid("replace operation does not apply: doc is missing key: " + path);
            }
            object.set(key, value.deepCopy());
        } else {
            ArrayNode array = (ArrayNode) parent;
            int i = Pointer.index(key);
            if (i < 0 || i >= array.size()) {
                throw PatchException.invalid("replace operation does not apply: doc is missing key: " + path);
            }
            array.set(i, value.deepCopy());
        }
        return doc;
    }

    private static JsonNode move(JsonNode doc, Pointer from, Pointer path) {
        JsonNode value = find(doc, from);
        if (value == null) {
            throw PatchException.invalid("move operation does not apply: doc is missing from path: " + from);
        }
        if (from.isProperPrefixOf(path)) {
            throw PatchException.invalid(
                    "move operation does not apply: from path " + from + " is a proper prefix of path " + path);
        }
        if (from.tokens().equals(path.tokens())) {
            return doc;
        }
        if (container(doc, path) == null && !path.isRoot()) {
            throw PatchException.invalid("move operation does not apply: doc is missing destination path: " + path);
        }
        JsonNode detached = value.deepCopy();
        doc = remove(doc, from);
        return add(doc, path, detached);
    }

    private static JsonNode copy(JsonNode doc, Pointer from, Pointer path, long[] copied) {
        JsonNode value = find(doc, from);
        if (value == null) {
            throw PatchException.invalid("copy operation does not apply: doc is missing from path: " + from);
        }
        // Measured before copying, so the copy that would pass the limit is never made.
        long limit = PatchLimits.MAX_COPY_BYTES;
        copied[0] += PatchLimits.compactJsonLength(value, limit - copied[0], Integer.MAX_VALUE);
        if (copied[0] > limit) {
            throw PatchException.invalid("Unable to complete the copy, the accumulated size increase of copy is "
                    + copied[0] + ", exceeding the limit " + limit);
        }
        return add(doc, path, value.deepCopy());
    }

    private static JsonNode test(JsonNode doc, Pointer path, JsonNode value) {
        if (!path.isRoot() && container(doc, path) == null) {
            throw PatchException.invalid("test operation does not apply: is missing path: " + path);
        }
        JsonNode actual = find(doc, path);
        if (actual == null || !JsonValues.jsonEquals(actual, value)) {
            throw PatchException.invalid("testing value " + path + " failed: test failed");
        }
        return doc;
    }
}
