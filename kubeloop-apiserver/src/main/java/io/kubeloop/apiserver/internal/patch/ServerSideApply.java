package io.kubeloop.apiserver.internal.patch;

import io.kubeloop.model.Timestamps;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Server-side apply ({@code application/apply-patch+yaml}, {@code kubectl apply --server-side}) as "merge plus
 * managed fields": the applied configuration is merged into the live object and the field manager's
 * {@code Apply} entry in {@code metadata.managedFields} is rewritten with the fields the configuration sets.
 *
 * <p>Contract of {@link #apply}:
 * <ul>
 *   <li>Merge, with structured-merge-diff's rules driven by the schema's SSA markers: maps merge key by key
 *       (atomic structs and maps are replaced whole), {@code listType=map} lists merge item by item on all
 *       their {@code listMapKey}s (defaults such as {@code protocol: TCP} filled in), {@code listType=set}
 *       lists take the union, other lists are replaced. Items keep structured-merge-diff's order: live items
 *       stay in place, applied items follow the applied order. A {@code null} in the configuration removes
 *       the field.</li>
 *   <li>Fields the same manager applied last time, no longer in the configuration and owned by no other
 *       manager (neither the field nor anything below it), are removed from the object.</li>
 *   <li>The manager's entry is {@code {manager, operation: Apply, apiVersion, time, fieldsType: FieldsV1,
 *       fieldsV1}}; FieldsV1 lists every leaf, set item, keyed list item ({@code k:{...}} with {@code "."}),
 *       non-struct map entry, null and empty object of the configuration, as structured-merge-diff's
 *       {@code ToFieldSet} does, without {@code apiVersion}, {@code kind} and the server-owned metadata
 *       ({@code name}, {@code namespace}, {@code uid}, ...). Other managers' entries are kept; entries are
 *       ordered as kube-apiserver orders them (operation, time, manager).</li>
 * </ul>
 *
 * <p>Not implemented: ownership conflicts (a different value for a field another manager owns is simply
 * applied, as with {@code force=true}, and the other manager keeps its entry unchanged), taking fields away
 * from other managers, the {@code before-first-apply} entry for objects created without apply, and the
 * re-adding of items that structured-merge-diff performs for partially owned list items.
 *
 * <p>No argument is modified; the result shares no node with them.
 */
public final class ServerSideApply {

    /** kube-apiserver's {@code stripMeta}: paths no manager ever owns. */
    static final Set<List<FieldPath>> SERVER_OWNED = Set.of(
            List.of(FieldPath.field("apiVersion")),
            List.of(FieldPath.field("kind")),
            List.of(FieldPath.field("metadata")),
            List.of(FieldPath.field("metadata"), FieldPath.field("name")),
            List.of(FieldPath.field("metadata"), FieldPath.field("namespace")),
            List.of(FieldPath.field("metadata"), FieldPath.field("creationTimestamp")),
            List.of(FieldPath.field("metadata"), FieldPath.field("selfLink")),
            List.of(FieldPath.field("metadata"), FieldPath.field("uid")),
            List.of(FieldPath.field("metadata"), FieldPath.field("clusterName")),
            List.of(FieldPath.field("metadata"), FieldPath.field("generation")),
            List.of(FieldPath.field("metadata"), FieldPath.field("managedFields")),
            List.of(FieldPath.field("metadata"), FieldPath.field("resourceVersion")));

    private ServerSideApply() {}

