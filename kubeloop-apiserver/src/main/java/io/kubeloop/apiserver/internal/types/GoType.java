package io.kubeloop.apiserver.internal.types;

import java.util.Collections;
import java.util.HashMap;
import java.util.Map;

/**
 * One Go type of a built-in kind, as kube-apiserver's decoder sees it: what JSON it accepts and the name Go's
 * {@code encoding/json} gives it in an error ({@code int32}, {@code map[string]string}, {@code []v1.Container},
 * {@code v1.PodSpec}). Built once per JVM from the protobuf descriptors (see {@link BuiltInTypes}) and then only
 * read: a struct's fields are filled in while its table is built and never change afterwards, so instances are
 * safely shared between request threads.
 */
public final class GoType {

    /** What a Go type accepts from JSON. */
    public enum Kind {
        STRING,
        BOOL,
        INT32,
        INT64,
        /** {@code []byte}: a base64 string. */
        BYTES,
        /** {@code resource.Quantity}: a string or a number in Kubernetes' quantity syntax. */
        QUANTITY,
        /** {@code intstr.IntOrString}: a string or an int32. */
        INT_OR_STRING,
        /** {@code v1.Time} / {@code v1.MicroTime}: an RFC 3339 string. */
        TIME,
        /** {@code v1.Duration}: Go's duration text. */
        DURATION,
        /** {@code runtime.RawExtension}, {@code v1.FieldsV1}: any JSON. */
        ANY,
        STRUCT,
        ARRAY,
        MAP
    }

    /** A field of a struct: its JSON name, its type, and the Go struct Go names in errors about it. */
    public record Field(String name, GoType type, String struct) {}

    private final Kind kind;
    private final String goName;
    private final GoType element;
    private final Map<String, Field> fields;

    private GoType(Kind kind, String goName, GoType element, Map<String, Field> fields) {
        this.kind = kind;
        this.goName = goName;
        this.element = element;
        this.fields = fields;
    }

    public static GoType scalar(Kind kind, String goName) {
        return new GoType(kind, goName, null, Map.of());
    }

    /** An array of {@code element}: {@code []<element>}. */
    public static GoType array(GoType element) {
        return new GoType(Kind.ARRAY, "[]" + element.goName, element, Map.of());
    }

    /** An array with a Go name of its own (a named slice type such as {@code v1.Verbs}). */
    public static GoType array(GoType element, String goName) {
        return new GoType(Kind.ARRAY, goName, element, Map.of());
    }

    /** A map from strings to {@code value}: {@code map[string]<value>}, or a named map type such as {@code v1.ResourceList}. */
    public static GoType map(GoType value, String goName) {
        return new GoType(Kind.MAP, goName == null ? "map[string]" + value.goName : goName, value, Map.of());
    }

    /** A struct whose fields are added by its builder before it is shared ({@link #addField}). */
    public static GoType struct(String goName) {
        return new GoType(Kind.STRUCT, goName, null, new HashMap<>());
    }

    /** Adds a field while the table is built (before the type is published). */
    public void addField(String name, GoType type, String struct) {
        fields.putIfAbsent(name, new Field(name, type, struct));
    }

    public Kind kind() {
        return kind;
    }

    public String goName() {
        return goName;
    }

    /** The element type of an array, the value type of a map; null otherwise. */
    public GoType element() {
        return element;
    }

    /** A struct's field of this JSON name, or null when the struct has none. */
    public Field field(String name) {
        return fields.get(name);
    }

    Map<String, Field> fields() {
        return Collections.unmodifiableMap(fields);
    }

    @Override
    public String toString() {
        return goName;
    }
}
