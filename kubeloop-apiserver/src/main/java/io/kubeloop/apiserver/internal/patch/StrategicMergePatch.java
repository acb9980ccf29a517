package io.kubeloop.apiserver.internal.patch;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Kubernetes strategic merge patch ({@code application/strategic-merge-patch+json}): what {@code kubectl apply}
 * (client-side, on an existing object), {@code kubectl patch} and {@code kubectl edit} send. The server side of
 * k8s.io/apimachinery's {@code strategicpatch.StrategicMergeMapPatch}, reimplemented rule for rule.
 *
 * <p>Contract of {@link #apply}:
 * <ul>
 *   <li>Maps merge recursively; a {@code null} value deletes the key; a value whose JSON type differs from the
 *       original's replaces it. A field with {@code patchStrategy=replace} is replaced whole.</li>
 *   <li>Lists with {@code patchStrategy=merge} merge: lists of maps by their {@code patchMergeKey} (an item
 *       that matches an original item merges into it, others are added), lists of primitives as sets
 *       (union without duplicates). Other lists are replaced.</li>
 *   <li>Order: items named by the patch take the patch's order, server-only items keep theirs and stay
 *       before the patch item they preceded; {@code $setElementOrder/<list>} overrides the patch order.</li>
 *   <li>Directives: {@code $patch: replace} (map: take the patch map; list item: replace the whole list with
 *       the other items), {@code $patch: delete} (map: empty it; list item: remove every item with that merge
 *       key), {@code $retainKeys} (drop original keys not listed; patch keys must be listed),
 *       {@code $deleteFromPrimitiveList/<list>} (remove those values from a list of primitives, whatever its
 *       strategy), {@code $setElementOrder/<list>} (must list the patch's items in the same relative order).
 *       {@code $patch: merge} is refused, as upstream refuses it.</li>
 *   <li>A value taken into the result where the original had nothing to merge with (new key, new list item,
 *       replaced value) loses its {@code null} members and any nested map carrying {@code $patch}, as upstream
 *       does since Kubernetes 1.28; unlike upstream, this implementation also strips the other directive keys
 *       from such values and from maps and lists taken whole, so that no {@code $} key is ever stored
 *       (kube-apiserver drops them when it decodes into the typed object).</li>
 * </ul>
 *
 * <p>Errors: malformed directives are 400, a list of lists is 422, a kind without schema is 415, as
 * kube-apiserver answers; the remaining engine errors (an item without its merge key, an unknown
 * {@code $patch} value, a {@code $setElementOrder} that is not a list or contradicts the patch) carry
 * kube's wording but are 400 where kube-apiserver answers 500 (see {@link PatchException}).
 *
 * <p>Neither argument is modified; the result shares no node with them.
 */
public final class StrategicMergePatch {

    static final String DIRECTIVE = "$patch";
    static final String DELETE = "delete";
    static final String REPLACE = "replace";
    static final String MERGE = "merge";
    static final String RETAIN_KEYS = "$retainKeys";
    static final String DELETE_FROM_PRIMITIVE_LIST = "$deleteFromPrimitiveList";
    static final String SET_ELEMENT_ORDER = "$setElementOrder";

    static final String UNSUPPORTED =
            "the body of the request was in an unknown format - accepted media types include: "
                    + "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml";

    private StrategicMergePatch() {}

    /**
     * Applies a strategic merge patch.
     *
     * @param original the current object (a JSON object; {@code null} counts as {@code {}})
     * @param patch the patch, a JSON object
     * @param schema the kind's schema, from {@link PatchSchema#forKind}
     * @return a new object
     * @throws PatchException if the kind has no schema (415), or the patch is malformed or cannot be applied
     */
    public static JsonNode apply(JsonNode original, JsonNode patch, PatchSchema schema) {
        if (!schema.supportsStrategicMergePatch()) {
            throw PatchException.unsupportedMediaType(UNSUPPORTED);
        }
        if (patch == null || !patch.isObject()) {
            throw PatchException.badRequest(
                    "json: cannot unmarshal " + kindName(patch) + " into Go value of type map[string]interface {}");
        }
        ObjectNode target =
                original != null && original.isObject() ? (ObjectNode) original.deepCopy() : JsonValues.object();
        return mergeMap(target, entries(patch), schema.root());
    }

    private static String kindName(JsonNode n) {
        if (n == null || n.isNull()) {
            return "null";
        }
        return n.isArray() ? "array" : n.isString() ? "string" : n.isNumber() ? "number" : "bool";
    }

    private static Map<String, JsonNode> entries(JsonNode object) {
        Map<String, JsonNode> m = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> e : object.properties()) {
            m.put(e.getKey(), e.getValue());
        }
        return m;
    }

    private static List<JsonNode> items(JsonNode array) {
        List<JsonNode> l = new ArrayList<>(array.size());
        array.values().forEach(l::add);
        return l;
    }

    private static ArrayNode toArray(List<JsonNode> items) {
        ArrayNode a = JsonValues.array();
        items.forEach(a::add);
        return a;
    }

    // ---- maps ----------------------------------------------------------------------------------------------

    /** {@code mergeMap}: merges {@code patch} into {@code original}, which it owns and may change. */
    private static JsonNode mergeMap(ObjectNode original, Map<String, JsonNode> patch, SchemaType type) {
        JsonNode directive = patch.get(DIRECTIVE);
        if (directive != null) {
            if (isString(directive, REPLACE)) {
                patch.remove(DIRECTIVE);
                ObjectNode replaced = JsonValues.object();
                for (Map.Entry<String, JsonNode> e : patch.entrySet()) {
                    JsonNode cleaned = clean(e.getValue());
                    if (cleaned != null && !e.getValue().isNull() && !isDirectiveKey(e.getKey())) {
                        replaced.set(e.getKey(), cleaned);
                    }
                }
                return replaced;
            }
            if (isString(directive, DELETE)) {
                return JsonValues.object();
            }
            throw PatchException.badRequest(
                    "unknown patch type: " + JsonValues.go(directive) + " in map: " + goMap(patch));
        }

        applyRetainKeys(original, patch);
        applySetElementOrder(original, patch, type);

        for (Map.Entry<String, JsonNode> e : new ArrayList<>(patch.entrySet())) {
            String key = e.getKey();
            JsonNode patchValue = e.getValue();
            boolean deleteList = false;
            if (key.startsWith(DELETE_FROM_PRIMITIVE_LIST)) {
                key = extractKey(key, DELETE_FROM_PRIMITIVE_LIST);
                deleteList = true;
            }
            if (patchValue.isNull()) {
                original.remove(key);
                continue;
            }
            JsonNode originalValue = original.get(key);
            if (originalValue == null || !JsonValues.sameGoType(originalValue, patchValue)) {
                if (!deleteList) {
                    setCleaned(original, key, patchValue);
                }
                continue;
            }
            FieldMeta meta = type.field(key);
            if (originalValue.isObject()) {
                if (meta.smpReplace()) {
                    setCleaned(original, key, patchValue);
                } else {
                    original.set(key, mergeMap((ObjectNode) originalValue, entries(patchValue), meta.type()));
                }
            } else if (originalValue.isArray()) {
                original.set(key, mergeListField(originalValue, patchValue, meta, deleteList));
            } else {
                setCleaned(original, key, patchValue);
            }
        }
        return original;
    }

    private static void setCleaned(ObjectNode target, String key, JsonNode value) {
        JsonNode cleaned = clean(value);
        if (cleaned == null) {
            target.remove(key);
        } else {
            target.set(key, cleaned);
        }
    }

    private static boolean isString(JsonNode node, String value) {
        return node != null && node.isString() && node.stringValue().equals(value);
    }

    private static boolean isDirectiveKey(String key) {
        return key.equals(DIRECTIVE)
                || key.equals(RETAIN_KEYS)
                || key.startsWith(SET_ELEMENT_ORDER + "/")
                || key.startsWith(DELETE_FROM_PRIMITIVE_LIST + "/");
    }

    private static String goMap(Map<String, JsonNode> patch) {
        ObjectNode o = JsonValues.object();
        patch.forEach(o::set);
        return JsonValues.go(o);
    }

    /**
     * A patch value as it is stored when there is nothing to merge it with: a copy without {@code null} map
     * members ({@code discardNullValuesFromPatch}) and without maps carrying {@code $patch}
     * ({@code removeDirectives}), and without other directive keys. {@code null} if the value itself is a
     * directive map and must not be stored at all.
     */
    static JsonNode clean(JsonNode value) {
        if (value.isObject()) {
            if (value.has(DIRECTIVE)) {
                return null;
            }
            ObjectNode out = JsonValues.object();
            for (Map.Entry<String, JsonNode> e : value.properties()) {
                if (e.getValue().isNull() || isDirectiveKey(e.getKey())) {
                    continue;
                }
                JsonNode c = clean(e.getValue());
                if (c != null) {
                    out.set(e.getKey(), c);
                }
            }
            return out;
        }
        if (value.isArray()) {
            ArrayNode out = JsonValues.array();
            for (JsonNode item : value.values()) {
                JsonNode c = item.isNull() ? item.deepCopy() : clean(item);
                if (c != null) {
                    out.add(c);
                }
            }
            return out;
        }
        return value.deepCopy();
    }

    /** {@code extractKey}: the list name after {@code <prefix>/}. */
    private static String extractKey(String key, String prefix) {
        int slash = key.indexOf('/');
        if (slash < 0 || !key.substring(0, slash).equals(prefix)) {
            if (prefix.equals(DELETE_FROM_PRIMITIVE_LIST)) {
                throw PatchException.badRequest("invalid patch format of primitive list");
            }
            throw PatchException.badRequest("invalid patch format of setElementOrder list");
        }
        return key.substring(slash + 1);
    }

    /** {@code applyRetainKeysDirective}. */
    private static void applyRetainKeys(ObjectNode original, Map<String, JsonNode> patch) {
        JsonNode retain = patch.remove(RETAIN_KEYS);
        if (retain == null) {
            return;
        }
        if (!retain.isArray()) {
            throw PatchException.badRequest("invalid patch format of retainKeys");
        }
        Set<String> keep = new HashSet<>();
        for (JsonNode k : retain.values()) {
            if (k.isString()) {
                keep.add(k.stringValue());
            }
        }
        for (Map.Entry<String, JsonNode> e : patch.entrySet()) {
            String k = e.getKey();
            if (e.getValue().isNull() || k.startsWith(DELETE_FROM_PRIMITIVE_LIST) || k.startsWith(SET_ELEMENT_ORDER)) {
                continue;
            }
            if (!keep.contains(k)) {
                throw PatchException.badRequest("invalid patch format of retainKeys");
            }
        }
        for (String k : new ArrayList<>(original.propertyNames())) {
            if (!keep.contains(k)) {
                original.remove(k);
            }
        }
    }

    /** {@code mergePatchIntoOriginal}: merges each list named by a {@code $setElementOrder} and orders it. */
    private static void applySetElementOrder(ObjectNode original, Map<String, JsonNode> patch, SchemaType type) {
        for (String directiveKey : new ArrayList<>(patch.keySet())) {
            if (!directiveKey.startsWith(SET_ELEMENT_ORDER)) {
                continue;
            }
            JsonNode order = patch.remove(directiveKey);
            if (!order.isArray()) {
                throw PatchException.badRequest(
                        "expected a []interface {}, but received a " + JsonValues.goTypeName(order));
            }
            String key = extractKey(directiveKey, SET_ELEMENT_ORDER);
            JsonNode originalList = original.get(key);
            boolean foundOriginal = originalList != null && !originalList.isNull();
            boolean foundPatch = patch.containsKey(key);
            JsonNode patchList = patch.get(key);
            if (foundOriginal && !originalList.isArray()) {
                throw PatchException.badRequest(
                        "expected a []interface {}, but received a " + JsonValues.goTypeName(originalList));
            }
            if (foundPatch && !patchList.isArray()) {
                throw PatchException.badRequest(
                        "expected a []interface {}, but received a " + JsonValues.goTypeName(patchList));
            }
            FieldMeta meta = type.field(key);
            String mergeKey = meta.smpMerge() ? meta.mergeKey() : null;
            List<JsonNode> orderItems = items(order);
            validateOrder(foundPatch ? items(patchList) : List.of(), orderItems, mergeKey);

            List<JsonNode> merged;
            if (foundOriginal && !foundPatch) {
                merged = items(originalList);
            } else if (!foundOriginal && foundPatch) {
                merged = items(clean(patchList));
            } else if (foundOriginal) {
                merged = items(mergeListField(originalList, patchList, meta, false));
            } else {
                continue;
            }
            List<JsonNode> originalItems = foundOriginal ? items(originalList) : List.of();
            List<JsonNode> patchItems = foundPatch ? items(patchList) : List.of();
            boolean maps = elementsAreMaps(originalItems, patchItems);
            if (maps && foundOriginal && foundPatch && mergeKey != null) {
                originalItems = serverOrderSeenUpstream(originalItems, patchItems, mergeKey);
            }
            if (maps && mergeKey == null) {
                // Upstream would compare maps with Go's == here and panic; keep the merged order instead.
                original.set(key, toArray(merged));
                patch.remove(key);
                continue;
            }
            List<List<JsonNode>> parts = ElementOrder.partition(merged, orderItems, mergeKey);
            original.set(
                    key,
                    toArray(ElementOrder.normalize(
                            parts.get(0), parts.get(1), orderItems, originalItems, mergeKey, maps)));
            patch.remove(key);
        }
    }

    /**
     * The server order upstream uses when it orders a list named by {@code $setElementOrder}. Upstream reads
     * it from the original list's backing array after merging, and merging has changed that array in place:
     * each {@code $patch: delete} shifts the later items left ({@code append(s[:i], s[i+1:]...)}) and each new
     * item is appended into the slots that frees, until the array is full. The resulting order decides where
     * server-only items land between the patch's items (e.g. a server-only item ends up before an item the
     * same patch adds after deleting another), so it is reproduced here.
     */
    private static List<JsonNode> serverOrderSeenUpstream(
            List<JsonNode> original, List<JsonNode> patch, String mergeKey) {
        List<JsonNode> view = new ArrayList<>(original);
        int len = view.size();
        boolean replace = false;
        List<JsonNode> plain = new ArrayList<>();
        for (JsonNode item : patch) {
            JsonNode directive = item.get(DIRECTIVE);
            if (directive == null) {
                plain.add(item);
            } else if (isString(directive, DELETE) && item.has(mergeKey)) {
                JsonNode value = item.get(mergeKey);
                for (int i = 0; i < len; ) {
                    JsonNode k = view.get(i).get(mergeKey);
                    if (k != null && JsonValues.sameValue(k, value)) {
                        for (int j = i; j < len - 1; j++) {
                            view.set(j, view.get(j + 1));
                        }
                        len--;
                        i = 0;
                    } else {
                        i++;
                    }
                }
            } else if (isString(directive, REPLACE)) {
                replace = true;
            }
        }
        if (replace) {
            return view;
        }
        List<JsonNode> current = new ArrayList<>(view.subList(0, len));
        for (JsonNode item : plain) {
            JsonNode value = item.get(mergeKey);
            boolean found = false;
            for (JsonNode c : current) {
                JsonNode k = c.get(mergeKey);
                if (k != null && value != null && JsonValues.sameValue(k, value)) {
                    found = true;
                    break;
                }
            }
            if (!found) {
                if (current.size() < view.size()) {
                    view.set(current.size(), item);
                }
                current.add(item);
            }
        }
        return view;
    }

    /** {@code validatePatchWithSetOrderList}: the patch's items must appear in the order list, in its order. */
    private static void validateOrder(List<JsonNode> patchItems, List<JsonNode> order, String mergeKey) {
        if (order.isEmpty() || patchItems.isEmpty()) {
            return;
        }
        List<JsonNode> nonDelete = new ArrayList<>();
        for (JsonNode item : patchItems) {
            if (mergeKey != null) {
                if (!item.isObject()) {
                    throw PatchException.badRequest(
                            "expected a map[string]interface {}, but received a " + JsonValues.goTypeName(item));
                }
                if (isString(item.get(DIRECTIVE), DELETE)) {
                    continue;
                }
            }
            nonDelete.add(item);
        }
        int p = 0;
        int o = 0;
        while (p < nonDelete.size() && o < order.size()) {
            JsonNode item = nonDelete.get(p);
            if (item.isObject() && item.has(DIRECTIVE)) {
                p++;
                continue;
            }
            boolean equal = mergeKey == null
                    ? JsonValues.sameValue(item, order.get(o))
                    : JsonValues.sameValue(
                            ElementOrder.mergeKeyOf(item, mergeKey), ElementOrder.mergeKeyOf(order.get(o), mergeKey));
            if (equal) {
                p++;
            }
            o++;
        }
        if (p < nonDelete.size() && o >= order.size()) {
            throw PatchException.badRequest("the order in patch list:\n" + JsonValues.go(toArray(patchItems))
                    + "\n doesn't match " + SET_ELEMENT_ORDER + " list:\n" + JsonValues.go(toArray(order)));
        }
    }

    // ---- lists ---------------------------------------------------------------------------------------------

    /** {@code mergeSliceHandler}: merge lists merge (and delete lists always do), others are replaced. */
    private static JsonNode mergeListField(
            JsonNode originalList, JsonNode patchList, FieldMeta meta, boolean deleteList) {
        if (meta.smpMerge() || deleteList) {
            return toArray(mergeList(
                    items(originalList),
                    items(patchList),
                    meta.type(),
                    meta.smpMerge() ? meta.mergeKey() : null,
                    deleteList));
        }
        return clean(patchList);
    }

    /** {@code mergeSlice}. */
    private static List<JsonNode> mergeList(
            List<JsonNode> original,
            List<JsonNode> patch,
            SchemaType elementType,
            String mergeKey,
            boolean deleteList) {
        if (original.isEmpty() && patch.isEmpty()) {
            return original;
        }
        boolean maps = elementsAreMaps(original, patch);
        List<JsonNode> merged;
        if (!maps) {
            if (deleteList) {
                Set<Object> remove = new HashSet<>();
                patch.forEach(v -> remove.add(JsonValues.scalarKey(v)));
                List<JsonNode> kept = new ArrayList<>();
                for (JsonNode v : original) {
                    if (!remove.contains(JsonValues.scalarKey(v))) {
                        kept.add(v);
                    }
                }
                return kept;
            }
            merged = new ArrayList<>();
            Set<Object> seen = new HashSet<>();
            for (JsonNode v : original) {
                if (seen.add(JsonValues.scalarKey(v))) {
                    merged.add(v);
                }
            }
            for (JsonNode v : patch) {
                if (seen.add(JsonValues.scalarKey(v))) {
                    merged.add(v.deepCopy());
                }
            }
            mergeKey = null;
        } else {
            if (mergeKey == null) {
                throw PatchException.badRequest("cannot merge lists without merge key for " + elementType.name());
            }
            // mergeSliceWithSpecialElements
            List<JsonNode> plain = new ArrayList<>();
            boolean replace = false;
            List<JsonNode> server = new ArrayList<>(original);
            for (JsonNode v : patch) {
                JsonNode directive = v.get(DIRECTIVE);
                if (directive == null) {
                    plain.add(v);
                } else if (isString(directive, DELETE)) {
                    JsonNode value = v.get(mergeKey);
                    if (value == null) {
                        throw ElementOrder.noMergeKey(v, mergeKey);
                    }
                    for (int i = server.size() - 1; i >= 0; i--) {
                        JsonNode item = server.get(i);
                        if (!item.isObject()) {
                            throw PatchException.badRequest("value for key " + i + " is not a map.");
                        }
                        JsonNode k = item.get(mergeKey);
                        if (k != null && JsonValues.sameValue(k, value)) {
                            server.remove(i);
                        }
                    }
                } else if (isString(directive, REPLACE)) {
                    replace = true;
                } else if (isString(directive, MERGE)) {
                    throw PatchException.badRequest("merging lists cannot yet be specified in the patch");
                } else {
                    throw PatchException.badRequest(
                            "unknown patch type: " + JsonValues.go(directive) + " in map: " + JsonValues.go(v));
                }
            }
            if (replace) {
                server = new ArrayList<>();
                for (JsonNode v : plain) {
                    JsonNode c = clean(v);
                    if (c != null) {
                        server.add(c);
                    }
                }
                plain = List.of();
            }
            original = server;
            // mergeSliceWithoutSpecialElements
            merged = new ArrayList<>(server);
            for (JsonNode v : plain) {
                JsonNode value = v.get(mergeKey);
                if (value == null) {
                    throw ElementOrder.noMergeKey(v, mergeKey);
                }
                int found = -1;
                for (int i = 0; i < merged.size(); i++) {
                    JsonNode item = merged.get(i);
                    if (!item.isObject()) {
                        throw PatchException.badRequest("value for key " + i + " is not a map.");
                    }
                    JsonNode k = item.get(mergeKey);
                    if (k != null && JsonValues.sameValue(k, value)) {
                        found = i;
                        break;
                    }
                }
                if (found >= 0) {
                    merged.set(found, mergeMap((ObjectNode) merged.get(found), entries(v), elementType));
                } else {
                    JsonNode c = clean(v);
                    if (c != null) {
                        merged.add(c);
                    }
                }
            }
            patch = plain;
        }
        List<List<JsonNode>> parts = ElementOrder.partition(merged, patch, mergeKey);
        return ElementOrder.normalize(parts.get(0), parts.get(1), patch, original, mergeKey, maps);
    }

    /**
     * {@code sliceElementType}: whether the items (all of one JSON type) are maps. Fails on mixed types and on
     * lists of lists, as upstream does.
     */
    private static boolean elementsAreMaps(List<JsonNode> a, List<JsonNode> b) {
        JsonNode first = null;
        for (List<JsonNode> list : List.of(a, b)) {
            for (JsonNode v : list) {
                if (first == null) {
                    first = v;
                    if (v.isArray()) {
                        throw new PatchException(
                                PatchException.Kind.INVALID,
                                "lists of lists are not supported",
                                "lists of lists are not supported");
                    }
                } else if (!JsonValues.sameGoType(first, v)) {
                    throw PatchException.badRequest("list element types are not identical: " + JsonValues.go(toArray(a))
                            + " " + JsonValues.go(toArray(b)));
                }
            }
        }
        if (first == null) {
            throw PatchException.badRequest("no elements in any of the given slices");
        }
        return first.isObject();
    }
}