    /**
     * Applies a configuration.
     *
     * @param current the live object, or {@code null} if it does not exist yet (apply creates it)
     * @param applied the applied configuration, a JSON object
     * @param fieldManager the {@code fieldManager} query parameter; required
     * @param schema the kind's schema ({@link PatchSchema#none()} for custom resources)
     * @param now the time recorded in the managed fields entry
     * @return the new object, with its {@code metadata.managedFields}
     * @throws PatchException 422 without a field manager or with a keyed list item missing its key, 400 if the
     *     configuration is not an object or sets {@code metadata.managedFields}
     */
    public static JsonNode apply(
            JsonNode current, JsonNode applied, String fieldManager, PatchSchema schema, Instant now) {
        if (fieldManager == null || fieldManager.isEmpty()) {
            throw new PatchException(
                    PatchException.Kind.INVALID,
                    "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required value: is required for apply patch",
                    "fieldManager: Required value: is required for apply patch");
        }
        if (applied == null || !applied.isObject()) {
            throw PatchException.badRequest("error decoding YAML: the apply configuration must be an object");
        }
        JsonNode appliedMeta = applied.get("metadata");
        if (appliedMeta != null && appliedMeta.isObject() && !JsonValues.isNull(appliedMeta.get("managedFields"))) {
            throw PatchException.badRequest("metadata.managedFields must be nil");
        }
        FieldMeta rootMeta = FieldMeta.plain(schema.root());

        FieldSet newSet = new FieldSet();
        collect(applied, rootMeta, new ArrayList<>(), newSet);
        newSet.paths().removeAll(SERVER_OWNED);

        ObjectNode base = current != null && current.isObject() ? (ObjectNode) current.deepCopy() : JsonValues.object();
        List<JsonNode> entries = new ArrayList<>();
        JsonNode baseMeta = base.get("metadata");
        if (baseMeta instanceof ObjectNode m) {
            JsonNode managed = m.remove("managedFields");
            if (managed != null && managed.isArray()) {
                managed.values().forEach(entries::add);
            }
        }
        ObjectNode merged = (ObjectNode) merge(base, applied, rootMeta, new ArrayList<>());

        FieldSet previous = new FieldSet();
        FieldSet others = new FieldSet();
        List<JsonNode> kept = new ArrayList<>();
        for (JsonNode entry : entries) {
            FieldSet set = FieldSet.fromFieldsV1(entry.get("fieldsV1"));
            if (isOwnApplyEntry(entry, fieldManager)) {
                previous.addAll(set);
            } else {
                others.addAll(set);
                kept.add(entry);
            }
        }
        List<List<FieldPath>> removals = new ArrayList<>();
        for (List<FieldPath> path : previous.paths()) {
            if (!newSet.contains(path) && !others.containsPrefix(path) && !newSet.containsPrefix(path)) {
                removals.add(path);
            }
        }
        Set<List<FieldPath>> removalSet = new HashSet<>(removals);
        removals.removeIf(p -> {
            for (int i = 0; i < p.size(); i++) {
                if (removalSet.contains(p.subList(0, i))) {
                    return true;
                }
            }
            return false;
        });
        for (List<FieldPath> path : removals) {
            remove(merged, path, rootMeta);
        }

        ObjectNode entry = JsonValues.object();
        entry.put("manager", fieldManager);
        entry.put("operation", "Apply");
        JsonNode apiVersion = applied.get("apiVersion");
        if (apiVersion == null && current != null) {
            apiVersion = current.get("apiVersion");
        }
        if (apiVersion != null && apiVersion.isString()) {
            entry.put("apiVersion", apiVersion.stringValue());
        }
        entry.put("time", Timestamps.format(now));
        entry.put("fieldsType", "FieldsV1");
        entry.set("fieldsV1", newSet.toFieldsV1());
        kept.add(entry);
        kept.sort(ServerSideApply::compareEntries);

        JsonNode meta = merged.get("metadata");
        ObjectNode metadata;
        if (meta instanceof ObjectNode m) {
            metadata = m;
        } else {
            metadata = JsonValues.object();
            merged.set("metadata", metadata);
        }
        ArrayNode managed = JsonValues.array();
        kept.forEach(e -> managed.add(e.deepCopy()));
        metadata.set("managedFields", managed);
        return merged;
    }

