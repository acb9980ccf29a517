package io.kubeloop.model.selector;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;
import tools.jackson.databind.JsonNode;

/**
 * Which fields a resource can be selected by, and their values: kube-apiserver's field label conversion
 * functions and {@code ToSelectableFields} functions (1.32 line), for objects held as JSON trees.
 *
 * <p>A server handles {@code fieldSelector=} in two steps: {@link #convert(String, String, FieldSelector)}
 * rejects fields the resource does not support, with kube-apiserver's message, and rewrites legacy names
 * ({@code spec.host} becomes {@code spec.nodeName}); then, for each object,
 * {@code selector.matches(f -> SelectableFields.valueOf(plural, group, object, f))}.
 *
 * <h2>Supported fields</h2>
 * Every resource supports {@code metadata.name}, and {@code metadata.namespace} unless its conversion says
 * otherwise. Besides:
 * <table>
 *   <caption>Built-in resources with their own field label conversion</caption>
 *   <tr><th>resource (group)</th><th>fields</th><th>message for another field</th></tr>
 *   <tr><td>pods</td><td>{@code spec.nodeName} (alias {@code spec.host}), {@code spec.restartPolicy},
 *       {@code spec.schedulerName}, {@code spec.serviceAccountName}, {@code spec.hostNetwork},
 *       {@code status.phase}, {@code status.podIP}, {@code status.podIPs} (accepted, always empty),
 *       {@code status.nominatedNodeName}</td><td>{@code field label not supported: f}</td></tr>
 *   <tr><td>events</td><td>{@code involvedObject.}{@code kind|namespace|name|uid|apiVersion|resourceVersion|fieldPath},
 *       {@code reason}, {@code reportingComponent}, {@code source}, {@code type}</td><td>same</td></tr>
 *   <tr><td>events (events.k8s.io)</td><td>{@code regarding.}{@code kind|namespace|name|uid|apiVersion|resourceVersion|fieldPath},
 *       {@code reason}, {@code reportingController}, {@code source}, {@code type}; converted to the core
 *       names above</td><td>same</td></tr>
 *   <tr><td>services</td><td>{@code spec.clusterIP}, {@code spec.type}</td><td>same</td></tr>
 *   <tr><td>secrets</td><td>{@code type}</td><td>same</td></tr>
 *   <tr><td>namespaces</td><td>{@code status.phase}; no {@code metadata.namespace}</td><td>same</td></tr>
 *   <tr><td>nodes</td><td>{@code spec.unschedulable}; no {@code metadata.namespace}</td><td>same</td></tr>
 *   <tr><td>replicationcontrollers</td><td>{@code status.replicas}</td><td>same</td></tr>
 *   <tr><td>certificatesigningrequests (certificates.k8s.io)</td><td>{@code spec.signerName}; no
 *       {@code metadata.namespace}</td><td>same</td></tr>
 *   <tr><td>jobs (batch)</td><td>{@code status.successful} (the count {@code status.succeeded})</td>
 *       <td>{@code field label "f" not supported for batchv1.Job}</td></tr>
 * </table>
 * Any other built-in resource — including apps/v1 {@code replicasets}, whose {@code status.replicas} the
 * 1.32 server rejects although its registry computes it (kubernetes/kubernetes#135136) — accepts only the
 * two metadata fields and says {@code "f" is not a known field selector: only "metadata.name", "metadata.namespace"}.
 * Custom resources use the overloads that take the CRD's scope and {@code selectableFields}; they say
 * {@code field label not supported: f}.
 *
 * <h2>Values</h2>
 * Values are read from the object as served in the given group (an events.k8s.io Event has
 * {@code regarding}, a core Event {@code involvedObject}). Absent strings are {@code ""}; booleans are
 * {@code "true"}/{@code "false"} and default to {@code "false"} ({@code spec.hostNetwork},
 * {@code spec.unschedulable}); counts are decimal and default to {@code "0"} ({@code status.replicas},
 * {@code status.successful}). {@code status.podIP} is the first of {@code status.podIPs}, else
 * {@code status.podIP}; an Event's {@code source} is {@code source.component}, else its reporting controller.
 */
public final class SelectableFields {

    private SelectableFields() {}

    private static final String NAME = "metadata.name";
    private static final String NAMESPACE = "metadata.namespace";

