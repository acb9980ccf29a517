package io.kubeloop.apiserver.internal.crd;

import io.kubeloop.apiserver.internal.table.PrinterColumn;
import io.kubeloop.model.GroupVersionKind;
import io.kubeloop.model.ResourceType;
import io.kubeloop.model.Statuses.FieldError;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A CustomResourceDefinition's spec, read and checked as kube-apiserver's CRD validation does; {@link #parse}
 * collects every problem as a field error in kube's wording.
 *
 * @param versions every version, served or not, in kube's version priority order (v2, v1, v1beta1, ...)
 */
record Definition(String name, String group, Names names, boolean namespaced, List<Version> versions) {

    /** The names of a CRD, with kube's defaults applied (singular = lowercased kind, listKind = kind + List). */
    record Names(
            String plural,
            String singular,
            String kind,
            String listKind,
            List<String> shortNames,
            List<String> categories) {}

    /** One entry of {@code spec.versions}. */
    record Version(
            String name,
            boolean served,
            boolean storage,
            StructuralSchema schema,
            boolean status,
            ScaleSubresource scale,
            List<PrinterColumn> columns) {}

    private static final Pattern DNS1123_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
    private static final Pattern KUBE_VERSION = Pattern.compile("v(\\d+)(?:(alpha|beta)(\\d+))?");

    /** The storage version's name. */
    String storageVersion() {
        return versions.stream()
                .filter(Version::storage)
                .findFirst()
                .orElseThrow()
                .name();
    }

    /** The served versions as registry types, preferred (highest priority) first. */
    List<ResourceType> servedTypes() {
        List<ResourceType> types = new ArrayList<>();
        for (Version v : versions) {
            if (!v.served()) {
                continue;
            }
            Set<String> subresources = new HashSet<>();
            if (v.status()) {
                subresources.add(ResourceType.STATUS);
            }
            if (v.scale() != null) {
                subresources.add(ResourceType.SCALE);
            }
            types.add(new ResourceType(
                    new GroupVersionKind(group, v.name(), names.kind()),
                    names.plural(),
                    names.singular(),
                    namespaced,
                    names.shortNames(),
                    names.categories(),
                    ResourceType.ALL_VERBS,
                    subresources,
                    names.listKind()));
        }
        return types;
    }

    /** Reads {@code crd}; returns null and fills {@code errors} when it is not valid. */
    static Definition parse(ObjectNode crd, List<FieldError> errors) {
        String name = crd.path("metadata").path("name").asString("");
        JsonNode spec = crd.path("spec");
        String group = spec.path("group").asString("");
        if (group.isEmpty()) {
            errors.add(new FieldError("Required value", "spec.group", ""));
        } else if (!group.contains(".")) {
            errors.add(new FieldError(
                    "Invalid value",
                    "spec.group",
                    StructuralSchema.quote(group) + ": should be a domain with at least one dot"));
        }
        JsonNode n = spec.path("names");
        String plural = n.path("plural").asString("");
        String kind = n.path("kind").asString("");
        String singular = n.path("singular").asString("");
        String listKind = n.path("listKind").asString("");
        if (plural.isEmpty()) {
            errors.add(new FieldError("Required value", "spec.names.plural", ""));
        } else if (!DNS1123_LABEL.matcher(plural).matches()) {
            errors.add(new FieldError(
                    "Invalid value",
                    "spec.names.plural",
                    StructuralSchema.quote(plural)
                            + ": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
                            + "must start and end with an alphanumeric character"));
        }
        if (kind.isEmpty()) {
            errors.add(new FieldError("Required value", "spec.names.kind", ""));
        }
        if (!singular.isEmpty() && !DNS1123_LABEL.matcher(singular).matches()) {
            errors.add(
                    new FieldError(
                            "Invalid value",
                            "spec.names.singular",
                            StructuralSchema.quote(singular)
                                    + ": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-'"));
        }
        if (!plural.isEmpty() && !group.isEmpty() && !name.equals(plural + "." + group)) {
            errors.add(new FieldError(
                    "Invalid value",
                    "metadata.name",
                    StructuralSchema.quote(name) + ": must be spec.names.plural+\".\"+spec.group"));
        }
        String scope = spec.path("scope").asString("");
        if (scope.isEmpty()) {
            errors.add(new FieldError("Required value", "spec.scope", ""));
        } else if (!scope.equals("Namespaced") && !scope.equals("Cluster")) {
            errors.add(new FieldError(
                    "Unsupported value",
                    "spec.scope",
                    StructuralSchema.quote(scope) + ": supported values: \"Cluster\", \"Namespaced\""));
        }
        String strategy = spec.path("conversion").path("strategy").asString("None");
        if (!strategy.equals("None")) {
            errors.add(new FieldError(
                    "Unsupported value",
                    "spec.conversion.strategy",
                    StructuralSchema.quote(strategy)
                            + ": supported values: \"None\" (this server does not call conversion webhooks)"));
        }
        List<Version> versions = new ArrayList<>();
        JsonNode vs = spec.path("versions");
        if (!vs.isArray() || vs.isEmpty()) {
            errors.add(new FieldError("Required value", "spec.versions", "must have at least one version"));
        } else {
            Set<String> seen = new HashSet<>();
            for (int i = 0; i < vs.size(); i++) {
                Version v = version(vs.get(i), "spec.versions[" + i + "]", errors);
                if (v != null && !seen.add(v.name())) {
                    errors.add(new FieldError(
                            "Duplicate value", "spec.versions[" + i + "].name", StructuralSchema.quote(v.name())));
                }
                if (v != null) {
                    versions.add(v);
                }
            }
            List<String> listed = versions.stream().map(Version::name).toList();
            long storage = versions.stream().filter(Version::storage).count();
            if (storage != 1) {
                errors.add(new FieldError(
                        "Invalid value",
                        "spec.versions",
                        listed + ": must have exactly one version marked as storage version"));
            }
            if (versions.stream().noneMatch(Version::served)) {
                errors.add(new FieldError(
                        "Invalid value", "spec.versions", listed + ": must have at least one served version"));
            }
        }
        if (!errors.isEmpty()) {
            return null;
        }
        versions.sort(Comparator.comparing(Version::name, Definition::compareVersions));
        return new Definition(
                name,
                group,
                new Names(
                        plural,
                        singular.isEmpty() ? kind.toLowerCase(Locale.ROOT) : singular,
                        kind,
                        listKind.isEmpty() ? kind + "List" : listKind,
                        strings(n.path("shortNames")),
                        strings(n.path("categories"))),
                scope.equals("Namespaced"),
                List.copyOf(versions));
    }

    private static Version version(JsonNode v, String path, List<FieldError> errors) {
        String name = v.path("name").asString("");
        if (name.isEmpty()) {
            errors.add(new FieldError("Required value", path + ".name", ""));
            return null;
        }
        if (!DNS1123_LABEL.matcher(name).matches()) {
            errors.add(new FieldError(
                    "Invalid value",
                    path + ".name",
                    StructuralSchema.quote(name)
                            + ": a DNS-1035 label must consist of lower case alphanumeric characters or '-'"));
        }
        JsonNode schema = v.path("schema").get("openAPIV3Schema");
        List<FieldError> schemaErrors = StructuralSchema.structuralErrors(schema, path + ".schema.openAPIV3Schema");
        errors.addAll(schemaErrors);
        JsonNode subresources = v.path("subresources");
        ScaleSubresource scale = null;
        JsonNode s = subresources.get("scale");
        if (s != null && !s.isNull()) {
            String spec = s.path("specReplicasPath").asString("");
            String status = s.path("statusReplicasPath").asString("");
            String selector = s.path("labelSelectorPath").asString("");
            checkScalePath(spec, path + ".subresources.scale.specReplicasPath", ".spec", errors);
            checkScalePath(status, path + ".subresources.scale.statusReplicasPath", ".status", errors);
            if (!selector.isEmpty() && !selector.startsWith(".spec.") && !selector.startsWith(".status.")) {
                errors.add(new FieldError(
                        "Invalid value",
                        path + ".subresources.scale.labelSelectorPath",
                        StructuralSchema.quote(selector) + ": should be a json path under either .spec or .status"));
            }
            scale = new ScaleSubresource(spec, status, selector);
        }
        List<PrinterColumn> columns = new ArrayList<>();
        JsonNode cols = v.path("additionalPrinterColumns");
        for (int i = 0; i < cols.size(); i++) {
            JsonNode c = cols.get(i);
            String cp = path + ".additionalPrinterColumns[" + i + "]";
            String colName = c.path("name").asString("");
            String type = c.path("type").asString("");
            String jsonPath = c.path("jsonPath").asString("");
            if (colName.isEmpty()) {
                errors.add(new FieldError("Required value", cp + ".name", ""));
            }
            if (!PrinterColumn.TYPES.contains(type)) {
                errors.add(new FieldError(
                        "Unsupported value",
                        cp + ".type",
                        StructuralSchema.quote(type)
                                + ": supported values: \"boolean\", \"date\", \"integer\", \"number\", \"string\""));
            }
            String why = jsonPath.isEmpty() ? "must not be empty" : PrinterColumn.jsonPathError(jsonPath);
            if (why != null) {
                errors.add(new FieldError(
                        jsonPath.isEmpty() ? "Required value" : "Invalid value",
                        cp + ".jsonPath",
                        jsonPath.isEmpty() ? "" : StructuralSchema.quote(jsonPath) + ": " + why));
            }
            if (errors.isEmpty()) {
                columns.add(new PrinterColumn(
                        colName,
                        type,
                        c.path("format").asString(""),
                        c.path("description").asString(""),
                        c.path("priority").asInt(0),
                        jsonPath));
            }
        }
        return new Version(
                name,
                v.path("served").asBoolean(false),
                v.path("storage").asBoolean(false),
                schemaErrors.isEmpty() ? new StructuralSchema(schema) : null,
                subresources.has("status") && !subresources.get("status").isNull(),
                scale,
                List.copyOf(columns));
    }

    private static void checkScalePath(String value, String path, String under, List<FieldError> errors) {
        if (value.isEmpty()) {
            errors.add(new FieldError("Required value", path, ""));
        } else if (!value.startsWith(under + ".") || value.contains("[")) {
            errors.add(new FieldError(
                    "Invalid value", path, StructuralSchema.quote(value) + ": should be a json path under " + under));
        }
    }

    private static List<String> strings(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(e -> out.add(e.asString()));
        return List.copyOf(out);
    }

    /**
     * kube's version priority: GA before beta before alpha, higher numbers first; versions that do not look
     * like Kubernetes versions last, alphabetically.
     */
    static int compareVersions(String a, String b) {
        long ka = priority(a);
        long kb = priority(b);
        if (ka != kb) {
            return Long.compare(kb, ka);
        }
        return a.compareTo(b);
    }

    private static long priority(String v) {
        Matcher m = KUBE_VERSION.matcher(v);
        if (!m.matches()) {
            return -1;
        }
        long major = Long.parseLong(m.group(1));
        long stability = m.group(2) == null ? 3 : m.group(2).equals("beta") ? 2 : 1;
        long minor = m.group(3) == null ? 0 : Long.parseLong(m.group(3));
        return stability * 1_000_000_000_000L + major * 1_000_000L + Math.min(minor, 999_999);
    }
}