    private static boolean isOwnApplyEntry(JsonNode entry, String fieldManager) {
        return fieldManager.equals(text(entry, "manager"))
                && "Apply".equals(text(entry, "operation"))
                && text(entry, "subresource").isEmpty();
    }

    static String text(JsonNode node, String field) {
        JsonNode v = node.get(field);
        return v != null && v.isString() ? v.stringValue() : "";
    }

    /** kube-apiserver's {@code sortEncodedManagedFields}: operation, time (seconds), manager, apiVersion. */
    static int compareEntries(JsonNode a, JsonNode b) {
        int c = text(a, "operation").compareTo(text(b, "operation"));
        if (c != 0) {
            return c;
        }
        c = Long.compare(seconds(a), seconds(b));
        if (c != 0) {
            return c;
        }
        c = text(a, "manager").compareTo(text(b, "manager"));
        if (c != 0) {
            return c;
        }
        c = text(a, "apiVersion").compareTo(text(b, "apiVersion"));
        return c != 0 ? c : text(a, "subresource").compareTo(text(b, "subresource"));
    }

    private static long seconds(JsonNode entry) {
        try {
            return Timestamps.parse(text(entry, "time")).getEpochSecond();
        } catch (RuntimeException e) {
            return 0;
        }
    }

    // ---- field sets ----------------------------------------------------------------------------------------

    /** structured-merge-diff's {@code ToFieldSet} over the applied configuration. */
    private static void collect(JsonNode value, FieldMeta meta, List<FieldPath> path, FieldSet set) {
        if (value.isObject()) {
            if (meta.atomic()) {
                set.add(path);
                return;
            }
            SchemaType type = meta.type();
            for (Map.Entry<String, JsonNode> e : value.properties()) {
                JsonNode child = e.getValue();
                path.add(FieldPath.field(e.getKey()));
                collect(child, type.field(e.getKey()), path, set);
                if (child.isNull() || (child.isObject() && child.isEmpty()) || !type.declares(e.getKey())) {
                    set.add(path);
                }
                path.remove(path.size() - 1);
            }
        } else if (value.isArray()) {
            switch (meta.listType()) {
                case ATOMIC -> set.add(path);
                case SET -> {
                    for (JsonNode item : value.values()) {
                        path.add(FieldPath.setValue(item));
                        set.add(path);
                        path.remove(path.size() - 1);
                    }
                }
                case MAP -> {
                    Set<FieldPath> seen = new HashSet<>();
                    for (int i = 0; i < value.size(); i++) {
                        JsonNode item = value.get(i);
                        FieldPath pe = keyOf(item, meta, path, i);
                        if (!seen.add(pe)) {
                            throw PatchException.invalid(render(path) + ": duplicate entries for key "
                                    + pe.text().substring(2));
                        }
                        path.add(pe);
                        collect(item, FieldMeta.plain(meta.type()), path, set);
                        set.add(path);
                        path.remove(path.size() - 1);
                    }
                }
            }
        } else {
            set.add(path);
        }
    }

    static FieldPath keyOf(JsonNode item, FieldMeta meta, List<FieldPath> path, int index) {
        if (!item.isObject()) {
            throw PatchException.invalid(render(path) + ": element " + index
                    + ": associative list with keys has an element that is not a map");
        }
        ObjectNode key = JsonValues.object();
        for (String k : meta.listMapKeys()) {
            JsonNode v = item.get(k);
            if (v == null || v.isNull()) {
                v = meta.keyDefaults().get(k);
            }
            if (v == null) {
                throw PatchException.invalid(render(path) + ": element " + index
                        + ": associative list with keys has an element that omits key field \"" + k
                        + "\" (and doesn't have default value)");
            }
            key.set(k, v);
        }
        return FieldPath.key(key);
    }

    static String render(List<FieldPath> path) {
        StringBuilder sb = new StringBuilder();
        for (FieldPath p : path) {
            sb.append(p.isField() ? "." + p.fieldName() : "[" + p.text().substring(2) + "]");
        }
        return sb.isEmpty() ? "." : sb.toString();
    }