    private static final Function<String, String> NOT_SUPPORTED = f -> "field label not supported: " + f;
    private static final Function<String, String> NOT_KNOWN =
            f -> GoFormat.quote(f) + " is not a known field selector: only \"metadata.name\", \"metadata.namespace\"";
    private static final Function<String, String> NOT_SUPPORTED_FOR_JOB =
            f -> "field label " + GoFormat.quote(f) + " not supported for batchv1.Job";

    /**
     * One resource's rules.
     *
     * @param labels the field labels its conversion accepts, each mapped to the field it stands for
     * @param unsupported the message for any other label
     * @param fields its selectable fields (by converted name) and how to read each from the JSON object
     */
    private record Rules(
            Map<String, String> labels,
            Function<String, String> unsupported,
            Map<String, Function<JsonNode, String>> fields) {}

    private static final Rules DEFAULT = new Rules(
            Map.of(NAME, NAME, NAMESPACE, NAMESPACE),
            NOT_KNOWN,
            metadataFields(true).build());

    private static final Map<String, Rules> BUILT_IN = builtIn();

    private static Map<String, Rules> builtIn() {
        Map<String, Rules> rules = new HashMap<>();

        Fields pods = metadataFields(true)
                .text("spec.nodeName")
                .text("spec.restartPolicy")
                .text("spec.schedulerName")
                .add("spec.serviceAccountName", o -> {
                    // v1's deprecated spec.serviceAccount stands in when spec.serviceAccountName is empty.
                    String name = text(o, "spec.serviceAccountName");
                    return name.isEmpty() ? text(o, "spec.serviceAccount") : name;
                })
                .bool("spec.hostNetwork")
                .text("status.phase")
                .add("status.podIP", o -> {
                    JsonNode ips = at(o, "status.podIPs");
                    if (ips.isArray() && !ips.isEmpty()) {
                        return text(ips.get(0), "ip");
                    }
                    return text(o, "status.podIP");
                })
                .text("status.nominatedNodeName");
        Map<String, String> podLabels = identity(pods.names(), "status.podIPs");
        podLabels.put("spec.host", "spec.nodeName");
        rules.put(key("", "pods"), new Rules(podLabels, NOT_SUPPORTED, pods.build()));

        String[] involved = {"kind", "namespace", "name", "uid", "apiVersion", "resourceVersion", "fieldPath"};
        Fields coreEvents = metadataFields(true);
        Fields eventsV1 = metadataFields(true);
        Map<String, String> eventsV1Labels = new LinkedHashMap<>(identity(List.of(NAME, NAMESPACE)));
        for (String f : involved) {
            coreEvents.text("involvedObject." + f);
            eventsV1.add("involvedObject." + f, o -> text(o, "regarding." + f));
            eventsV1Labels.put("regarding." + f, "involvedObject." + f);
        }
        coreEvents
                .text("reason")
                .text("reportingComponent")
                .add("source", o -> firstNonEmpty(text(o, "source.component"), text(o, "reportingComponent")))
                .text("type");
        eventsV1.text("reason")
                .add("reportingComponent", o -> text(o, "reportingController"))
                .add(
                        "source",
                        o -> firstNonEmpty(text(o, "deprecatedSource.component"), text(o, "reportingController")))
                .text("type");
        eventsV1Labels.put("reason", "reason");
        eventsV1Labels.put("reportingController", "reportingComponent");
        eventsV1Labels.put("source", "source");
        eventsV1Labels.put("type", "type");
        rules.put(key("", "events"), new Rules(identity(coreEvents.names()), NOT_SUPPORTED, coreEvents.build()));
        rules.put(key("events.k8s.io", "events"), new Rules(eventsV1Labels, NOT_SUPPORTED, eventsV1.build()));

        Fields services = metadataFields(true).text("spec.clusterIP").text("spec.type");
        rules.put(key("", "services"), new Rules(identity(services.names()), NOT_SUPPORTED, services.build()));

        Fields secrets = metadataFields(true).text("type");
        rules.put(key("", "secrets"), new Rules(identity(secrets.names()), NOT_SUPPORTED, secrets.build()));

        Fields namespaces = metadataFields(false).text("status.phase");
        rules.put(key("", "namespaces"), new Rules(identity(namespaces.names()), NOT_SUPPORTED, namespaces.build()));

        Fields nodes = metadataFields(false).bool("spec.unschedulable");
        rules.put(key("", "nodes"), new Rules(identity(nodes.names()), NOT_SUPPORTED, nodes.build()));

        Fields controllers = metadataFields(true).integer("status.replicas");
        rules.put(
                key("", "replicationcontrollers"),
                new Rules(identity(controllers.names()), NOT_SUPPORTED, controllers.build()));

        // apps/v1 registers no conversion for ReplicaSet: only the metadata fields get through.
        Fields replicaSets = metadataFields(true).integer("status.replicas");
        rules.put(key("apps", "replicasets"), new Rules(DEFAULT.labels(), NOT_KNOWN, replicaSets.build()));

        Fields jobs = metadataFields(true).add("status.successful", o -> integer(o, "status.succeeded"));
        rules.put(key("batch", "jobs"), new Rules(identity(jobs.names()), NOT_SUPPORTED_FOR_JOB, jobs.build()));

        Fields csrs = metadataFields(false).text("spec.signerName");
        rules.put(
                key("certificates.k8s.io", "certificatesigningrequests"),
                new Rules(identity(csrs.names()), NOT_SUPPORTED, csrs.build()));

        return Map.copyOf(rules);
    }

