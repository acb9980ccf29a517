package io.kubeloop.apiserver.internal.registry;

import io.kubeloop.model.Statuses.FieldError;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * kube-apiserver's validation of {@code metadata} ({@code apimachinery/pkg/api/validation.ValidateObjectMeta} and
 * core's finalizer rule), and the string formats it is built on (qualified names, label values, RFC 1123 and
 * RFC 1035 names, config keys), with kube 1.32's messages word for word. Every write of every kind runs it, custom
 * resources too, so the checks are hand-written scans over ASCII (no regular expressions, no allocation unless a
 * value is wrong).
 *
 * <p>Each {@code *Errors} method returns kube's messages for one value (empty when valid); callers turn them into
 * {@link FieldError}s at kube's field path, one error per message, as kube does.
 */
public final class ObjectMetaValidation {

    /** kube's limit on the summed length (bytes) of an object's annotation keys and values. */
    public static final int TOTAL_ANNOTATION_SIZE = 256 * 1024;

    private static final int QUALIFIED_NAME_MAX = 63;
    private static final int LABEL_VALUE_MAX = 63;
    private static final int DNS1123_LABEL_MAX = 63;
    private static final int DNS1123_SUBDOMAIN_MAX = 253;
    private static final int DNS1035_LABEL_MAX = 63;
    /** kube's SimpleNameGenerator: 63 characters at most, 5 of them random. */
    private static final int GENERATED_BASE_MAX = 58;

    private static final String QUALIFIED_NAME_MESSAGE = "must consist of alphanumeric characters, '-', '_' or "
            + "'.', and must start and end with an alphanumeric character";
    private static final String QUALIFIED_NAME_FORMAT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
    private static final String LABEL_VALUE_ERROR = regexError(
            "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must "
                    + "start and end with an alphanumeric character",
            "(" + QUALIFIED_NAME_FORMAT + ")?",
            "MyValue",
            "my_value",
            "12345");
    private static final String NAME_PART_ERROR =
            "name part " + regexError(QUALIFIED_NAME_MESSAGE, QUALIFIED_NAME_FORMAT, "MyName", "my.name", "123-abc");
    private static final String QUALIFIED_NAME_SLASHES_ERROR = "a qualified name "
            + regexError(QUALIFIED_NAME_MESSAGE, QUALIFIED_NAME_FORMAT, "MyName", "my.name", "123-abc")
            + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')";
    private static final String DNS1123_LABEL_FORMAT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
    private static final String DNS1123_LABEL_ERROR = regexError(
            "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and "
                    + "end with an alphanumeric character",
            DNS1123_LABEL_FORMAT,
            "my-name",
            "123-abc");
    private static final String DNS1123_SUBDOMAIN_ERROR = regexError(
            "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "
                    + "start and end with an alphanumeric character",
            DNS1123_LABEL_FORMAT + "(\\." + DNS1123_LABEL_FORMAT + ")*",
            "example.com");
    private static final String DNS1035_LABEL_ERROR = regexError(
            "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic "
                    + "character, and end with an alphanumeric character",
            "[a-z]([-a-z0-9]*[a-z0-9])?",
            "my-name",
            "abc-123");
    private static final String CONFIG_KEY_ERROR = regexError(
            "a valid config key must consist of alphanumeric characters, '-', '_' or '.'",
            "[-._a-zA-Z0-9]+",
            "key.name",
            "KEY_NAME",
            "key-name");

    /** kube's finalizers that need no domain prefix ({@code helper.IsStandardFinalizerName}). */
    private static final Set<String> STANDARD_FINALIZERS = Set.of("kubernetes", "orphan", "foregroundDeletion");

    private ObjectMetaValidation() {}

    /** The rule a resource's names follow (kube's {@code ValidateNameFunc} of its strategy). */
    public enum NameRule {
        /** {@code NameIsDNSSubdomain}: most resources, custom resources too. */
        DNS1123_SUBDOMAIN,
        /** {@code ValidateNamespaceName}. */
        DNS1123_LABEL,
        /** {@code ValidateServiceName}. */
        DNS1035_LABEL,
        /** {@code path.IsValidPathSegmentName}: RBAC roles and bindings ({@code system:controller:x}). */
        PATH_SEGMENT;

        /** kube's messages for {@code name}; {@code prefix}: a generateName, whose trailing '-' is allowed. */
        public List<String> errors(String name, boolean prefix) {
            String checked = prefix && name.endsWith("-") ? name.substring(0, name.length() - 1) + "a" : name;
            return switch (this) {
                case DNS1123_SUBDOMAIN -> dns1123SubdomainErrors(checked);
                case DNS1123_LABEL -> dns1123LabelErrors(checked);
                case DNS1035_LABEL -> dns1035LabelErrors(checked);
                case PATH_SEGMENT -> pathSegmentErrors(name, prefix);
            };
        }
    }

