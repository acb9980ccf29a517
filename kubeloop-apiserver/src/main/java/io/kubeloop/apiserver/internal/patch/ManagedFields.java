package io.kubeloop.apiserver.internal.patch;

import io.kubeloop.model.Timestamps;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
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
 * {@code metadata.managedFields} for the writes that are not server-side apply (create, update, patch and
 * the {@code status} and {@code scale} subresources), as kube-apiserver's field manager records them with
 * {@code operation: Update}.
 *
 * <p>Contract of {@link #recordUpdate}, after structured-merge-diff's {@code Updater.Update} and
 * kube-apiserver's {@code managedFieldsUpdater}:
 * <ul>
 *   <li>The stored object and the new one are compared field by field with the kind's schema (keyed lists by
 *       their keys, sets by value, atomic structs and lists as a whole): a field is <em>added</em>,
 *       <em>modified</em> or <em>removed</em>. Like structured-merge-diff, an object, list or list item that
 *       appears (or disappears) as a whole is itself in the added (removed) set, which FieldsV1 writes as
 *       {@code ".": {}}; objects whose schema type is a struct are not, as Go's non-pointer structs are never
 *       absent (so {@code f:spec} and {@code f:template} carry no {@code "."}, {@code f:labels} does).</li>
 *   <li>Every entry loses the removed fields, and the fields this write added or modified. Entries left empty
 *       are dropped.</li>
 *   <li>The writer's entry (same manager, operation {@code Update}, apiVersion and subresource) gains the
 *       fields it added or modified, except the server-owned metadata of {@link ServerSideApply#SERVER_OWNED};
 *       its {@code time} is set only when it gained something.</li>
 *   <li>A write that changes nothing leaves {@code managedFields} exactly as they were.</li>
 *   <li>The starting entries are those the write sends, if it sends a non-empty list on the main resource
 *       (that is how clients edit or reset them, {@code [{}]} clearing them), else the stored ones.</li>
 *   <li>If the objects cannot be compared (a keyed list item without its key, or duplicate keys),
 *       {@code managedFields} are removed, as kube-apiserver's {@code UpdateNoErrors} does.</li>
 * </ul>
 */
public final class ManagedFields {

    /** kube-apiserver's {@code FieldManagerMaxLength}. */
    public static final int MAX_MANAGER_LENGTH = 128;

    private ManagedFields() {}

    /**
     * The manager of a write: the {@code fieldManager} parameter if it is set, else kube-apiserver's
     * {@code prefixFromUserAgent}: the User-Agent up to its first {@code /}, without non-printable characters,
     * cut at 128 bytes.
     */
    public static String managerOf(String fieldManager, String userAgent) {
        if (fieldManager != null && !fieldManager.isEmpty()) {
            return fieldManager;
        }
        String ua = userAgent == null ? "" : userAgent;
        int slash = ua.indexOf('/');
        String prefix = slash < 0 ? ua : ua.substring(0, slash);
        StringBuilder sb = new StringBuilder();
        int bytes = 0;
        for (int i = 0; i < prefix.length(); ) {
            int cp = prefix.codePointAt(i);
            i += Character.charCount(cp);
            if (!isPrint(cp)) {
                continue;
            }
            if (bytes >= MAX_MANAGER_LENGTH) {
                break;
            }
            sb.appendCodePoint(cp);
            bytes += new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8).length;
        }
        return sb.toString();
    }

    /**
     * What is wrong with a {@code fieldManager} parameter, as kube-apiserver's {@code ValidateFieldManager}
     * words it ({@code Too long: may not be more than 128 bytes}), or {@code null} if it is valid.
     */
    public static String validateManager(String fieldManager) {
        if (fieldManager == null) {
            return null;
        }
        if (fieldManager.getBytes(StandardCharsets.UTF_8).length > MAX_MANAGER_LENGTH) {
            return "Too long: may not be more than " + MAX_MANAGER_LENGTH + " bytes";
        }
        for (int i = 0; i < fieldManager.length(); ) {
            int cp = fieldManager.codePointAt(i);
            if (!isPrint(cp)) {
                return String.format(
                        "Invalid value: \"%s\": invalid character U+%04X (at position %d)", fieldManager, cp, i);
            }
            i += Character.charCount(cp);
        }
        return null;
    }

    /** Go's {@code unicode.IsPrint}, near enough: letters, marks, numbers, punctuation, symbols and ASCII space. */
    private static boolean isPrint(int cp) {
        if (cp == ' ') {
            return true;
        }
        return switch (Character.getType(cp)) {
            case Character.CONTROL,
                    Character.FORMAT,
                    Character.SURROGATE,
                    Character.PRIVATE_USE,
                    Character.UNASSIGNED,
                    Character.SPACE_SEPARATOR,
                    Character.LINE_SEPARATOR,
                    Character.PARAGRAPH_SEPARATOR -> false;
            default -> true;
        };
    }

    /**
     * Records a non-apply write in {@code next}'s {@code metadata.managedFields} (see the class contract).
     *
     * @param live the stored object, or {@code null} for a create
     * @param next the object about to be stored, changed in place; the managed fields it carries are the ones
     *     the client sent
     * @param manager the field manager ({@link #managerOf})
     * @param apiVersion the apiVersion of the request, recorded in the entry
     * @param subresource {@code ""}, {@code "status"} or {@code "scale"}
     * @param schema the kind's schema ({@link PatchSchema#none()} for custom resources)
     * @param now the time recorded in the entry (truncated to seconds)
     */
    public static void recordUpdate(
            JsonNode live,
            ObjectNode next,
            String manager,
            String apiVersion,
            String subresource,
            PatchSchema schema,
            Instant now) {
        JsonNode nm = next.get("metadata");
        ObjectNode nextMeta;
        if (nm instanceof ObjectNode o) {
            nextMeta = o;
        } else {
            nextMeta = JsonValues.object();
            next.set("metadata", nextMeta);
        }
        JsonNode sent = nextMeta.remove("managedFields");
        JsonNode stored = live == null ? null : live.path("metadata").get("managedFields");
        boolean fromSent = subresource.isEmpty() && sent != null && sent.isArray() && !sent.isEmpty();
        JsonNode base = fromSent ? sent : stored;

        Comparison diff = new Comparison();
        try {
            compare(
                    live == null ? JsonValues.object() : live,
                    next,
                    FieldMeta.plain(schema.root()),
                    new ArrayList<>(),
                    false,
                    diff);
        } catch (PatchException e) {
            return; // kube-apiserver: "[SHOULD NOT HAPPEN] failed to update managedFields" and they are dropped
        }
        if (diff.isSame() && (!fromSent || sent.equals(stored))) {
            if (stored != null && stored.isArray() && !stored.isEmpty()) {
                nextMeta.set("managedFields", stored.deepCopy()); // unchanged: the store sees a no-op
            }
            return;
        }

        Set<List<FieldPath>> lost = new HashSet<>(diff.removed.paths());
        lost.addAll(diff.added.paths());
        lost.addAll(diff.modified.paths());
        FieldSet gained = new FieldSet();
        gained.addAll(diff.added);
        gained.addAll(diff.modified);
        gained.paths().removeAll(ServerSideApply.SERVER_OWNED);

        List<JsonNode> out = new ArrayList<>();
        FieldSet own = new FieldSet();
        JsonNode ownEntry = null;
        if (base != null && base.isArray()) {
            for (JsonNode entry : base.values()) {
                if (!entry.isObject()) {
                    continue;
                }
                FieldSet set = FieldSet.fromFieldsV1(entry.get("fieldsV1"));
                int before = set.paths().size();
                set.paths().removeAll(lost);
                if (isEntryOf(entry, manager, apiVersion, subresource)) {
                    own.addAll(set);
                    ownEntry = ownEntry == null ? entry : ownEntry;
                    continue;
                }
                if (set.isEmpty()) {
                    continue;
                }
                out.add(set.paths().size() == before ? entry : withFields(entry, set));
            }
        }
        if (!gained.isEmpty()) {
            own.addAll(gained);
            ObjectNode entry = JsonValues.object();
            entry.put("manager", manager);
            entry.put("operation", "Update");
            entry.put("apiVersion", apiVersion);
            entry.put("time", Timestamps.format(now));
            entry.put("fieldsType", "FieldsV1");
            entry.set("fieldsV1", own.toFieldsV1());
            if (!subresource.isEmpty()) {
                entry.put("subresource", subresource);
            }
            out.add(entry);
        } else if (ownEntry != null && !own.isEmpty()) {
            out.add(withFields(ownEntry, own));
        }
        if (out.isEmpty()) {
            return;
        }
        out.sort(ServerSideApply::compareEntries);
        ArrayNode managed = JsonValues.array();
        out.forEach(e -> managed.add(e.deepCopy()));
        nextMeta.set("managedFields", managed);
    }

    private static boolean isEntryOf(JsonNode entry, String manager, String apiVersion, String subresource) {
        return manager.equals(ServerSideApply.text(entry, "manager"))
                && "Update".equals(ServerSideApply.text(entry, "operation"))
                && apiVersion.equals(ServerSideApply.text(entry, "apiVersion"))
                && subresource.equals(ServerSideApply.text(entry, "subresource"));
    }

    private static JsonNode withFields(JsonNode entry, FieldSet set) {
        ObjectNode copy = ((ObjectNode) entry).deepCopy();
        copy.set("fieldsV1", set.toFieldsV1());
        return copy;
    }

    // ---- comparison ----------------------------------------------------------------------------------------

    /** structured-merge-diff's {@code typed.Comparison}. */
    static final class Comparison {
        final FieldSet added = new FieldSet();
        final FieldSet modified = new FieldSet();
        final FieldSet removed = new FieldSet();

        boolean isSame() {
            return added.isEmpty() && modified.isEmpty() && removed.isEmpty();
        }
    }

    /**
     * structured-merge-diff's {@code compareWalker}: {@code lhs} and {@code rhs} are {@code null} when absent
     * (a JSON {@code null} is a present value). {@code metadata.managedFields} is not compared.
     */
    static void compare(
            JsonNode lhs, JsonNode rhs, FieldMeta meta, List<FieldPath> path, boolean listItem, Comparison c) {
        if (isObjectOrAbsent(lhs) && isObjectOrAbsent(rhs) && !meta.atomic()) {
            if (isEmpty(lhs) && isEmpty(rhs)) {
                leaf(lhs, rhs, path, c);
                return;
            }
            Map<String, Boolean> keys = new LinkedHashMap<>();
            if (lhs != null) {
                lhs.propertyNames().forEach(k -> keys.put(k, true));
            }
            if (rhs != null) {
                rhs.propertyNames().forEach(k -> keys.put(k, true));
            }
            boolean metadata = path.size() == 1
                    && path.get(0).isField()
                    && path.get(0).fieldName().equals("metadata");
            SchemaType type = meta.type();
            for (String k : keys.keySet()) {
                if (metadata && k.equals("managedFields")) {
                    continue;
                }
                path.add(FieldPath.field(k));
                compare(
                        lhs == null ? null : lhs.get(k),
                        rhs == null ? null : rhs.get(k),
                        type.field(k),
                        path,
                        false,
                        c);
                path.remove(path.size() - 1);
            }
            boolean struct = type.isStruct() && !listItem;
            container(lhs, rhs, path, struct, c);
            return;
        }
        if (isArrayOrAbsent(lhs) && isArrayOrAbsent(rhs) && meta.listType() != FieldMeta.ListType.ATOMIC) {
            if (isEmpty(lhs) && isEmpty(rhs)) {
                leaf(lhs, rhs, path, c);
                return;
            }
            Map<FieldPath, JsonNode> left = items(lhs, meta, path);
            Map<FieldPath, JsonNode> right = items(rhs, meta, path);
            Map<FieldPath, Boolean> pes = new LinkedHashMap<>();
            left.keySet().forEach(pe -> pes.put(pe, true));
            right.keySet().forEach(pe -> pes.put(pe, true));
            for (FieldPath pe : pes.keySet()) {
                path.add(pe);
                if (meta.listType() == FieldMeta.ListType.SET) {
                    leaf(left.get(pe), right.get(pe), path, c);
                } else {
                    compare(left.get(pe), right.get(pe), FieldMeta.plain(meta.type()), path, true, c);
                }
                path.remove(path.size() - 1);
            }
            container(lhs, rhs, path, false, c);
            return;
        }
        leaf(lhs, rhs, path, c);
    }

    private static Map<FieldPath, JsonNode> items(JsonNode list, FieldMeta meta, List<FieldPath> path) {
        Map<FieldPath, JsonNode> items = new LinkedHashMap<>();
        if (list == null) {
            return items;
        }
        for (int i = 0; i < list.size(); i++) {
            JsonNode item = list.get(i);
            if (meta.listType() == FieldMeta.ListType.SET) {
                items.putIfAbsent(FieldPath.setValue(item), item);
                continue;
            }
            FieldPath pe = ServerSideApply.keyOf(item, meta, path, i);
            if (items.putIfAbsent(pe, item) != null) {
                throw PatchException.invalid(ServerSideApply.render(path) + ": duplicate entries for key "
                        + pe.text().substring(2));
            }
        }
        return items;
    }

    /** A whole object, list or list item that appeared or disappeared (not for structs that appeared). */
    private static void container(JsonNode lhs, JsonNode rhs, List<FieldPath> path, boolean struct, Comparison c) {
        if (path.isEmpty()) {
            return;
        }
        if (lhs == null && !struct) {
            c.added.add(path);
        } else if (rhs == null && lhs != null) {
            c.removed.add(path);
        }
    }

    private static void leaf(JsonNode lhs, JsonNode rhs, List<FieldPath> path, Comparison c) {
        if (lhs == null && rhs == null) {
            return;
        }
        if (lhs == null) {
            c.added.add(path);
        } else if (rhs == null) {
            c.removed.add(path);
        } else if (!sameValue(lhs, rhs)) {
            c.modified.add(path);
        }
    }

    private static boolean sameValue(JsonNode a, JsonNode b) {
        if (a.isNumber() && b.isNumber()) {
            return a.decimalValue().compareTo(b.decimalValue()) == 0;
        }
        return a.equals(b);
    }

    private static boolean isObjectOrAbsent(JsonNode n) {
        return n == null || n.isObject();
    }

    private static boolean isArrayOrAbsent(JsonNode n) {
        return n == null || n.isArray();
    }

    private static boolean isEmpty(JsonNode n) {
        return n == null || n.isEmpty();
    }
}
