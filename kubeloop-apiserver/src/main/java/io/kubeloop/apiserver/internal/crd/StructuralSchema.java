package io.kubeloop.apiserver.internal.crd;

import io.kubeloop.model.Statuses.FieldError;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A custom resource version's structural {@code openAPIV3Schema}, doing what kube-apiserver does with it on
 * every write: {@link #prune} drops unknown fields (unless {@code x-kubernetes-preserve-unknown-fields}) and
 * non-nullable nulls, and fills in defaults; {@link #validate} reports every violation as a field error in
 * kube's wording ({@code spec.replicas in body must be of type integer: "string"}).
 *
 * <p>Invariant: {@code apiVersion}, {@code kind} and {@code metadata} at the root (and in embedded resources)
 * are never pruned or validated against the schema; metadata keeps exactly the standard ObjectMeta fields.
 */
final class StructuralSchema {

    /** The fields of ObjectMeta: anything else in metadata is dropped, as decoding into ObjectMeta does. */
    static final Set<String> OBJECT_META = Set.of(
            "name",
            "generateName",
            "namespace",
            "selfLink",
            "uid",
            "resourceVersion",
            "generation",
            "creationTimestamp",
            "deletionTimestamp",
            "deletionGracePeriodSeconds",
            "labels",
            "annotations",
            "ownerReferences",
            "finalizers",
            "managedFields");

    private static final Set<String> TYPE_META = Set.of("apiVersion", "kind", "metadata");

    private final JsonNode root;

    StructuralSchema(JsonNode openApiV3Schema) {
        this.root = openApiV3Schema;
    }

    JsonNode root() {
        return root;
    }

    /**
     * Why {@code schema} (at {@code path}, e.g. {@code spec.versions[0].schema.openAPIV3Schema}) is not a
     * structural schema this server can enforce; empty when it is.
     */
    static List<FieldError> structuralErrors(JsonNode schema, String path) {
        List<FieldError> errors = new ArrayList<>();
        if (schema == null || schema.isMissingNode() || schema.isNull() || !schema.isObject()) {
            errors.add(new FieldError("Required value", path, "schemas are required"));
            return errors;
        }
        String type = schema.path("type").asString("");
        if (type.isEmpty()) {
            errors.add(new FieldError("Required value", path + ".type", "must not be empty at the root"));
        } else if (!type.equals("object")) {
            errors.add(new FieldError("Invalid value", path + ".type", quote(type) + ": must be object at the root"));
        }
        checkNode(schema, path, errors, true);
        return errors;
    }

    private static void checkNode(JsonNode schema, String path, List<FieldError> errors, boolean root) {
        if (!schema.isObject()) {
            errors.add(new FieldError("Invalid value", path, "must be a schema object"));
            return;
        }
        if (schema.has("properties") && schema.path("additionalProperties").isObject()) {
            errors.add(new FieldError(
                    "Forbidden",
                    path + ".additionalProperties",
                    "additionalProperties and properties are mutual exclusive"));
        }
        String pattern = schema.path("pattern").asString("");
        if (!pattern.isEmpty()) {
            try {
                Pattern.compile(pattern);
            } catch (PatternSyntaxException e) {
                errors.add(new FieldError(
                        "Invalid value", path + ".pattern", quote(pattern) + ": must be a valid regular expression"));
            }
        }
        for (var p : schema.path("properties").properties()) {
            String child = path + ".properties[" + p.getKey() + "]";
            requireType(p.getValue(), child, "must not be empty for specified object fields", errors);
            checkNode(p.getValue(), child, errors, false);
        }
        JsonNode items = schema.get("items");
        if (items != null) {
            requireType(items, path + ".items", "must not be empty for specified array items", errors);
            checkNode(items, path + ".items", errors, false);
        } else if (schema.path("type").asString("").equals("array")) {
            errors.add(new FieldError("Required value", path + ".items", "must be specified"));
        }
        JsonNode additional = schema.get("additionalProperties");
        if (additional != null && additional.isObject()) {
            requireType(
                    additional,
                    path + ".additionalProperties",
                    "must not be empty for specified additionalProperties",
                    errors);
            checkNode(additional, path + ".additionalProperties", errors, false);
        }
    }

    private static void requireType(JsonNode schema, String path, String detail, List<FieldError> errors) {
        if (schema.isObject()
                && schema.path("type").asString("").isEmpty()
                && !intOrString(schema)
                && !preservesUnknown(schema)) {
            errors.add(new FieldError("Required value", path + ".type", detail));
        }
    }

    // ---- pruning and defaulting

    /**
     * Prunes and defaults {@code object} in place; returns the paths of the unknown fields it dropped
     * ({@code spec.bogus}), for {@code fieldValidation=Strict}.
     */
    List<String> prune(ObjectNode object) {
        List<String> unknown = new ArrayList<>();
        pruneObject(root, object, true, "", unknown);
        return unknown;
    }

    private static void pruneObject(
            JsonNode schema, ObjectNode object, boolean typeMetaAllowed, String path, List<String> unknown) {
        if (typeMetaAllowed && object.get("metadata") instanceof ObjectNode meta) {
            for (String name : new ArrayList<>(meta.propertyNames())) {
                if (!OBJECT_META.contains(name)) {
                    meta.remove(name);
                    unknown.add(join(join(path, "metadata"), name));
                }
            }
        }
        JsonNode properties = schema.path("properties");
        JsonNode additional = schema.get("additionalProperties");
        boolean preserve =
                preservesUnknown(schema) || (additional != null && additional.isBoolean() && additional.asBoolean());
        for (String name : new ArrayList<>(object.propertyNames())) {
            if (typeMetaAllowed && TYPE_META.contains(name)) {
                continue;
            }
            JsonNode child = properties.get(name);
            if (child == null && additional != null && additional.isObject()) {
                child = additional;
            }
            JsonNode value = object.get(name);
            if (child == null) {
                if (!preserve) {
                    object.remove(name);
                    unknown.add(join(path, name));
                }
                continue;
            }
            if (value.isNull() && !child.path("nullable").asBoolean(false)) {
                object.remove(name); // a non-nullable null is dropped, so a default can take its place
                continue;
            }
            pruneValue(child, value, child == additional ? path + "[" + name + "]" : join(path, name), unknown);
        }
        for (var p : properties.properties()) {
            JsonNode dflt = p.getValue().get("default");
            if (dflt != null && !object.has(p.getKey())) {
                JsonNode value = dflt.deepCopy();
                object.set(p.getKey(), value);
                pruneValue(p.getValue(), value, join(path, p.getKey()), unknown);
            }
        }
    }

    private static void pruneValue(JsonNode schema, JsonNode value, String path, List<String> unknown) {
        if (value instanceof ObjectNode o) {
            boolean embedded = schema.path("x-kubernetes-embedded-resource").asBoolean(false);
            if (schema.has("properties")
                    || schema.has("additionalProperties")
                    || !preservesUnknown(schema)
                    || embedded) {
                pruneObject(schema, o, embedded, path, unknown);
            }
        } else if (value.isArray() && schema.get("items") != null) {
            for (int i = 0; i < value.size(); i++) {
                pruneValue(schema.get("items"), value.get(i), path + "[" + i + "]", unknown);
            }
        }
    }

    // ---- validation

    /** Every violation of the schema in {@code object}; empty when it is valid. */
    List<FieldError> validate(ObjectNode object) {
        List<FieldError> errors = new ArrayList<>();
        validateObject(root, object, "", errors, true);
        return errors;
    }

    private static void validate(JsonNode schema, JsonNode value, String path, List<FieldError> errors) {
        if (value.isNull()) {
            if (!schema.path("nullable").asBoolean(false)) {
                errors.add(typeError(path, typeList(schema), "null"));
            }
            return;
        }
        String actual = typeOf(value);
        if (intOrString(schema)) {
            if (!actual.equals("integer") && !actual.equals("string")) {
                errors.add(typeError(path, "integer,string", actual));
                return;
            }
        } else {
            String expected = schema.path("type").asString("");
            if (!expected.isEmpty() && !matches(expected, actual)) {
                errors.add(typeError(path, expected, actual));
                return;
            }
        }
        JsonNode enums = schema.get("enum");
        if (enums != null && enums.isArray() && !contains(enums, value)) {
            List<String> supported = new ArrayList<>();
            enums.forEach(e -> supported.add(e.isString() ? quote(e.asString()) : e.toString()));
            errors.add(new FieldError(
                    "Unsupported value", path, literal(value) + ": supported values: " + String.join(", ", supported)));
        }
        if (value.isNumber()) {
            numberBounds(schema, value, path, errors);
        } else if (value.isString()) {
            stringBounds(schema, value.asString(), path, errors);
        } else if (value.isObject()) {
            validateObject(
                    schema,
                    (ObjectNode) value,
                    path,
                    errors,
                    schema.path("x-kubernetes-embedded-resource").asBoolean(false));
        } else if (value.isArray()) {
            int size = value.size();
            if (schema.has("maxItems") && size > schema.get("maxItems").asLong()) {
                errors.add(new FieldError(
                        "Too many",
                        path,
                        size + ": must have at most " + schema.get("maxItems").asLong() + " items"));
            }
            if (schema.has("minItems") && size < schema.get("minItems").asLong()) {
                errors.add(new FieldError(
                        "Invalid value",
                        path,
                        size + ": " + path + " in body should have at least "
                                + schema.get("minItems").asLong() + " items"));
            }
            JsonNode items = schema.get("items");
            if (items != null) {
                for (int i = 0; i < size; i++) {
                    validate(items, value.get(i), path + "[" + i + "]", errors);
                }
            }
        }
    }

    private static void validateObject(
            JsonNode schema, ObjectNode object, String path, List<FieldError> errors, boolean typeMetaAllowed) {
        if (typeMetaAllowed && !path.isEmpty()) {
            // an embedded resource: kube requires its apiVersion and kind
            for (String f : new String[] {"apiVersion", "kind"}) {
                if (object.path(f).asString("").isEmpty()) {
                    errors.add(new FieldError("Required value", join(path, f), "must not be empty"));
                }
            }
        }
        for (JsonNode required : schema.path("required")) {
            String name = required.asString();
            if (!object.has(name) && !(typeMetaAllowed && TYPE_META.contains(name))) {
                errors.add(new FieldError("Required value", join(path, name), ""));
            }
        }
        JsonNode properties = schema.path("properties");
        JsonNode additional = schema.get("additionalProperties");
        for (var field : object.properties()) {
            String name = field.getKey();
            if (typeMetaAllowed && TYPE_META.contains(name)) {
                continue;
            }
            JsonNode child = properties.get(name);
            if (child != null) {
                validate(child, field.getValue(), join(path, name), errors);
            } else if (additional != null && additional.isObject()) {
                validate(additional, field.getValue(), path + "[" + name + "]", errors);
            }
        }
    }

    private static void numberBounds(JsonNode schema, JsonNode value, String path, List<FieldError> errors) {
        double v = value.asDouble();
        JsonNode min = schema.get("minimum");
        if (min != null && min.isNumber()) {
            boolean exclusive = schema.path("exclusiveMinimum").asBoolean(false);
            if (exclusive ? v <= min.asDouble() : v < min.asDouble()) {
                errors.add(new FieldError(
                        "Invalid value",
                        path,
                        value + ": " + path + " in body should be greater than " + (exclusive ? "" : "or equal to ")
                                + number(min)));
            }
        }
        JsonNode max = schema.get("maximum");
        if (max != null && max.isNumber()) {
            boolean exclusive = schema.path("exclusiveMaximum").asBoolean(false);
            if (exclusive ? v >= max.asDouble() : v > max.asDouble()) {
                errors.add(new FieldError(
                        "Invalid value",
                        path,
                        value + ": " + path + " in body should be less than " + (exclusive ? "" : "or equal to ")
                                + number(max)));
            }
        }
    }

    private static void stringBounds(JsonNode schema, String v, String path, List<FieldError> errors) {
        long length = v.codePointCount(0, v.length());
        if (schema.has("maxLength") && length > schema.get("maxLength").asLong()) {
            errors.add(new FieldError(
                    "Too long",
                    path,
                    "may not be more than " + schema.get("maxLength").asLong() + " bytes"));
        }
        if (schema.has("minLength") && length < schema.get("minLength").asLong()) {
            errors.add(new FieldError(
                    "Invalid value",
                    path,
                    quote(v) + ": " + path + " in body should be at least "
                            + schema.get("minLength").asLong() + " chars long"));
        }
        String pattern = schema.path("pattern").asString("");
        if (!pattern.isEmpty()) {
            try {
                if (!Pattern.compile(pattern).matcher(v).find()) {
                    errors.add(new FieldError(
                            "Invalid value", path, quote(v) + ": " + path + " in body should match '" + pattern + "'"));
                }
            } catch (PatternSyntaxException e) {
                // rejected when the CRD was written; an old definition with a bad pattern checks nothing
            }
        }
    }

    private static FieldError typeError(String path, String expected, String actual) {
        return new FieldError(
                "Invalid value",
                path,
                quote(actual) + ": " + path + " in body must be of type " + expected + ": " + quote(actual));
    }

    private static String typeList(JsonNode schema) {
        return intOrString(schema) ? "integer,string" : schema.path("type").asString("object");
    }

    /** The JSON type name kube reports: integer for whole numbers, number otherwise. */
    private static String typeOf(JsonNode value) {
        if (value.isString()) {
            return "string";
        }
        if (value.isBoolean()) {
            return "boolean";
        }
        if (value.isObject()) {
            return "object";
        }
        if (value.isArray()) {
            return "array";
        }
        if (value.isIntegralNumber()
                || (value.isNumber()
                        && value.asDouble() == Math.rint(value.asDouble())
                        && !Double.isInfinite(value.asDouble()))) {
            return "integer";
        }
        return value.isNumber() ? "number" : "null";
    }

    private static boolean matches(String expected, String actual) {
        return expected.equals(actual) || (expected.equals("number") && actual.equals("integer"));
    }

    private static boolean contains(JsonNode enums, JsonNode value) {
        for (JsonNode e : enums) {
            if (e.equals(value) || (e.isNumber() && value.isNumber() && e.asDouble() == value.asDouble())) {
                return true;
            }
        }
        return false;
    }

    static boolean intOrString(JsonNode schema) {
        return schema.path("x-kubernetes-int-or-string").asBoolean(false);
    }

    static boolean preservesUnknown(JsonNode schema) {
        return schema.path("x-kubernetes-preserve-unknown-fields").asBoolean(false);
    }

    private static String join(String path, String name) {
        return path.isEmpty() ? name : path + "." + name;
    }

    private static String literal(JsonNode value) {
        return value.isString() ? quote(value.asString()) : value.toString();
    }

    private static String number(JsonNode n) {
        return n.isIntegralNumber() || n.asDouble() == Math.rint(n.asDouble())
                ? Long.toString(n.asLong())
                : n.toString();
    }

    static String quote(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }
}
