package io.kubeloop.apiserver.internal.http;

import com.google.gson.annotations.SerializedName;
import io.kubeloop.model.GroupVersionKind;
import io.kubeloop.model.ResourceRegistry;
import io.kubeloop.model.ResourceType;
import io.swagger.annotations.ApiModel;
import io.swagger.annotations.ApiModelProperty;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.time.OffsetDateTime;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Writes the OpenAPI v3 component schemas of the built-in kinds ({@link OpenApiSchemas#RESOURCE}) from the
 * Kubernetes 1.32 model classes of {@code io.kubernetes:client-java-api} (a test-scope dependency only): their
 * {@code @ApiModel} descriptions, {@code @ApiModelProperty} field descriptions and required flags, gson
 * {@code @SerializedName} JSON names and Java field types. The result has kube-openapi's v3 shape: components named
 * by Go package ({@code io.k8s.api.core.v1.PodSpec}), references wrapped in {@code allOf} beside their description,
 * {@code default} for required and value-typed fields, {@code Time} and {@code MicroTime} as date-time strings,
 * {@code Quantity} and {@code IntOrString} as their {@code oneOf} components, and {@code
 * x-kubernetes-group-version-kind} on every kind.
 *
 * <p>Component names: a class's version and, when client-java had to disambiguate, its group are in its name
 * ({@code V1PodSpec}, {@code DiscoveryV1EndpointPort}); its Go package is then: the group of the prefix when
 * present, meta/v1 for apimachinery's types ({@link #META}), core/v1 for every type reachable from a core kind
 * ({@link #CORE_KINDS}, plus {@link #CORE_EXTRA}), else the package of the kind that reaches it. {@code
 * OpenApiSchemaGeneratorTest} checks those names against the protobuf descriptors of client-java-proto.
 *
 * <p>Left out because the models do not carry them: {@code enum} lists (client-java drops kube's "Possible enum
 * values" text), {@code x-kubernetes-list-type}, {@code x-kubernetes-patch-merge-key} and friends, and Go's field
 * order for {@code required} (the models order fields alphabetically).
 */
final class OpenApiSchemaGenerator {

    private static final String MODELS = "io.kubernetes.client.openapi.models.";
    private static final String META_PKG = "io.k8s.apimachinery.pkg.apis.meta.v1";
    private static final String TIME = META_PKG + ".Time";
    private static final String MICRO_TIME = META_PKG + ".MicroTime";
    private static final String QUANTITY = "io.k8s.apimachinery.pkg.api.resource.Quantity";
    private static final String INT_OR_STRING = "io.k8s.apimachinery.pkg.util.intstr.IntOrString";
    private static final String FIELDS_V1 = META_PKG + ".FieldsV1";
    private static final String JSON_PKG = "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1";

    /** The kinds the groups work of issue 17 adds; generated now so their documents have schemas once served. */
    static final List<GroupVersionKind> PLANNED = List.of(
            new GroupVersionKind("batch", "v1", "Job"),
            new GroupVersionKind("batch", "v1", "CronJob"),
            new GroupVersionKind("networking.k8s.io", "v1", "Ingress"),
            new GroupVersionKind("networking.k8s.io", "v1", "IngressClass"),
            new GroupVersionKind("networking.k8s.io", "v1", "NetworkPolicy"),
            new GroupVersionKind("policy", "v1", "PodDisruptionBudget"),
            new GroupVersionKind("policy", "v1", "Eviction"),
            new GroupVersionKind("autoscaling", "v2", "HorizontalPodAutoscaler"),
            new GroupVersionKind("storage.k8s.io", "v1", "StorageClass"),
            new GroupVersionKind("", "v1", "PersistentVolume"),
            new GroupVersionKind("", "v1", "PersistentVolumeClaim"),
            new GroupVersionKind("discovery.k8s.io", "v1", "EndpointSlice"),
            // the scale subresource's body, which kube's documents of apps/v1 and core/v1 carry
            new GroupVersionKind("autoscaling", "v1", "Scale"));

    /** Every core/v1 kind: a model class reachable from one of them is a core/v1 type. */
    private static final List<String> CORE_KINDS = List.of(
            "V1Binding",
            "V1ComponentStatus",
            "V1ConfigMap",
            "V1Endpoints",
            "CoreV1Event",
            "V1LimitRange",
            "V1Namespace",
            "V1Node",
            "V1PersistentVolume",
            "V1PersistentVolumeClaim",
            "V1Pod",
            "V1PodTemplate",
            "V1ReplicationController",
            "V1ResourceQuota",
            "V1Secret",
            "V1Service",
            "V1ServiceAccount");

    /** core/v1 types no core kind uses (StorageClass's allowedTopologies). */
    private static final Set<String> CORE_EXTRA = Set.of("TopologySelectorTerm", "TopologySelectorLabelRequirement");

    /** apimachinery's meta/v1 types among the models. */
    static final Set<String> META = Set.of(
            "Condition",
            "DeleteOptions",
            "FieldSelectorRequirement",
            "LabelSelector",
            "LabelSelectorRequirement",
            "ListMeta",
            "ManagedFieldsEntry",
            "ObjectMeta",
            "OwnerReference",
            "Preconditions",
            "Status",
            "StatusCause",
            "StatusDetails");

    /** The Go fields of type metav1.MicroTime (the models have OffsetDateTime for both Time and MicroTime). */
    private static final Set<String> MICRO_TIME_FIELDS = Set.of(
            "io.k8s.api.core.v1.Event.eventTime",
            "io.k8s.api.core.v1.EventSeries.lastObservedTime",
            "io.k8s.api.events.v1.Event.eventTime",
            "io.k8s.api.events.v1.EventSeries.lastObservedTime",
            "io.k8s.api.coordination.v1.LeaseSpec.acquireTime",
            "io.k8s.api.coordination.v1.LeaseSpec.renewTime");

    /**
     * Fields the models type as {@code Object}, by component and JSON name, with the component kube's document
     * references (apiextensions' JSON and its OrArray/OrBool variants serve a CRD's schema).
     */
    private static final Map<String, String> OBJECT_FIELDS = Map.of(
            JSON_PKG + ".CustomResourceSubresources.status", JSON_PKG + ".CustomResourceSubresourceStatus",
            META_PKG + ".ManagedFieldsEntry.fieldsV1", FIELDS_V1,
            JSON_PKG + ".JSONSchemaProps.default", JSON_PKG + ".JSON",
            JSON_PKG + ".JSONSchemaProps.example", JSON_PKG + ".JSON",
            JSON_PKG + ".JSONSchemaProps.enum", JSON_PKG + ".JSON",
            JSON_PKG + ".JSONSchemaProps.items", JSON_PKG + ".JSONSchemaPropsOrArray",
            JSON_PKG + ".JSONSchemaProps.additionalItems", JSON_PKG + ".JSONSchemaPropsOrBool",
            JSON_PKG + ".JSONSchemaProps.additionalProperties", JSON_PKG + ".JSONSchemaPropsOrBool",
            JSON_PKG + ".JSONSchemaProps.dependencies", JSON_PKG + ".JSONSchemaPropsOrStringArray");

    /** Components with no model class, as kube-openapi writes them (their OpenAPIDefinition / OpenAPIV3OneOfTypes). */
    private static Map<String, Map<String, Object>> primitives() {
        Map<String, Map<String, Object>> p = new TreeMap<>();
        p.put(
                TIME,
                node(
                        "description",
                        "Time is a wrapper around time.Time which supports correct marshaling to YAML and JSON.  Wrappers"
                                + " are provided for many of the factory methods that the time package offers.",
                        "format",
                        "date-time",
                        "type",
                        "string"));
        p.put(
                MICRO_TIME,
                node(
                        "description",
                        "MicroTime is version of Time with microsecond level precision.",
                        "format",
                        "date-time",
                        "type",
                        "string"));
        p.put(
                QUANTITY,
                node(
                        "description",
                        "Quantity is a fixed-point representation of a number. It provides convenient marshaling/"
                                + "unmarshaling in JSON and YAML, in addition to String() and AsInt64() accessors.\n\n"
                                + "The serialization format is:\n\n```\n<quantity>        ::= <signedNumber><suffix>\n\n"
                                + "\t(Note that <suffix> may be empty, from the \"\" case in <decimalSI>.)\n\n"
                                + "<digit>           ::= 0 | 1 | ... | 9 <digits>          ::= <digit> | <digit><digits>"
                                + " <number>          ::= <digits> | <digits>.<digits> | <digits>. | .<digits> <sign>"
                                + "            ::= \"+\" | \"-\" <signedNumber>    ::= <number> | <sign><number> <suffix>"
                                + "          ::= <binarySI> | <decimalExponent> | <decimalSI> <binarySI>        ::= Ki |"
                                + " Mi | Gi | Ti | Pi | Ei\n\n\t(International System of units; See:"
                                + " http://physics.nist.gov/cuu/Units/binary.html)\n\n<decimalSI>       ::= m | \"\" | k |"
                                + " M | G | T | P | E\n\n\t(Note that 1024 = 1Ki but 1000 = 1k; I didn't choose the"
                                + " capitalization.)\n\n<decimalExponent> ::= \"e\" <signedNumber> | \"E\" <signedNumber>\n```",
                        "oneOf",
                        List.of(node("type", "string"), node("type", "number"))));
        p.put(
                INT_OR_STRING,
                node(
                        "description",
                        "IntOrString is a type that can hold an int32 or a string.  When used in JSON or YAML"
                                + " marshalling and unmarshalling, it produces or consumes the inner type.  This allows"
                                + " you to have, for example, a JSON field that can accept a name or number.",
                        "format",
                        "int-or-string",
                        "oneOf",
                        List.of(node("type", "integer"), node("type", "string"))));
        p.put(
                FIELDS_V1,
                node(
                        "description",
                        "FieldsV1 stores a set of fields in a data structure like a Trie, in JSON format.\n\nEach key is"
                                + " either a '.' representing the field itself, and will always map to an empty set, or"
                                + " a string representing a sub-field or item. The string will follow one of these four"
                                + " formats: 'f:<name>', where <name> is the name of a field in a struct, or key in a"
                                + " map 'v:<value>', where <value> is the exact json formatted value of a list item"
                                + " 'i:<index>', where <index> is position of a item in a list 'k:<keys>', where <keys>"
                                + " is a map of  a list item's key fields to their unique values If a key maps to an"
                                + " empty Fields value, the field that key represents is part of the set.\n\nThe exact"
                                + " format is defined in sigs.k8s.io/structured-merge-diff",
                        "type",
                        "object"));
        p.put(
                JSON_PKG + ".CustomResourceSubresourceStatus",
                node(
                        "description",
                        "CustomResourceSubresourceStatus defines how to serve the status subresource for"
                                + " CustomResources. Status is represented by the `.status` JSON path inside of a"
                                + " CustomResource. When set, * exposes a /status subresource for the custom resource *"
                                + " PUT requests to the /status subresource take a custom resource object, and ignore"
                                + " changes to anything except the status stanza * PATCH requests to the /status"
                                + " subresource take a custom resource object, and ignore changes to anything except the"
                                + " status stanza",
                        "type",
                        "object"));
        p.put(
                JSON_PKG + ".JSON",
                node(
                        "description",
                        "JSON represents any valid JSON value. These types are supported: bool, int64, float64, string,"
                                + " []interface{}, map[string]interface{} and nil."));
        p.put(
                JSON_PKG + ".JSONSchemaPropsOrArray",
                node(
                        "description",
                        "JSONSchemaPropsOrArray represents a value that can either be a JSONSchemaProps or an array of"
                                + " JSONSchemaProps. Mainly here for serialization purposes."));
        p.put(
                JSON_PKG + ".JSONSchemaPropsOrBool",
                node(
                        "description",
                        "JSONSchemaPropsOrBool represents JSONSchemaProps or a boolean value. Defaults to true for the"
                                + " boolean property."));
        p.put(
                JSON_PKG + ".JSONSchemaPropsOrStringArray",
                node("description", "JSONSchemaPropsOrStringArray represents a JSONSchemaProps or a string array."));
        return p;
    }

    private static final Pattern CLASS_NAME = Pattern.compile("([A-Z][a-z]+)?(V\\d+(?:(?:alpha|beta)\\d+)?)([A-Z].*)");

    private final Map<Class<?>, String> names = new HashMap<>();
    private final Set<Class<?>> core = new HashSet<>();
    private final Map<String, Map<String, Object>> schemas = new TreeMap<>();
    private final Map<String, List<GroupVersionKind>> kinds = new HashMap<>();
    private final Set<String> unknownObjects = new TreeSet<>();

    /** The kinds to generate: every built-in kind of the registry and {@link #PLANNED}. */
    static List<GroupVersionKind> kinds() {
        Set<GroupVersionKind> all = new LinkedHashSet<>();
        for (ResourceType t : ResourceRegistry.builtIn().types()) {
            all.add(new GroupVersionKind(t.group(), t.version(), t.kind()));
        }
        all.addAll(PLANNED);
        return List.copyOf(all);
    }

    /** The document {@code {"components":{"schemas":{...}}}} with keys in order, as a tree of maps and lists. */
    static Map<String, Object> generate() {
        return new OpenApiSchemaGenerator().run(kinds());
    }

    private Map<String, Object> run(List<GroupVersionKind> gvks) {
        for (String k : CORE_KINDS) {
            reach(model(k), core);
        }
        Deque<Class<?>> work = new ArrayDeque<>();
        for (GroupVersionKind gvk : gvks) {
            Class<?> c = kindClass(gvk);
            String name = goPackage(gvk.group()) + "." + gvk.version() + "." + gvk.kind();
            assign(c, name);
            kinds.computeIfAbsent(name, k -> new ArrayList<>()).add(gvk);
            work.add(c);
        }
        Set<Class<?>> done = new HashSet<>();
        while (!work.isEmpty()) {
            Class<?> c = work.poll();
            if (done.add(c)) {
                schemas.put(names.get(c), schema(c, work));
            }
        }
        if (!unknownObjects.isEmpty()) {
            throw new IllegalStateException(unknownObjects + " are Object in the models: add them to OBJECT_FIELDS");
        }
        Map<String, Map<String, Object>> prims = primitives();
        Set<String> referenced = new TreeSet<>();
        collectRefs(schemas, referenced);
        for (String ref : referenced) {
            if (!schemas.containsKey(ref)) {
                Map<String, Object> p = prims.get(ref);
                if (p == null) {
                    throw new IllegalStateException("no schema for " + ref);
                }
                schemas.put(ref, p);
            }
        }
        Map<String, Object> components = new TreeMap<>();
        components.put("schemas", schemas);
        Map<String, Object> doc = new TreeMap<>();
        doc.put("components", components);
        return doc;
    }

    /** The Java model class of a kind: {@code V1Pod}, or with its group when client-java disambiguates. */
    private static Class<?> kindClass(GroupVersionKind gvk) {
        String version = capitalize(gvk.version());
        String group = gvk.group().isEmpty() ? "core" : gvk.group().split("\\.")[0];
        for (String candidate : List.of(capitalize(group) + version + gvk.kind(), version + gvk.kind())) {
            try {
                return Class.forName(MODELS + candidate);
            } catch (ClassNotFoundException e) {
                // try the next spelling
            }
        }
        throw new IllegalStateException("no client-java model class for " + gvk);
    }

    private static Class<?> model(String simpleName) {
        try {
            return Class.forName(MODELS + simpleName);
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException("no client-java model class " + simpleName, e);
        }
    }

    /** The Go package of a group's types, as kube-openapi names components. */
    static String goPackage(String group) {
        if (group.isEmpty()) {
            return "io.k8s.api.core";
        }
        if (group.equals("apiextensions.k8s.io")) {
            return "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions";
        }
        return "io.k8s.api." + group.split("\\.")[0];
    }

    private void reach(Class<?> c, Set<Class<?>> into) {
        if (!isModel(c) || !into.add(c)) {
            return;
        }
        for (Field f : fields(c)) {
            for (Class<?> m : modelsIn(f.getGenericType())) {
                reach(m, into);
            }
        }
    }

    private void assign(Class<?> c, String name) {
        String old = names.putIfAbsent(c, name);
        if (old != null && !old.equals(name)) {
            throw new IllegalStateException(c.getSimpleName() + " named both " + old + " and " + name);
        }
        for (Map.Entry<Class<?>, String> e : names.entrySet()) {
            if (e.getValue().equals(name) && e.getKey() != c) {
                throw new IllegalStateException(
                        name + " is both " + e.getKey().getSimpleName() + " and " + c.getSimpleName());
            }
        }
    }

    /** The component name of a model class reached from the component {@code from}. */
    private String nameOf(Class<?> c, String from) {
        String derived = derivedName(c, from);
        String known = names.get(c);
        if (known != null && !known.equals(derived)) {
            throw new IllegalStateException(c.getSimpleName() + " named both " + known + " and " + derived);
        }
        assign(c, derived);
        return derived;
    }

    private String derivedName(Class<?> c, String from) {
        Matcher m = CLASS_NAME.matcher(c.getSimpleName());
        if (!m.matches()) {
            throw new IllegalStateException("unexpected model class name " + c.getSimpleName());
        }
        String version = m.group(2).toLowerCase(Locale.ROOT);
        String type = m.group(3);
        String pkg;
        if (m.group(1) != null) {
            String g = m.group(1).toLowerCase(Locale.ROOT);
            pkg = goPackage(g.equals("core") ? "" : g.equals("apiextensions") ? "apiextensions.k8s.io" : g);
        } else if (META.contains(type)) {
            return META_PKG + "." + type;
        } else if (core.contains(c) || CORE_EXTRA.contains(type)) {
            pkg = "io.k8s.api.core";
        } else {
            pkg = from.substring(0, from.lastIndexOf('.', from.lastIndexOf('.') - 1));
        }
        return pkg + "." + version + "." + type;
    }

    private Map<String, Object> schema(Class<?> c, Deque<Class<?>> work) {
        String name = names.get(c);
        Map<String, Object> s = new TreeMap<>();
        ApiModel model = c.getAnnotation(ApiModel.class);
        if (model != null && !model.description().isEmpty()) {
            s.put("description", model.description());
        }
        Map<String, ApiModelProperty> docs = new HashMap<>();
        for (Method m : c.getDeclaredMethods()) {
            ApiModelProperty p = m.getAnnotation(ApiModelProperty.class);
            if (p != null && m.getParameterCount() == 0) {
                docs.put(normalize(m.getName().replaceFirst("^(get|is)", "")), p);
            }
        }
        Map<String, Object> properties = new TreeMap<>();
        List<String> required = new ArrayList<>();
        for (Field f : fields(c)) {
            String json = f.getAnnotation(SerializedName.class).value();
            ApiModelProperty doc = docs.get(normalize(f.getName()));
            boolean isRequired = doc != null && doc.required();
            if (isRequired) {
                required.add(json);
            }
            String description = doc == null ? "" : doc.value();
            properties.put(json, property(name + "." + json, f.getGenericType(), description, isRequired, json, work));
        }
        if (!properties.isEmpty()) {
            s.put("properties", properties);
        }
        if (!required.isEmpty()) {
            s.put("required", required);
        }
        s.put("type", "object");
        List<GroupVersionKind> gvks = kinds.get(name);
        if (gvks != null) {
            List<Object> list = new ArrayList<>();
            for (GroupVersionKind gvk : gvks) {
                list.add(node("group", gvk.group(), "kind", gvk.kind(), "version", gvk.version()));
            }
            s.put("x-kubernetes-group-version-kind", list);
        }
        return s;
    }

    /** A field's schema: description beside the type, a reference wrapped in allOf as kube's v3 documents do. */
    private Map<String, Object> property(
            String path, Type type, String description, boolean required, String json, Deque<Class<?>> work) {
        Map<String, Object> s = new TreeMap<>();
        String ref = refOf(path, type, work);
        if (ref != null) {
            s.put("allOf", List.of(node("$ref", "#/components/schemas/" + ref)));
            // Go value (non-pointer) struct fields default to {}: the required ones and an object's parts
            if (isStruct(type)
                    && (required
                            || Set.of("metadata", "spec", "status", "template").contains(json))) {
                s.put("default", Map.of());
            }
        } else {
            s.putAll(inline(path, type, work));
            if (required && zero(type) != null) {
                s.put("default", zero(type));
            }
        }
        if (!description.isEmpty()) {
            s.put("description", description);
        }
        return s;
    }

    /** The schema of a list item or map value. */
    private Map<String, Object> element(String path, Type type, Deque<Class<?>> work) {
        String ref = refOf(path, type, work);
        if (ref != null) {
            if (isStruct(type)) {
                return node("allOf", List.of(node("$ref", "#/components/schemas/" + ref)), "default", Map.of());
            }
            return node("$ref", "#/components/schemas/" + ref);
        }
        Map<String, Object> s = new TreeMap<>(inline(path, type, work));
        if (zero(type) != null) {
            s.put("default", zero(type));
        }
        return s;
    }

    private Map<String, Object> inline(String path, Type type, Deque<Class<?>> work) {
        if (type instanceof ParameterizedType p) {
            Class<?> raw = (Class<?>) p.getRawType();
            Type[] args = p.getActualTypeArguments();
            if (List.class.isAssignableFrom(raw)) {
                return node("items", element(path, args[0], work), "type", "array");
            }
            if (Map.class.isAssignableFrom(raw)) {
                if (args[0] != String.class) {
                    throw new IllegalStateException(path + ": map key " + args[0]);
                }
                return node("additionalProperties", element(path, args[1], work), "type", "object");
            }
            throw new IllegalStateException(path + ": unexpected type " + type);
        }
        if (type == String.class) {
            return node("type", "string");
        }
        if (type == Integer.class) {
            return node("format", "int32", "type", "integer");
        }
        if (type == Long.class) {
            return node("format", "int64", "type", "integer");
        }
        if (type == Boolean.class) {
            return node("type", "boolean");
        }
        if (type == Double.class) {
            return node("format", "double", "type", "number");
        }
        if (type == byte[].class) {
            return node("format", "byte", "type", "string");
        }
        throw new IllegalStateException(path + ": unexpected type " + type);
    }

    /** The component a type refers to, or null for an inline type; queues a model class for generation. */
    private String refOf(String path, Type type, Deque<Class<?>> work) {
        if (!(type instanceof Class<?> c)) {
            return null;
        }
        if (c == OffsetDateTime.class) {
            return MICRO_TIME_FIELDS.contains(path) ? MICRO_TIME : TIME;
        }
        if (c.getName().equals("io.kubernetes.client.custom.Quantity")) {
            return QUANTITY;
        }
        if (c.getName().equals("io.kubernetes.client.custom.IntOrString")) {
            return INT_OR_STRING;
        }
        if (c == Object.class) {
            String target = OBJECT_FIELDS.get(path);
            if (target == null) {
                unknownObjects.add(path);
                return FIELDS_V1;
            }
            return target;
        }
        if (isModel(c)) {
            String from = path.substring(0, path.lastIndexOf('.'));
            String name = nameOf(c, from);
            work.add(c);
            return name;
        }
        return null;
    }

    private static boolean isStruct(Type type) {
        return type instanceof Class<?> c && isModel(c);
    }

    private static Object zero(Type type) {
        if (type == String.class) {
            return "";
        }
        if (type == Integer.class || type == Long.class) {
            return 0;
        }
        if (type == Boolean.class) {
            return false;
        }
        if (type == Double.class) {
            return 0.0;
        }
        return null;
    }

    private static boolean isModel(Class<?> c) {
        return c.getName().startsWith(MODELS);
    }

    private static List<Class<?>> modelsIn(Type type) {
        List<Class<?>> out = new ArrayList<>();
        if (type instanceof Class<?> c && isModel(c)) {
            out.add(c);
        } else if (type instanceof ParameterizedType p) {
            for (Type a : p.getActualTypeArguments()) {
                out.addAll(modelsIn(a));
            }
        }
        return out;
    }

    private static List<Field> fields(Class<?> c) {
        List<Field> out = new ArrayList<>();
        for (Field f : c.getDeclaredFields()) {
            if (!Modifier.isStatic(f.getModifiers()) && f.isAnnotationPresent(SerializedName.class)) {
                out.add(f);
            }
        }
        return out;
    }

    private static void collectRefs(Object node, Set<String> into) {
        if (node instanceof Map<?, ?> m) {
            for (Map.Entry<?, ?> e : m.entrySet()) {
                // a string $ref is a reference; JSONSchemaProps also has a property named $ref
                if (e.getKey().equals("$ref") && e.getValue() instanceof String ref) {
                    into.add(ref.substring("#/components/schemas/".length()));
                } else {
                    collectRefs(e.getValue(), into);
                }
            }
        } else if (node instanceof List<?> l) {
            for (Object o : l) {
                collectRefs(o, into);
            }
        }
    }

    private static String normalize(String javaName) {
        return javaName.replaceAll("[^A-Za-z0-9]", "").toLowerCase(Locale.ROOT);
    }

    private static String capitalize(String s) {
        return s.isEmpty() ? s : Character.toUpperCase(s.charAt(0)) + s.substring(1);
    }

    /** A map of alternating keys and values, keys sorted as Go's encoding/json writes them. */
    private static Map<String, Object> node(Object... kv) {
        Map<String, Object> m = new TreeMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], kv[i + 1]);
        }
        return m;
    }
}
