package io.kubeloop.apiserver.internal.patch;

import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;

/**
 * What the schema says about one field: the type of its value (of its elements, for a list), the strategic
 * merge patch tags ({@code patchStrategy}, {@code patchMergeKey}) and the server-side apply markers
 * ({@code listType}, {@code listMapKey}, atomic structs and maps).
 *
 * <p>The two sets of markers are independent, as they are in k8s.io/api: {@code tolerations} is
 * {@code listType=atomic} and has no patch strategy; {@code hostIPs} is merged by {@code ip} under SMP but
 * atomic under SSA; {@code topologySpreadConstraints} merges by {@code topologyKey} under SMP and by
 * {@code topologyKey}+{@code whenUnsatisfiable} under SSA.
 *
 * @param type the value's type; for a list, its elements' type
 * @param smpMerge {@code patchStrategy} contains {@code merge} (lists)
 * @param smpReplace {@code patchStrategy} contains {@code replace} (maps)
 * @param retainKeys {@code patchStrategy} contains {@code retainKeys}
 * @param mergeKey {@code patchMergeKey}, or {@code null}
 * @param listType the SSA list type; {@link ListType#ATOMIC} also for fields that are not lists
 * @param listMapKeys the SSA {@code listMapKey}s of a {@link ListType#MAP} list
 * @param keyDefaults defaults of list map keys, used when an element omits one (e.g. {@code protocol: TCP})
 * @param atomic SSA {@code structType=atomic} or {@code mapType=atomic}: the object is owned as a whole
 */
record FieldMeta(
        SchemaType type,
        boolean smpMerge,
        boolean smpReplace,
        boolean retainKeys,
        String mergeKey,
        ListType listType,
        List<String> listMapKeys,
        Map<String, JsonNode> keyDefaults,
        boolean atomic) {

    /** SSA list types ({@code +listType}). */
    enum ListType {
        ATOMIC,
        SET,
        MAP
    }

    /** A field the schema does not describe: maps merge, lists are replaced (SMP) and atomic (SSA). */
    static final FieldMeta DEDUCED = plain(SchemaType.DEDUCED);

    FieldMeta {
        listMapKeys = List.copyOf(listMapKeys);
        keyDefaults = Map.copyOf(keyDefaults);
    }

    static FieldMeta plain(SchemaType type) {
        return new FieldMeta(type, false, false, false, null, ListType.ATOMIC, List.of(), Map.of(), false);
    }

    FieldMeta withAtomic() {
        return new FieldMeta(
                type, smpMerge, smpReplace, retainKeys, mergeKey, listType, listMapKeys, keyDefaults, true);
    }

    FieldMeta withRetainKeys() {
        return new FieldMeta(type, smpMerge, smpReplace, true, mergeKey, listType, listMapKeys, keyDefaults, atomic);
    }

    FieldMeta withSmpReplace() {
        return new FieldMeta(type, smpMerge, true, retainKeys, mergeKey, listType, listMapKeys, keyDefaults, atomic);
    }

    FieldMeta withKeyDefault(String key, JsonNode value) {
        Map<String, JsonNode> defaults = new java.util.HashMap<>(keyDefaults);
        defaults.put(key, value);
        return new FieldMeta(type, smpMerge, smpReplace, retainKeys, mergeKey, listType, listMapKeys, defaults, atomic);
    }
}