    /** The name rule of a resource: kube's strategies' {@code ValidateNameFunc}. */
    public static NameRule nameRule(String group, String plural) {
        if (group.isEmpty()) {
            return switch (plural) {
                case "namespaces" -> NameRule.DNS1123_LABEL;
                case "services" -> NameRule.DNS1035_LABEL;
                default -> NameRule.DNS1123_SUBDOMAIN;
            };
        }
        return group.equals("rbac.authorization.k8s.io") ? NameRule.PATH_SEGMENT : NameRule.DNS1123_SUBDOMAIN;
    }

    /** The base of a generated name: {@code generateName}, cut to leave room for the 5 random characters. */
    public static String generatedNameBase(String generateName) {
        return generateName.length() > GENERATED_BASE_MAX
                ? generateName.substring(0, GENERATED_BASE_MAX)
                : generateName;
    }

    /**
     * The problems of a new object's metadata ({@code ValidateObjectMeta}): name (and generateName), labels,
     * annotations, finalizers, ownerReferences, generation. {@code builtIn}: a built-in kind, whose finalizers without
     * a domain prefix must be kube's standard ones (custom resources only get a warning for those in kube).
     */
    public static List<FieldError> validateCreate(NameRule rule, ObjectNode meta, boolean builtIn) {
        List<FieldError> errors = new ArrayList<>(0);
        String generateName = meta.path("generateName").asString("");
        if (!generateName.isEmpty()) {
            for (String message : rule.errors(generateName, true)) {
                errors.add(invalid("metadata.generateName", generateName, message));
            }
        }
        String name = meta.path("name").asString("");
        if (name.isEmpty()) {
            errors.add(new FieldError("Required value", "metadata.name", "name or generateName is required"));
        } else {
            for (String message : rule.errors(name, false)) {
                errors.add(invalid("metadata.name", name, message));
            }
        }
        JsonNode generation = meta.get("generation");
        if (generation != null && generation.isNumber() && generation.asLong() < 0) {
            errors.add(new FieldError(
                    "Invalid value",
                    "metadata.generation",
                    generation.asLong() + ": must be greater than or equal to 0"));
        }
        validateCommon(meta, builtIn, errors);
        return errors;
    }

    /** The problems of an updated object's own metadata (labels, annotations, finalizers, ownerReferences). */
    public static List<FieldError> validateUpdate(ObjectNode meta, boolean builtIn) {
        List<FieldError> errors = new ArrayList<>(0);
        validateCommon(meta, builtIn, errors);
        return errors;
    }

    private static void validateCommon(ObjectNode meta, boolean builtIn, List<FieldError> errors) {
        if (meta.get("labels") instanceof ObjectNode labels) {
            for (var label : labels.properties()) {
                for (String message : qualifiedNameErrors(label.getKey())) {
                    errors.add(invalid("metadata.labels", label.getKey(), message));
                }
                String value = label.getValue().asString("");
                for (String message : labelValueErrors(value)) {
                    errors.add(invalid("metadata.labels", value, message));
                }
            }
        }
        if (meta.get("annotations") instanceof ObjectNode annotations) {
            long chars = 0;
            for (var annotation : annotations.properties()) {
                String key = annotation.getKey();
                // the rule is a qualified name in which case does not matter
                if (!isQualifiedName(key)) {
                    for (String message : qualifiedNameErrors(key.toLowerCase(Locale.ROOT))) {
                        errors.add(invalid("metadata.annotations", key, message));
                    }
                }
                chars += key.length() + annotation.getValue().asString("").length();
            }
            // a UTF-16 unit is at most 3 UTF-8 bytes: count bytes only when the quick bound is over the limit
            if (chars * 3 > TOTAL_ANNOTATION_SIZE && annotationBytes(annotations) > TOTAL_ANNOTATION_SIZE) {
                errors.add(tooLong("metadata.annotations", TOTAL_ANNOTATION_SIZE));
            }
        }
        if (meta.get("finalizers") instanceof tools.jackson.databind.node.ArrayNode finalizers) {
            boolean orphan = false;
            boolean foreground = false;
            for (int i = 0; i < finalizers.size(); i++) {
                String finalizer = finalizers.get(i).asString("");
                for (String message : qualifiedNameErrors(finalizer)) {
                    errors.add(invalid("metadata.finalizers", finalizer, message));
                }
                if (builtIn) {
                    FieldError standard = kubeFinalizerName(finalizer, "metadata.finalizers[" + i + "]");
                    if (standard != null) {
                        errors.add(standard);
                    }
                }
                orphan |= finalizer.equals("orphan");
                foreground |= finalizer.equals("foregroundDeletion");
            }
            if (orphan && foreground) {
                errors.add(new FieldError(
                        "Invalid value",
                        "metadata.finalizers",
                        goStrings(finalizers) + ": finalizer orphan and foregroundDeletion cannot be both set"));
            }
        }
        if (meta.get("ownerReferences") instanceof tools.jackson.databind.node.ArrayNode owners) {
            for (JsonNode owner : owners) {
                String apiVersion = owner.path("apiVersion").asString("");
                if (apiVersion.isEmpty() || apiVersion.endsWith("/")) {
                    errors.add(invalid("metadata.ownerReferences.apiVersion", apiVersion, "version must not be empty"));
                }
                requireNonEmpty(owner, "kind", errors);
                requireNonEmpty(owner, "name", errors);
                requireNonEmpty(owner, "uid", errors);
            }
        }
    }