    // ---- merge ---------------------------------------------------------------------------------------------

    /** Merges {@code rhs} (applied) into {@code lhs} (live, owned); {@code null} means "remove the field". */
    private static JsonNode merge(JsonNode lhs, JsonNode rhs, FieldMeta meta, List<FieldPath> path) {
        if (rhs.isNull()) {
            return null;
        }
        if (lhs == null || lhs.isNull()) {
            return withoutNulls(rhs);
        }
        if (lhs.isObject() && rhs.isObject() && !meta.atomic()) {
            ObjectNode out = (ObjectNode) lhs;
            for (Map.Entry<String, JsonNode> e : rhs.properties()) {
                path.add(FieldPath.field(e.getKey()));
                JsonNode v =
                        merge(out.get(e.getKey()), e.getValue(), meta.type().field(e.getKey()), path);
                path.remove(path.size() - 1);
                if (v == null) {
                    out.remove(e.getKey());
                } else {
                    out.set(e.getKey(), v);
                }
            }
            return out;
        }
        if (lhs.isArray() && rhs.isArray() && meta.listType() != FieldMeta.ListType.ATOMIC) {
            return mergeList(lhs, rhs, meta, path);
        }
        return withoutNulls(rhs);
    }

    private static JsonNode withoutNulls(JsonNode value) {
        if (value.isObject()) {
            ObjectNode out = JsonValues.object();
            for (Map.Entry<String, JsonNode> e : value.properties()) {
                if (!e.getValue().isNull()) {
                    out.set(e.getKey(), withoutNulls(e.getValue()));
                }
            }
            return out;
        }
        if (value.isArray()) {
            ArrayNode out = JsonValues.array();
            value.values().forEach(v -> out.add(withoutNulls(v)));
            return out;
        }
        return value.deepCopy();
    }

    private static FieldPath element(JsonNode item, FieldMeta meta, List<FieldPath> path, int index) {
        return meta.listType() == FieldMeta.ListType.SET ? FieldPath.setValue(item) : keyOf(item, meta, path, index);
    }

    /** structured-merge-diff's {@code mergingWalker.visitListItems} for sets and maps. */
    private static JsonNode mergeList(JsonNode lhs, JsonNode rhs, FieldMeta meta, List<FieldPath> path) {
        List<FieldPath> lhsPEs = new ArrayList<>();
        Map<FieldPath, JsonNode> observedLhs = new HashMap<>();
        for (int i = 0; i < lhs.size(); i++) {
            FieldPath pe;
            try {
                pe = element(lhs.get(i), meta, path, i);
            } catch (PatchException e) {
                pe = FieldPath.index(i); // a live item without its keys is kept as it is
            }
            lhsPEs.add(pe);
            observedLhs.putIfAbsent(pe, lhs.get(i));
        }
        List<FieldPath> rhsPEs = new ArrayList<>();
        Map<FieldPath, JsonNode> observedRhs = new HashMap<>();
        for (int i = 0; i < rhs.size(); i++) {
            FieldPath pe = element(rhs.get(i), meta, path, i);
            if (observedRhs.putIfAbsent(pe, rhs.get(i)) != null) {
                throw PatchException.invalid(render(path) + ": duplicate entries for key "
                        + pe.text().substring(2));
            }
            rhsPEs.add(pe);
        }
        List<FieldPath> sharedOrder = new ArrayList<>();
        for (FieldPath pe : rhsPEs) {
            if (observedLhs.containsKey(pe)) {
                sharedOrder.add(pe);
            }
        }
        int shared = 0;
        FieldPath nextShared = shared < sharedOrder.size() ? sharedOrder.get(shared++) : null;
        Set<FieldPath> mergedRhs = new HashSet<>();
        ArrayNode out = JsonValues.array();
        int l = 0;
        int r = 0;
        while (l < lhsPEs.size() || r < rhsPEs.size()) {
            if (l < lhsPEs.size() && r < rhsPEs.size()) {
                FieldPath pe = lhsPEs.get(l);
                if (pe.equals(rhsPEs.get(r))) {
                    mergedRhs.add(pe);
                    addItem(out, observedLhs.get(pe), observedRhs.get(pe), meta, path, pe);
                    l++;
                    r++;
                    nextShared = shared < sharedOrder.size() ? sharedOrder.get(shared++) : null;
                    continue;
                }
                if (observedRhs.containsKey(pe) && nextShared != null && !nextShared.equals(pe)) {
                    l++;
                    continue;
                }
            }
            if (l < lhsPEs.size()) {
                FieldPath pe = lhsPEs.get(l);
                if (!observedRhs.containsKey(pe)) {
                    out.add(lhs.get(l));
                    l++;
                    continue;
                } else if (mergedRhs.contains(pe)) {
                    l++;
                    continue;
                }
            }
            if (r < rhsPEs.size()) {
                FieldPath pe = rhsPEs.get(r);
                mergedRhs.add(pe);
                addItem(out, observedLhs.get(pe), observedRhs.get(pe), meta, path, pe);
                r++;
                if (nextShared != null && nextShared.equals(pe)) {
                    nextShared = shared < sharedOrder.size() ? sharedOrder.get(shared++) : null;
                }
            }
        }
        return out;
    }