    // ------------------------------------------------------------------------------------------------
    // Built-in resources

    /**
     * Checks {@code selector}'s fields against what kube-apiserver accepts for a built-in resource and
     * rewrites them to the names {@link #valueOf(String, String, JsonNode, String)} reads (the scheme's
     * {@code ConvertFieldLabel}, applied as {@code Selector.Transform} applies it).
     *
     * @param resourcePlural e.g. {@code pods}
     * @param group the API group, {@code ""} for the core group
     * @throws SelectorParseException for the first unsupported field in canonical order, e.g.
     *     {@code field label not supported: spec.foo}
     */
    public static FieldSelector convert(String resourcePlural, String group, FieldSelector selector) {
        Rules rules = rules(resourcePlural, group);
        return convert(rules.labels(), rules.unsupported(), selector);
    }

    /**
     * Throws what kube-apiserver answers (as a 400 BadRequest) when {@code selector} uses a field that a
     * built-in resource does not support; see {@link #convert(String, String, FieldSelector)}.
     *
     * @throws SelectorParseException e.g. {@code field label not supported: spec.foo}
     */
    public static void validate(String resourcePlural, String group, FieldSelector selector) {
        convert(resourcePlural, group, selector);
    }

    /**
     * The value of a selectable field of a built-in resource's object, as kube-apiserver computes it for
     * matching. Accepts the field's converted name or an alias ({@code spec.host}, {@code regarding.kind}).
     *
     * @param object the object as JSON, in the form the group serves it
     * @return the value ({@code ""} when the object lacks it), or {@code null} when the resource has no such
     *     selectable field (both compare as {@code ""})
     */
    public static String valueOf(String resourcePlural, String group, JsonNode object, String field) {
        Objects.requireNonNull(object, "object");
        Rules rules = rules(resourcePlural, group);
        Function<JsonNode, String> reader = rules.fields().get(rules.labels().getOrDefault(field, field));
        return reader == null ? null : reader.apply(object);
    }

    // ------------------------------------------------------------------------------------------------
    // Custom resources

    /**
     * Checks {@code selector}'s fields against what kube-apiserver accepts for a custom resource: its CRD's
     * {@code selectableFields}, {@code metadata.name}, and {@code metadata.namespace} when namespaced.
     *
     * @param selectableFields the CRD version's {@code selectableFields[].jsonPath}, with or without the
     *     leading dot ({@code .spec.color} and {@code spec.color} both select by {@code spec.color})
     * @throws SelectorParseException e.g. {@code field label not supported: spec.size}
     */
    public static FieldSelector convert(boolean namespaced, Set<String> selectableFields, FieldSelector selector) {
        Map<String, String> labels = new HashMap<>();
        labels.put(NAME, NAME);
        if (namespaced) {
            labels.put(NAMESPACE, NAMESPACE);
        }
        for (String path : selectableFields) {
            String field = stripDot(path);
            labels.put(field, field);
        }
        return convert(labels, NOT_SUPPORTED, selector);
    }

    /**
     * Throws what kube-apiserver answers when {@code selector} uses a field a custom resource does not
     * support; see {@link #convert(boolean, Set, FieldSelector)}.
     */
    public static void validate(boolean namespaced, Set<String> selectableFields, FieldSelector selector) {
        convert(namespaced, selectableFields, selector);
    }