    private static void requireNonEmpty(JsonNode owner, String field, List<FieldError> errors) {
        String value = owner.path(field).asString("");
        if (value.isEmpty()) {
            errors.add(invalid("metadata.ownerReferences." + field, value, "must not be empty"));
        }
    }

    /**
     * core's {@code validateKubeFinalizerName}: a finalizer without a domain prefix must be one of kube's own; null
     * when the name is fine.
     */
    public static FieldError kubeFinalizerName(String finalizer, String path) {
        if (finalizer.indexOf('/') < 0 && !STANDARD_FINALIZERS.contains(finalizer)) {
            return invalid(path, finalizer, "name is neither a standard finalizer name nor is it fully qualified");
        }
        return null;
    }

    private static long annotationBytes(ObjectNode annotations) {
        long bytes = 0;
        for (var annotation : annotations.properties()) {
            bytes += utf8Length(annotation.getKey())
                    + utf8Length(annotation.getValue().asString(""));
        }
        return bytes;
    }

    /** The length of {@code s} in UTF-8 bytes, as Go's {@code len} of a string counts it. */
    public static long utf8Length(String s) {
        long n = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                n++;
            } else if (c < 0x800) {
                n += 2;
            } else if (Character.isHighSurrogate(c)
                    && i + 1 < s.length()
                    && Character.isLowSurrogate(s.charAt(i + 1))) {
                n += 4;
                i++;
            } else {
                n += 3;
            }
        }
        return n;
    }

    // ---- formats (apimachinery/pkg/util/validation)

    /** {@code IsQualifiedName}: label keys, annotation keys (lower-cased), finalizers. */
    public static List<String> qualifiedNameErrors(String value) {
        if (isQualifiedName(value)) {
            return List.of();
        }
        List<String> errors = new ArrayList<>(2);
        int slash = value.indexOf('/');
        String name;
        if (slash < 0) {
            name = value;
        } else if (value.indexOf('/', slash + 1) >= 0) {
            return List.of(QUALIFIED_NAME_SLASHES_ERROR);
        } else {
            String prefix = value.substring(0, slash);
            name = value.substring(slash + 1);
            if (prefix.isEmpty()) {
                errors.add("prefix part must be non-empty");
            } else {
                for (String message : dns1123SubdomainErrors(prefix)) {
                    errors.add("prefix part " + message);
                }
            }
        }
        if (name.isEmpty()) {
            errors.add("name part must be non-empty");
        } else if (name.length() > QUALIFIED_NAME_MAX) {
            errors.add("name part " + maxLenError(QUALIFIED_NAME_MAX));
        }
        if (!isQualifiedNamePart(name)) {
            errors.add(NAME_PART_ERROR);
        }
        return errors;
    }

    private static boolean isQualifiedName(String value) {
        int slash = value.indexOf('/');
        if (slash < 0) {
            return value.length() <= QUALIFIED_NAME_MAX && isQualifiedNamePart(value);
        }
        String name = value.substring(slash + 1);
        return slash > 0
                && slash <= DNS1123_SUBDOMAIN_MAX
                && isDns1123Subdomain(value, 0, slash)
                && name.length() <= QUALIFIED_NAME_MAX
                && isQualifiedNamePart(name);
    }

    /** {@code ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]}. */
    private static boolean isQualifiedNamePart(String s) {
        int n = s.length();
        if (n == 0 || !isAlphanumeric(s.charAt(0)) || !isAlphanumeric(s.charAt(n - 1))) {
            return false;
        }
        for (int i = 1; i < n - 1; i++) {
            char c = s.charAt(i);
            if (!isAlphanumeric(c) && c != '-' && c != '_' && c != '.') {
                return false;
            }
        }
        return true;
    }

    /** {@code IsValidLabelValue}. */
    public static List<String> labelValueErrors(String value) {
        boolean formatOk = value.isEmpty() || isQualifiedNamePart(value);
        if (formatOk && value.length() <= LABEL_VALUE_MAX) {
            return List.of();
        }
        List<String> errors = new ArrayList<>(2);
        if (value.length() > LABEL_VALUE_MAX) {
            errors.add(maxLenError(LABEL_VALUE_MAX));
        }
        if (!formatOk) {
            errors.add(LABEL_VALUE_ERROR);
        }
        return errors;
    }

    /** {@code IsDNS1123Label}. */
    public static List<String> dns1123LabelErrors(String value) {
        boolean formatOk = isDns1123Label(value, 0, value.length());
        if (formatOk && value.length() <= DNS1123_LABEL_MAX) {
            return List.of();
        }
        List<String> errors = new ArrayList<>(2);
        if (value.length() > DNS1123_LABEL_MAX) {
            errors.add(maxLenError(DNS1123_LABEL_MAX));
        }
        if (!formatOk) {
            errors.add(isDns1123Subdomain(value, 0, value.length()) ? "must not contain dots" : DNS1123_LABEL_ERROR);
        }
        return errors;
    }

    /** {@code IsDNS1123Subdomain}. */
    public static List<String> dns1123SubdomainErrors(String value) {
        boolean formatOk = isDns1123Subdomain(value, 0, value.length());
        if (formatOk && value.length() <= DNS1123_SUBDOMAIN_MAX) {
            return List.of();
        }
        List<String> errors = new ArrayList<>(2);
        if (value.length() > DNS1123_SUBDOMAIN_MAX) {
            errors.add(maxLenError(DNS1123_SUBDOMAIN_MAX));
        }
        if (!formatOk) {
            errors.add(DNS1123_SUBDOMAIN_ERROR);
        }
        return errors;
    }

    /** {@code IsDNS1035Label}. */
    public static List<String> dns1035LabelErrors(String value) {
        boolean formatOk = !value.isEmpty() && isLower(value.charAt(0)) && isDns1123Label(value, 0, value.length());
        if (formatOk && value.length() <= DNS1035_LABEL_MAX) {
            return List.of();
        }
        List<String> errors = new ArrayList<>(2);
        if (value.length() > DNS1035_LABEL_MAX) {
            errors.add(maxLenError(DNS1035_LABEL_MAX));
        }
        if (!formatOk) {
            errors.add(DNS1035_LABEL_ERROR);
        }
        return errors;
    }

    /** {@code IsConfigMapKey}: keys of ConfigMap data and binaryData and of Secret data. */
    public static List<String> configMapKeyErrors(String value) {
        boolean formatOk = !value.isEmpty();
        for (int i = 0; i < value.length() && formatOk; i++) {
            char c = value.charAt(i);
            formatOk = isAlphanumeric(c) || c == '-' || c == '.' || c == '_';
        }
        boolean chdir = value.startsWith("..") || value.equals(".");
        if (formatOk && !chdir && value.length() <= DNS1123_SUBDOMAIN_MAX) {
            return List.of();
        }
        List<String> errors = new ArrayList<>(2);
        if (value.length() > DNS1123_SUBDOMAIN_MAX) {
            errors.add(maxLenError(DNS1123_SUBDOMAIN_MAX));
        }
        if (!formatOk) {
            errors.add(CONFIG_KEY_ERROR);
        }
        if (value.equals(".")) {
            errors.add("must not be '.'");
        } else if (value.equals("..")) {
            errors.add("must not be '..'");
        } else if (value.startsWith("..")) {
            errors.add("must not start with '..'");
        }
        return errors;
    }

    /** {@code IsValidPortName}: a Service port's string targetPort, a container port's name. */
    public static List<String> portNameErrors(String port) {
        List<String> errors = new ArrayList<>(0);
        if (port.length() > 15) {
            errors.add(maxLenError(15));
        }
        boolean charset = !port.isEmpty();
        boolean letter = false;
        for (int i = 0; i < port.length(); i++) {
            char c = port.charAt(i);
            charset &= isLower(c) || isDigit(c) || c == '-';
            letter |= isLower(c);
        }
        if (!charset) {
            errors.add("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
        }
        if (!letter) {
            errors.add("must contain at least one letter (a-z)");
        }
        if (port.contains("--")) {
            errors.add("must not contain consecutive hyphens");
        }
        if (!port.isEmpty() && (port.charAt(0) == '-' || port.charAt(port.length() - 1) == '-')) {
            errors.add("must not begin or end with a hyphen");
        }
        return errors;
    }

    /** {@code path.IsValidPathSegmentName} (and its prefix form, which allows anything but '/' and '%'). */
    private static List<String> pathSegmentErrors(String name, boolean prefix) {
        List<String> errors = new ArrayList<>(0);
        if (!prefix && (name.equals(".") || name.equals(".."))) {
            errors.add("may not be '" + name + "'");
        }
        for (String illegal : List.of("/", "%")) {
            if (name.contains(illegal)) {
                errors.add("may not contain '" + illegal + "'");
            }
        }
        return errors;
    }

    private static boolean isDns1123Subdomain(String s, int from, int to) {
        if (from >= to) {
            return false;
        }
        int start = from;
        for (int i = from; i <= to; i++) {
            if (i == to || s.charAt(i) == '.') {
                if (!isDns1123Label(s, start, i)) {
                    return false;
                }
                start = i + 1;
            }
        }
        return true;
    }

    /** {@code [a-z0-9]([-a-z0-9]*[a-z0-9])?} over {@code s[from, to)}. */
    private static boolean isDns1123Label(String s, int from, int to) {
        if (from >= to || s.charAt(from) == '-' || s.charAt(to - 1) == '-') {
            return false;
        }
        for (int i = from; i < to; i++) {
            char c = s.charAt(i);
            if (!isLower(c) && !isDigit(c) && c != '-') {
                return false;
            }
        }
        return true;
    }

    private static boolean isAlphanumeric(char c) {
        return isLower(c) || isDigit(c) || (c >= 'A' && c <= 'Z');
    }

    private static boolean isLower(char c) {
        return c >= 'a' && c <= 'z';
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    // ---- messages

    /** {@code field.Invalid}: {@code Invalid value: "<value>": <message>}. */
    public static FieldError invalid(String path, String value, String message) {
        return new FieldError("Invalid value", path, quote(value) + ": " + message);
    }

    /** {@code field.TooLong} as kube 1.32 words it. */
    public static FieldError tooLong(String path, int maxBytes) {
        return new FieldError("Too long", path, "may not be more than " + maxBytes + " bytes");
    }

    /** {@code field.NotSupported}: {@code Unsupported value: "x": supported values: "a", "b"}. */
    public static FieldError notSupported(String path, String value, List<String> supported) {
        StringBuilder sb = new StringBuilder(quote(value)).append(": supported values: ");
        for (int i = 0; i < supported.size(); i++) {
            sb.append(i == 0 ? "" : ", ").append(quote(supported.get(i)));
        }
        return new FieldError("Unsupported value", path, sb.toString());
    }

    /** {@code field.Required} with no detail. */
    public static FieldError required(String path) {
        return new FieldError("Required value", path, "");
    }

    /** {@code field.Forbidden}. */
    public static FieldError forbidden(String path, String detail) {
        return new FieldError("Forbidden", path, detail);
    }

    /** {@code "field is immutable"} for a string field. */
    public static FieldError immutable(String path, String value) {
        return invalid(path, value, "field is immutable");
    }

    /** Go's {@code %q}: the value in double quotes, with quotes, backslashes and control characters escaped. */
    public static String quote(String value) {
        StringBuilder sb = new StringBuilder(value.length() + 2).append('"');
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\t' -> sb.append("\\t");
                case '\r' -> sb.append("\\r");
                default -> {
                    if (c < 0x20) {
                        sb.append(String.format("\\x%02x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        return sb.append('"').toString();
    }

    private static String goStrings(tools.jackson.databind.node.ArrayNode values) {
        StringBuilder sb = new StringBuilder("[]string{");
        for (int i = 0; i < values.size(); i++) {
            sb.append(i == 0 ? "" : ", ").append(quote(values.get(i).asString("")));
        }
        return sb.append('}').toString();
    }

    private static String maxLenError(int length) {
        return "must be no more than " + length + " characters";
    }

    /** apimachinery's {@code RegexError}, examples and all (note its double spaces before "or"). */
    private static String regexError(String message, String format, String... examples) {
        StringBuilder sb = new StringBuilder(message).append(" (e.g. ");
        for (int i = 0; i < examples.length; i++) {
            if (i > 0) {
                sb.append(" or ");
            }
            sb.append('\'').append(examples[i]).append("', ");
        }
        return sb.append("regex used for validation is '")
                .append(format)
                .append("')")
                .toString();
    }
}