    private static void addItem(
            ArrayNode out, JsonNode live, JsonNode applied, FieldMeta meta, List<FieldPath> path, FieldPath pe) {
        if (meta.listType() == FieldMeta.ListType.SET) {
            out.add(applied.deepCopy());
            return;
        }
        path.add(pe);
        JsonNode v = merge(live == null ? null : live.deepCopy(), applied, FieldMeta.plain(meta.type()), path);
        path.remove(path.size() - 1);
        if (v != null) {
            out.add(v);
        }
    }

    // ---- removal -------------------------------------------------------------------------------------------

    /** Removes the field at {@code path}; emptied parent maps are removed too. Missing paths are ignored. */
    private static void remove(JsonNode root, List<FieldPath> path, FieldMeta rootMeta) {
        List<JsonNode> chain = new ArrayList<>();
        JsonNode node = root;
        FieldMeta meta = rootMeta;
        for (FieldPath p : path) {
            chain.add(node);
            JsonNode next = null;
            FieldMeta nextMeta = FieldMeta.plain(meta.type());
            if (p.isField() && node.isObject()) {
                next = node.get(p.fieldName());
                nextMeta = meta.type().field(p.fieldName());
            } else if (node.isArray()) {
                for (int i = 0; i < node.size() && next == null; i++) {
                    JsonNode item = node.get(i);
                    FieldPath pe = p.kind() == 3 ? FieldPath.index(i) : safeElement(item, meta, i);
                    if (p.equals(pe)) {
                        next = item;
                    }
                }
            }
            if (next == null) {
                return;
            }
            node = next;
            meta = nextMeta;
        }
        for (int i = path.size() - 1; i >= 0; i--) {
            JsonNode parent = chain.get(i);
            JsonNode child = i + 1 < chain.size() ? chain.get(i + 1) : node;
            if (parent instanceof ObjectNode o) {
                o.remove(path.get(i).fieldName());
            } else if (parent instanceof ArrayNode a) {
                for (int j = 0; j < a.size(); j++) {
                    if (a.get(j) == child) {
                        a.remove(j);
                        break;
                    }
                }
            }
            if (i == 0
                    || !parent.isEmpty()
                    || !parent.isObject()
                    || i == 1
                            && path.get(0).isField()
                            && path.get(0).fieldName().equals("metadata")) {
                return;
            }
        }
    }

    private static FieldPath safeElement(JsonNode item, FieldMeta meta, int i) {
        try {
            return element(item, meta, List.of(), i);
        } catch (PatchException e) {
            return null;
        }
    }
}