    /**
     * The value at a simple dotted path ({@code spec.color}, a leading dot allowed) of a JSON object, as
     * kube-apiserver reads a custom resource's selectable field: a string as is, an integer in decimal, a
     * boolean as {@code true}/{@code false}.
     *
     * @return the value, or {@code null} when the path is absent, null, or not a scalar
     */
    public static String valueOf(JsonNode object, String fieldPath) {
        Objects.requireNonNull(object, "object");
        return scalar(at(object, stripDot(fieldPath)));
    }

    // ------------------------------------------------------------------------------------------------

    private static FieldSelector convert(
            Map<String, String> labels, Function<String, String> unsupported, FieldSelector selector) {
        Objects.requireNonNull(selector, "selector");
        List<FieldSelector.Requirement> converted =
                new ArrayList<>(selector.requirements().size());
        boolean changed = false;
        for (FieldSelector.Requirement r : selector.requirements()) {
            String field = labels.get(r.field());
            if (field == null) {
                throw new SelectorParseException(unsupported.apply(r.field()));
            }
            if (field.equals(r.field())) {
                converted.add(r);
            } else {
                converted.add(new FieldSelector.Requirement(field, r.operator(), r.value()));
                changed = true;
            }
        }
        return changed ? FieldSelector.of(converted) : selector;
    }

    private static Rules rules(String resourcePlural, String group) {
        Objects.requireNonNull(resourcePlural, "resourcePlural");
        return BUILT_IN.getOrDefault(key(group == null ? "" : group, resourcePlural), DEFAULT);
    }

    private static String key(String group, String resource) {
        return group + "/" + resource;
    }

    private static String stripDot(String path) {
        return path.startsWith(".") ? path.substring(1) : path;
    }

    private static Map<String, String> identity(List<String> names, String... more) {
        Map<String, String> labels = new LinkedHashMap<>();
        names.forEach(n -> labels.put(n, n));
        for (String n : more) {
            labels.put(n, n);
        }
        return labels;
    }

    private static Fields metadataFields(boolean namespaced) {
        Fields fields = new Fields().text(NAME);
        return namespaced ? fields.text(NAMESPACE) : fields;
    }

    /** A small builder of field readers, in declaration order. */
    private static final class Fields {
        private final Map<String, Function<JsonNode, String>> readers = new LinkedHashMap<>();

        Fields add(String field, Function<JsonNode, String> reader) {
            readers.put(field, reader);
            return this;
        }

        Fields text(String field) {
            return add(field, o -> SelectableFields.text(o, field));
        }

        Fields bool(String field) {
            return add(field, o -> {
                JsonNode n = at(o, field);
                return Boolean.toString(n.isBoolean() && n.booleanValue());
            });
        }

        Fields integer(String field) {
            return add(field, o -> SelectableFields.integer(o, field));
        }

        List<String> names() {
            return List.copyOf(readers.keySet());
        }

        Map<String, Function<JsonNode, String>> build() {
            return Map.copyOf(readers);
        }
    }

    private static JsonNode at(JsonNode node, String dottedPath) {
        JsonNode n = node;
        int start = 0;
        while (n != null && !n.isMissingNode()) {
            int dot = dottedPath.indexOf('.', start);
            String segment = dot < 0 ? dottedPath.substring(start) : dottedPath.substring(start, dot);
            n = n.path(segment);
            if (dot < 0) {
                break;
            }
            start = dot + 1;
        }
        return n;
    }

    /** A scalar as kube-apiserver turns it into a field value; null for absent, null or structured values. */
    private static String scalar(JsonNode n) {
        if (n == null || n.isMissingNode() || n.isNull() || n.isContainer()) {
            return null;
        }
        if (n.isString()) {
            return n.stringValue();
        }
        if (n.isBoolean()) {
            return Boolean.toString(n.booleanValue());
        }
        if (n.isIntegralNumber()) {
            return n.bigIntegerValue().toString();
        }
        return n.asString();
    }

    private static String text(JsonNode object, String path) {
        String value = scalar(at(object, path));
        return value == null ? "" : value;
    }

    private static String integer(JsonNode object, String path) {
        JsonNode n = at(object, path);
        return n.isIntegralNumber() ? n.bigIntegerValue().toString() : "0";
    }

    private static String firstNonEmpty(String a, String b) {
        return a.isEmpty() ? b : a;
    }
}
