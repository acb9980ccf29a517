package io.kubeloop.apiserver.internal.storage;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Builds the immutable JSON trees the store keeps, sharing every unchanged subtree with the previous version.
 *
 * <p>Jackson's value nodes (strings, numbers, booleans, null) are immutable and are always shared; only
 * containers ({@link ObjectNode}, {@link ArrayNode}) are mutable. {@link #freezeForWrite} therefore copies the
 * caller's containers, so that nothing the caller still holds can reach the stored tree, but wherever the new
 * tree equals the previous version's subtree it reuses that subtree. An update of one label of a pod thus
 * allocates the top-level object, {@code metadata} and {@code metadata.labels}, and shares {@code spec} and
 * {@code status} with the previous version. The same pass detects a no-op write: the previous version itself
 * comes back.
 *
 * <p>Invariant: no tree returned by this class is reachable from a caller's object, and the store never
 * changes a tree after it has been returned from here.
 */
final class ObjectTrees {

    static final String METADATA = "metadata";
    static final String RESOURCE_VERSION = "resourceVersion";

    private static final JsonNodeFactory FACTORY = JsonNodeFactory.instance;

    private ObjectTrees() {}

    /**
     * The tree to store for {@code input} at {@code revision}, or {@code previous} itself if {@code input} equals
     * it apart from {@code metadata.resourceVersion} (a no-op write). The result's
     * {@code metadata.resourceVersion} is {@code revision} as a decimal string; {@code input} is not changed.
     *
     * @param previous the stored version being replaced, or null for a create
     * @throws IllegalArgumentException if {@code input.metadata} is present and not an object
     */
    static ObjectNode freezeForWrite(ObjectNode input, ObjectNode previous, long revision) {
        JsonNode inMeta = input.get(METADATA);
        if (inMeta != null && !inMeta.isObject()) {
            throw new IllegalArgumentException("metadata must be a JSON object, not " + inMeta.getNodeType());
        }
        ObjectNode prevMeta = previous == null ? null : (ObjectNode) previous.get(METADATA);
        Map<String, JsonNode> kids = newMap(input.size() + 1);
        boolean same = previous != null && previous.size() == input.size() + (inMeta == null ? 1 : 0);
        ObjectNode frozenMeta = null;
        for (Map.Entry<String, JsonNode> e : input.properties()) {
            String name = e.getKey();
            if (name.equals(METADATA)) {
                frozenMeta = freezeMetadata((ObjectNode) e.getValue(), prevMeta);
                same &= frozenMeta == prevMeta;
                kids.put(name, frozenMeta);
            } else {
                JsonNode prevChild = previous == null ? null : previous.get(name);
                JsonNode frozen = freeze(e.getValue(), prevChild);
                same &= frozen == prevChild;
                kids.put(name, frozen);
            }
        }
        if (frozenMeta == null) {
            frozenMeta = freezeMetadata(FACTORY.objectNode(), prevMeta);
            same &= frozenMeta == prevMeta;
            kids.put(METADATA, frozenMeta);
        }
        if (same) {
            return previous;
        }
        kids.put(METADATA, withResourceVersion(frozenMeta, revision));
        return new ObjectNode(FACTORY, kids);
    }

    /**
     * A copy of the stored {@code object} whose {@code metadata.resourceVersion} is {@code revision}; everything
     * but the top-level object and {@code metadata} is shared.
     */
    static ObjectNode withObjectResourceVersion(ObjectNode object, long revision) {
        Map<String, JsonNode> kids = newMap(object.size() + 1);
        for (Map.Entry<String, JsonNode> e : object.properties()) {
            kids.put(e.getKey(), e.getValue());
        }
        kids.put(METADATA, withResourceVersion((ObjectNode) object.get(METADATA), revision));
        return new ObjectNode(FACTORY, kids);
    }

    /** A string field of {@code object.metadata}, or null if absent or not a string. */
    static String metadataString(ObjectNode object, String field) {
        JsonNode meta = object.get(METADATA);
        JsonNode value = meta == null ? null : meta.get(field);
        return value != null && value.isString() ? value.stringValue() : null;
    }

    /** Like {@link #freeze} but ignores {@code resourceVersion} in the comparison with {@code previous}. */
    private static ObjectNode freezeMetadata(ObjectNode input, ObjectNode previous) {
        Map<String, JsonNode> kids = newMap(input.size() + 1);
        boolean same = previous != null
                && previous.size() - (previous.has(RESOURCE_VERSION) ? 1 : 0)
                        == input.size() - (input.has(RESOURCE_VERSION) ? 1 : 0);
        for (Map.Entry<String, JsonNode> e : input.properties()) {
            String name = e.getKey();
            if (name.equals(RESOURCE_VERSION)) {
                kids.put(name, e.getValue()); // replaced by the new revision unless the write is a no-op
                continue;
            }
            JsonNode prevChild = previous == null ? null : previous.get(name);
            JsonNode frozen = freeze(e.getValue(), prevChild);
            same &= frozen == prevChild;
            kids.put(name, frozen);
        }
        return same ? previous : new ObjectNode(FACTORY, kids);
    }

    /** A tree equal to {@code node}, made of new containers or of subtrees of {@code previous}. */
    private static JsonNode freeze(JsonNode node, JsonNode previous) {
        if (node instanceof ObjectNode object) {
            ObjectNode prev = previous instanceof ObjectNode p ? p : null;
            Map<String, JsonNode> kids = newMap(object.size());
            boolean same = prev != null && prev.size() == object.size();
            for (Map.Entry<String, JsonNode> e : object.properties()) {
                JsonNode prevChild = prev == null ? null : prev.get(e.getKey());
                JsonNode frozen = freeze(e.getValue(), prevChild);
                same &= frozen == prevChild;
                kids.put(e.getKey(), frozen);
            }
            return same ? prev : new ObjectNode(FACTORY, kids);
        }
        if (node instanceof ArrayNode array) {
            ArrayNode prev = previous instanceof ArrayNode p ? p : null;
            int n = array.size();
            List<JsonNode> items = new ArrayList<>(n);
            boolean same = prev != null && prev.size() == n;
            for (int i = 0; i < n; i++) {
                JsonNode prevChild = prev == null || i >= prev.size() ? null : prev.get(i);
                JsonNode frozen = freeze(array.get(i), prevChild);
                same &= frozen == prevChild;
                items.add(frozen);
            }
            return same ? prev : new ArrayNode(FACTORY, items);
        }
        // A value node: immutable, so shared as it is (or the equal previous one, to keep identity for callers).
        return previous != null && node.equals(previous) ? previous : node;
    }

    private static ObjectNode withResourceVersion(ObjectNode metadata, long revision) {
        Map<String, JsonNode> kids = newMap(metadata.size() + 1);
        for (Map.Entry<String, JsonNode> e : metadata.properties()) {
            kids.put(e.getKey(), e.getValue());
        }
        kids.put(RESOURCE_VERSION, FACTORY.stringNode(Long.toString(revision)));
        return new ObjectNode(FACTORY, kids);
    }

    private static Map<String, JsonNode> newMap(int expectedSize) {
        return LinkedHashMap.newLinkedHashMap(expectedSize);
    }
}
