package io.kubeloop.apiserver.internal.patch;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One object type of a {@link PatchSchema}: a struct with named fields, or a map whose values all share one
 * field description ({@code map[string]X}). Fields a struct does not list are {@link FieldMeta#DEDUCED}.
 *
 * <p>Built once, by {@link BuiltinSchemas} or a test, through the fluent methods below, and never changed
 * after it is published in a schema.
 */
final class SchemaType {

    /** The type of anything the schema does not describe: every key is a deduced field. */
    static final SchemaType DEDUCED = new SchemaType("deduced", false);

    private final String name;
    private final boolean struct;
    private final Map<String, FieldMeta> fields = new LinkedHashMap<>();
    private FieldMeta values; // null: deduced (kept lazy to avoid a class-initialisation cycle with FieldMeta)

    private SchemaType(String name, boolean struct) {
        this.name = name;
        this.struct = struct;
    }

    /** A struct type; fields are added with the builder methods. */
    static SchemaType struct(String name) {
        return new SchemaType(name, true);
    }

    /** A {@code map[string]X} type whose values are described by {@code values}. */
    static SchemaType mapOf(String name, FieldMeta values) {
        SchemaType t = new SchemaType(name, false);
        t.values = values;
        return t;
    }

    String name() {
        return name;
    }

    /** True for a struct type, false for a map type and for {@link #DEDUCED}. */
    boolean isStruct() {
        return struct;
    }

    /** True if {@code key} is a declared field of this struct. */
    boolean declares(String key) {
        return fields.containsKey(key);
    }

    /** The description of {@code key}'s value. */
    FieldMeta field(String key) {
        FieldMeta meta = fields.get(key);
        if (meta != null) {
            return meta;
        }
        return values != null ? values : FieldMeta.DEDUCED;
    }

    // ---- builder -------------------------------------------------------------------------------------------

    SchemaType with(String field, FieldMeta meta) {
        if (!struct) {
            throw new IllegalStateException(name + " is not a struct");
        }
        fields.put(field, meta);
        return this;
    }

    /** An object-valued field merged key by key (a nested struct or a map). */
    SchemaType object(String field, SchemaType type) {
        return with(field, FieldMeta.plain(type));
    }

    /** An object-valued field that SSA owns as a whole ({@code structType=atomic}/{@code mapType=atomic}). */
    SchemaType atomicObject(String field, SchemaType type) {
        return with(field, FieldMeta.plain(type).withAtomic());
    }

    /** {@code map[string]string} (labels, annotations, data...), merged key by key. */
    SchemaType stringMap(String field) {
        return with(field, FieldMeta.plain(SchemaType.mapOf(field, FieldMeta.DEDUCED)));
    }

    /** A list without patch strategy and {@code listType=atomic}: replaced whole by both SMP and SSA. */
    SchemaType atomicList(String field, SchemaType elements) {
        return with(field, FieldMeta.plain(elements));
    }

    /**
     * {@code patchStrategy=merge patchMergeKey=key} and {@code listType=map} with {@code listMapKeys} (the merge
     * key alone when none are given).
     */
    SchemaType mergeList(String field, String key, SchemaType elements, String... listMapKeys) {
        List<String> keys = listMapKeys.length == 0 ? List.of(key) : List.of(listMapKeys);
        return with(
                field, new FieldMeta(elements, true, false, false, key, FieldMeta.ListType.MAP, keys, Map.of(), false));
    }

    /** {@code patchStrategy=merge patchMergeKey=key} but {@code listType=atomic} (e.g. {@code hostIPs}). */
    SchemaType mergeListAtomic(String field, String key, SchemaType elements) {
        return with(
                field,
                new FieldMeta(
                        elements, true, false, false, key, FieldMeta.ListType.ATOMIC, List.of(), Map.of(), false));
    }

    /** {@code listType=map} without a patch strategy: SMP replaces it, SSA merges it by {@code keys}. */
    SchemaType mapList(String field, SchemaType elements, String... keys) {
        return with(
                field,
                new FieldMeta(
                        elements, false, false, false, null, FieldMeta.ListType.MAP, List.of(keys), Map.of(), false));
    }

    /** {@code listType=set}; SMP merges it (deduplicating) only if {@code smpMerge}. */
    SchemaType set(String field, boolean smpMerge) {
        return with(
                field,
                new FieldMeta(
                        DEDUCED, smpMerge, false, false, null, FieldMeta.ListType.SET, List.of(), Map.of(), false));
    }

    /** Replaces the description of an already declared field. */
    SchemaType modify(String field, java.util.function.UnaryOperator<FieldMeta> change) {
        FieldMeta meta = fields.get(field);
        if (meta == null) {
            throw new IllegalArgumentException(name + " has no field " + field);
        }
        fields.put(field, change.apply(meta));
        return this;
    }

    @Override
    public String toString() {
        return name;
    }
}
