package io.kubeloop.apiserver.internal.registry;

import static io.kubeloop.apiserver.internal.registry.KubeFieldErrors.duplicate;
import static io.kubeloop.apiserver.internal.registry.KubeFieldErrors.forbidden;
import static io.kubeloop.apiserver.internal.registry.KubeFieldErrors.invalid;
import static io.kubeloop.apiserver.internal.registry.KubeFieldErrors.notFound;
import static io.kubeloop.apiserver.internal.registry.KubeFieldErrors.notSupported;
import static io.kubeloop.apiserver.internal.registry.KubeFieldErrors.required;

import io.kubeloop.model.Statuses.FieldError;
import java.math.BigDecimal;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A {@code PodSpec}'s defaulting and validation as kube's (pkg/apis/core/v1/defaults.go, the pod parts of
 * pkg/apis/core/validation), shared by pods and the pod templates of Deployments, ReplicaSets, StatefulSets and
 * DaemonSets. What only a Pod gets (its admission plugins, {@code enableServiceLinks}, requests defaulted from
 * limits, status) is in {@link PodStrategy}.
 *
 * <p>Runs on every write: plain loops over the tree, no regular expressions or reflection. Validation reads
 * defensively (a field of an unexpected JSON type is skipped: type checking is the decoder's job).
 */
final class PodSpecs {

    static final List<String> RESTART_POLICIES = List.of("Always", "OnFailure", "Never");
    static final List<String> DNS_POLICIES = List.of("ClusterFirstWithHostNet", "ClusterFirst", "Default", "None");
    static final List<String> PULL_POLICIES = List.of("Always", "IfNotPresent", "Never");
    static final List<String> PROTOCOLS = List.of("SCTP", "TCP", "UDP");
    static final List<String> MESSAGE_POLICIES = List.of("File", "FallbackToLogsOnError");
    static final List<String> TOLERATION_OPERATORS = List.of("Equal", "Exists");
    static final List<String> TAINT_EFFECTS = List.of("NoSchedule", "PreferNoSchedule", "NoExecute");

    private static final String[] CONTAINER_LISTS = {"initContainers", "containers"};
    private static final String[] PROBES = {"livenessProbe", "readinessProbe", "startupProbe"};
    private static final String[] DEFAULT_MODE_SOURCES = {"secret", "configMap", "downwardAPI", "projected"};

    private PodSpecs() {}

    // ---- defaulting

    /** {@code SetDefaults_PodSpec} and the defaults of everything a pod spec holds. */
    static void applyDefaults(ObjectNode spec) {
        putIfAbsent(spec, "dnsPolicy", "ClusterFirst");
        putIfAbsent(spec, "restartPolicy", "Always");
        if (!spec.has("securityContext") || spec.get("securityContext").isNull()) {
            spec.putObject("securityContext");
        }
        if (!spec.has("terminationGracePeriodSeconds")
                || spec.get("terminationGracePeriodSeconds").isNull()) {
            spec.put("terminationGracePeriodSeconds", 30);
        }
        putIfAbsent(spec, "schedulerName", "default-scheduler");
        // v1's deprecated serviceAccount mirrors serviceAccountName (kube's v1 conversion of PodSpec)
        String accountName = spec.path("serviceAccountName").asString("");
        String account = spec.path("serviceAccount").asString("");
        if (accountName.isEmpty() && !account.isEmpty()) {
            spec.put("serviceAccountName", account);
        } else if (!accountName.isEmpty()) {
            spec.put("serviceAccount", accountName);
        }
        for (String list : CONTAINER_LISTS) {
            for (JsonNode c : spec.path(list)) {
                if (c instanceof ObjectNode container) {
                    defaultContainer(container);
                }
            }
        }
        for (JsonNode v : spec.path("volumes")) {
            if (v instanceof ObjectNode volume) {
                defaultVolume(volume);
            }
        }
    }

    /** {@code SetDefaults_Container} with its ports, probes and env. */
    private static void defaultContainer(ObjectNode c) {
        if (c.path("imagePullPolicy").asString("").isEmpty()) {
            c.put("imagePullPolicy", pullPolicyFor(c.path("image").asString("")));
        }
        putIfAbsent(c, "terminationMessagePath", "/dev/termination-log");
        putIfAbsent(c, "terminationMessagePolicy", "File");
        // ResourceRequirements is a struct, not a pointer: kube always serializes it
        if (!c.has("resources") || c.get("resources").isNull()) {
            c.putObject("resources");
        }
        for (JsonNode p : c.path("ports")) {
            if (p instanceof ObjectNode port) {
                putIfAbsent(port, "protocol", "TCP");
            }
        }
        for (String probe : PROBES) {
            if (c.get(probe) instanceof ObjectNode p) {
                putIfAbsent(p, "timeoutSeconds", 1);
                putIfAbsent(p, "periodSeconds", 10);
                putIfAbsent(p, "successThreshold", 1);
                putIfAbsent(p, "failureThreshold", 3);
                defaultHandler(p);
            }
        }
        if (c.get("lifecycle") instanceof ObjectNode lifecycle) {
            for (JsonNode handler : lifecycle) {
                if (handler instanceof ObjectNode h) {
                    defaultHandler(h);
                }
            }
        }
        for (JsonNode e : c.path("env")) {
            if (e.path("valueFrom").get("fieldRef") instanceof ObjectNode fieldRef) {
                putIfAbsent(fieldRef, "apiVersion", "v1");
            }
        }
    }

    private static void defaultHandler(ObjectNode handler) {
        if (handler.get("httpGet") instanceof ObjectNode http) {
            putIfAbsent(http, "path", "/");
            putIfAbsent(http, "scheme", "HTTP");
        }
    }

    /** {@code SetDefaults_Volume} and its sources' defaults: no source is an emptyDir; file modes 0644. */
    private static void defaultVolume(ObjectNode volume) {
        if (volume.size() == 1 && volume.has("name")) {
            volume.putObject("emptyDir");
            return;
        }
        for (String source : DEFAULT_MODE_SOURCES) {
            if (volume.get(source) instanceof ObjectNode s) {
                putIfAbsent(s, "defaultMode", 420);
            }
        }
        if (volume.get("hostPath") instanceof ObjectNode hostPath) {
            putIfAbsent(hostPath, "type", "");
        }
        for (JsonNode item : volume.path("downwardAPI").path("items")) {
            if (item.get("fieldRef") instanceof ObjectNode fieldRef) {
                putIfAbsent(fieldRef, "apiVersion", "v1");
            }
        }
    }

    /**
     * kube's pull policy default: {@code Always} for the {@code latest} tag (also implied by no tag and no
     * digest), {@code IfNotPresent} otherwise (a digest, another tag, or an image reference that does not parse).
     */
    static String pullPolicyFor(String image) {
        if (image.isEmpty() || !parsesAsReference(image)) {
            return "IfNotPresent";
        }
        int at = image.indexOf('@');
        String name = at >= 0 ? image.substring(0, at) : image;
        int slash = name.lastIndexOf('/');
        int colon = name.lastIndexOf(':');
        String tag = colon > slash ? name.substring(colon + 1) : "";
        if (tag.isEmpty() && at < 0) {
            tag = "latest";
        }
        return tag.equals("latest") ? "Always" : "IfNotPresent";
    }

    /** Roughly docker's reference grammar: a lower-case repository path, then an optional tag and digest. */
    private static boolean parsesAsReference(String image) {
        int at = image.indexOf('@');
        String name = at >= 0 ? image.substring(0, at) : image;
        int slash = name.lastIndexOf('/');
        int colon = name.lastIndexOf(':');
        String repository = colon > slash ? name.substring(0, colon) : name;
        // the first path component may be a registry host (upper case, ':port' allowed)
        int firstSlash = repository.indexOf('/');
        String path = firstSlash >= 0 ? repository.substring(firstSlash + 1) : repository;
        if (path.isEmpty()) {
            return false;
        }
        for (int i = 0; i < path.length(); i++) {
            char c = path.charAt(i);
            if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-' || c == '/')) {
                return false;
            }
        }
        return true;
    }

    // ---- validation

    /** {@code ValidatePodSpec}'s rules users hit, under {@code path} ({@code spec}, {@code spec.template.spec}). */
    static void validate(JsonNode spec, String path, List<FieldError> errors) {
        Set<String> volumes = validateVolumes(spec.path("volumes"), path + ".volumes", errors);
        Set<String> containerNames = new HashSet<>();
        JsonNode containers = spec.path("containers");
        if (!containers.isArray() || containers.isEmpty()) {
            errors.add(required(path + ".containers"));
        }
        validateContainers(spec.path("initContainers"), path + ".initContainers", volumes, containerNames, errors);
        validateContainers(containers, path + ".containers", volumes, containerNames, errors);
        String restartPolicy = spec.path("restartPolicy").asString("");
        if (restartPolicy.isEmpty()) {
            errors.add(required(path + ".restartPolicy"));
        } else if (!RESTART_POLICIES.contains(restartPolicy)) {
            errors.add(notSupported(path + ".restartPolicy", restartPolicy, RESTART_POLICIES));
        }
        String dnsPolicy = spec.path("dnsPolicy").asString("");
        if (dnsPolicy.isEmpty()) {
            errors.add(required(path + ".dnsPolicy"));
        } else if (!DNS_POLICIES.contains(dnsPolicy)) {
            errors.add(notSupported(path + ".dnsPolicy", dnsPolicy, DNS_POLICIES));
        } else if (dnsPolicy.equals("None")
                && spec.path("dnsConfig").path("nameservers").isEmpty()) {
            if (!spec.path("dnsConfig").isObject()) {
                errors.add(required(path + ".dnsConfig", "must provide `dnsConfig` when `dnsPolicy` is None"));
            } else {
                errors.add(required(
                        path + ".dnsConfig.nameservers",
                        "must provide at least one DNS nameserver when `dnsPolicy` is None"));
            }
        }
        JsonNode deadline = spec.path("activeDeadlineSeconds");
        if (deadline.isIntegralNumber() && (deadline.asLong() < 1 || deadline.asLong() > Integer.MAX_VALUE)) {
            errors.add(invalid(
                    path + ".activeDeadlineSeconds", deadline.asLong(), "must be between 1 and 2147483647, inclusive"));
        }
        String hostname = spec.path("hostname").asString("");
        if (!hostname.isEmpty()) {
            dns1123Label(hostname, path + ".hostname", errors);
        }
        String subdomain = spec.path("subdomain").asString("");
        if (!subdomain.isEmpty()) {
            dns1123Label(subdomain, path + ".subdomain", errors);
        }
        validateTolerations(spec.path("tolerations"), path + ".tolerations", errors);
    }

    private static Set<String> validateVolumes(JsonNode volumes, String path, List<FieldError> errors) {
        Set<String> names = new HashSet<>();
        int i = 0;
        for (JsonNode v : volumes) {
            String at = path + "[" + i++ + "]";
            String name = v.path("name").asString("");
            if (name.isEmpty()) {
                errors.add(required(at + ".name"));
            } else if (dns1123Label(name, at + ".name", errors) && !names.add(name)) {
                errors.add(duplicate(at + ".name", name));
            }
        }
        return names;
    }

    private static void validateContainers(
            JsonNode containers, String path, Set<String> volumes, Set<String> names, List<FieldError> errors) {
        int i = 0;
        for (JsonNode c : containers) {
            String at = path + "[" + i++ + "]";
            String name = c.path("name").asString("");
            if (name.isEmpty()) {
                errors.add(required(at + ".name"));
            } else if (dns1123Label(name, at + ".name", errors) && !names.add(name)) {
                errors.add(duplicate(at + ".name", name));
            }
            String image = c.path("image").asString("");
            if (image.isEmpty()) {
                errors.add(required(at + ".image"));
            } else if (!image.strip().equals(image)) {
                errors.add(invalid(at + ".image", image, "must not have leading or trailing whitespace"));
            }
            enumField(c, "imagePullPolicy", at, PULL_POLICIES, errors);
            enumField(c, "terminationMessagePolicy", at, MESSAGE_POLICIES, errors);
            validatePorts(c.path("ports"), at + ".ports", errors);
            validateEnv(c.path("env"), at + ".env", errors);
            validateResources(c.path("resources"), at + ".resources", errors);
            int m = 0;
            for (JsonNode mount : c.path("volumeMounts")) {
                String mountAt = at + ".volumeMounts[" + m++ + "]";
                String volume = mount.path("name").asString("");
                if (volume.isEmpty()) {
                    errors.add(required(mountAt + ".name"));
                } else if (!volumes.contains(volume)) {
                    errors.add(notFound(mountAt + ".name", volume));
                }
                if (mount.path("mountPath").asString("").isEmpty()) {
                    errors.add(required(mountAt + ".mountPath"));
                }
            }
        }
    }

    private static void enumField(JsonNode c, String field, String at, List<String> allowed, List<FieldError> errors) {
        String value = c.path(field).asString("");
        if (value.isEmpty()) {
            errors.add(required(at + "." + field));
        } else if (!allowed.contains(value)) {
            errors.add(notSupported(at + "." + field, value, allowed));
        }
    }

    private static void validatePorts(JsonNode ports, String path, List<FieldError> errors) {
        Set<String> names = new HashSet<>();
        int i = 0;
        for (JsonNode p : ports) {
            String at = path + "[" + i++ + "]";
            String name = p.path("name").asString("");
            if (!name.isEmpty()) {
                List<String> problems = portNameProblems(name);
                problems.forEach(problem -> errors.add(invalid(at + ".name", name, problem)));
                if (problems.isEmpty() && !names.add(name)) {
                    errors.add(duplicate(at + ".name", name));
                }
            }
            JsonNode containerPort = p.path("containerPort");
            if (!containerPort.isNumber() || containerPort.asLong() == 0) {
                errors.add(required(at + ".containerPort"));
            } else if (containerPort.asLong() < 1 || containerPort.asLong() > 65535) {
                errors.add(invalid(
                        at + ".containerPort", containerPort.asLong(), "must be between 1 and 65535, inclusive"));
            }
            long hostPort = p.path("hostPort").asLong(0);
            if (hostPort != 0 && (hostPort < 1 || hostPort > 65535)) {
                errors.add(invalid(at + ".hostPort", hostPort, "must be between 1 and 65535, inclusive"));
            }
            String protocol = p.path("protocol").asString("");
            if (protocol.isEmpty()) {
                errors.add(required(at + ".protocol"));
            } else if (!PROTOCOLS.contains(protocol)) {
                errors.add(notSupported(at + ".protocol", protocol, PROTOCOLS));
            }
        }
    }

    /** {@code IsValidPortName}: an IANA service name. */
    private static List<String> portNameProblems(String name) {
        List<String> problems = new java.util.ArrayList<>(2);
        if (name.length() > 15) {
            problems.add("must be no more than 15 characters");
        }
        boolean charset = true;
        boolean letter = false;
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            letter |= c >= 'a' && c <= 'z';
            charset &= (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
        }
        if (!charset) {
            problems.add("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
        }
        if (!letter) {
            problems.add("must contain at least one letter (a-z)");
        }
        if (name.contains("--")) {
            problems.add("must not contain consecutive hyphens");
        }
        if (name.startsWith("-") || name.endsWith("-")) {
            problems.add("must not begin or end with a hyphen");
        }
        return problems;
    }

    private static void validateEnv(JsonNode env, String path, List<FieldError> errors) {
        int i = 0;
        for (JsonNode e : env) {
            String at = path + "[" + i++ + "].name";
            String name = e.path("name").asString("");
            if (name.isEmpty()) {
                errors.add(required(at));
            } else if (!isEnvVarName(name)) {
                errors.add(invalid(
                        at,
                        name,
                        "a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or "
                                + "'.', and must not start with a digit (e.g. 'my.env-name',  or 'MY_ENV.NAME',  or "
                                + "'MyEnvName1', regex used for validation is '[-._a-zA-Z][-._a-zA-Z0-9]*')"));
            }
        }
    }

    private static boolean isEnvVarName(String name) {
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z')
                    || (c >= 'A' && c <= 'Z')
                    || c == '-'
                    || c == '.'
                    || c == '_'
                    || (i > 0 && c >= '0' && c <= '9');
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    /** Quantities not negative, each request at most its limit ({@code ValidateResourceRequirements}). */
    private static void validateResources(JsonNode resources, String path, List<FieldError> errors) {
        Map<String, BigDecimal> limits = new HashMap<>();
        for (var e : resources.path("limits").properties()) {
            BigDecimal q = quantity(e.getValue());
            if (q != null && q.signum() < 0) {
                errors.add(invalid(
                        path + ".limits[" + e.getKey() + "]",
                        text(e.getValue()),
                        "must be greater than or equal to 0"));
            } else if (q != null) {
                limits.put(e.getKey(), q);
            }
        }
        for (var e : resources.path("requests").properties()) {
            BigDecimal q = quantity(e.getValue());
            if (q == null) {
                continue;
            }
            if (q.signum() < 0) {
                errors.add(invalid(
                        path + ".requests[" + e.getKey() + "]",
                        text(e.getValue()),
                        "must be greater than or equal to 0"));
                continue;
            }
            BigDecimal limit = limits.get(e.getKey());
            if (limit != null && q.compareTo(limit) > 0) {
                errors.add(invalid(
                        path + ".requests",
                        text(e.getValue()),
                        "must be less than or equal to " + e.getKey() + " limit of "
                                + text(resources.path("limits").path(e.getKey()))));
            }
        }
    }

    private static void validateTolerations(JsonNode tolerations, String path, List<FieldError> errors) {
        int i = 0;
        for (JsonNode t : tolerations) {
            String at = path + "[" + i++ + "]";
            String key = t.path("key").asString("");
            String operator = t.path("operator").asString("");
            String effect = t.path("effect").asString("");
            if (key.isEmpty() && !operator.equals("Exists")) {
                errors.add(invalid(
                        at + ".operator",
                        operator,
                        "operator must be Exists when `key` is empty, which means \"match all values and all keys\""));
            }
            if (t.has("tolerationSeconds") && !t.get("tolerationSeconds").isNull() && !effect.equals("NoExecute")) {
                errors.add(
                        invalid(at + ".effect", effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"));
            }
            if (operator.equals("Exists") && !t.path("value").asString("").isEmpty()) {
                errors.add(invalid(
                        at + ".operator",
                        t.path("value").asString(""),
                        "value must be empty when `operator` is 'Exists'"));
            } else if (!operator.isEmpty() && !TOLERATION_OPERATORS.contains(operator)) {
                errors.add(notSupported(at + ".operator", operator, TOLERATION_OPERATORS));
            }
            if (!effect.isEmpty() && !TAINT_EFFECTS.contains(effect)) {
                errors.add(notSupported(at + ".effect", effect, TAINT_EFFECTS));
            }
        }
    }

    /**
     * {@code IsDNS1123Label} as {@code field.Invalid}s; true when valid. kube's messages: too long, dots in what
     * would be a subdomain, or the label regex.
     */
    static boolean dns1123Label(String value, String path, List<FieldError> errors) {
        boolean valid = true;
        if (value.length() > 63) {
            errors.add(invalid(path, value, "must be no more than 63 characters"));
            valid = false;
        }
        if (!isLabel(value, 0, value.length())) {
            errors.add(invalid(
                    path,
                    value,
                    isSubdomain(value)
                            ? "must not contain dots"
                            : "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
                                    + "and must start and end with an alphanumeric character (e.g. 'my-name',  or "
                                    + "'123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"));
            valid = false;
        }
        return valid;
    }

    private static boolean isLabel(String s, int from, int to) {
        if (from >= to || s.charAt(from) == '-' || s.charAt(to - 1) == '-') {
            return false;
        }
        for (int i = from; i < to; i++) {
            char c = s.charAt(i);
            if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) {
                return false;
            }
        }
        return true;
    }

    private static boolean isSubdomain(String s) {
        int from = 0;
        for (int i = 0; i <= s.length(); i++) {
            if (i == s.length() || s.charAt(i) == '.') {
                if (!isLabel(s, from, i)) {
                    return false;
                }
                from = i + 1;
            }
        }
        return true;
    }

    // ---- helpers shared with the strategies

    /**
     * Numbers equal by value: a body parsed from JSON holds {@code 30} as an int node, one decoded from protobuf or
     * defaulted may hold it as a long; kube compares the decoded Go values.
     */
    private static final Comparator<JsonNode> BY_VALUE = (a, b) -> {
        if (a.equals(b)) {
            return 0;
        }
        if (a.isNumber() && b.isNumber()) {
            return a.isIntegralNumber() && b.isIntegralNumber()
                    ? Long.compare(a.asLong(), b.asLong())
                    : a.decimalValue().compareTo(b.decimalValue());
        }
        return 1;
    };

    /** Whether two trees are equal, numbers compared by value; a missing node equals only a missing node. */
    static boolean same(JsonNode a, JsonNode b) {
        if (a == null || b == null) {
            return a == b;
        }
        return a.equals(BY_VALUE, b);
    }

    /** A quantity given as a string or a JSON number, null when it is neither. */
    static BigDecimal quantity(JsonNode node) {
        if (node.isNumber()) {
            return node.decimalValue();
        }
        return node.isString() ? Quantities.parse(node.asString()) : null;
    }

    private static String text(JsonNode node) {
        return node.isString() ? node.asString() : node.toString();
    }

    static void putIfAbsent(ObjectNode node, String field, String value) {
        JsonNode v = node.get(field);
        if (v == null || v.isNull() || (v.isString() && v.asString().isEmpty() && !value.isEmpty())) {
            node.put(field, value);
        }
    }

    static void putIfAbsent(ObjectNode node, String field, int value) {
        JsonNode v = node.get(field);
        if (v == null || v.isNull()) {
            node.put(field, value);
        }
    }

    static ArrayNode array(ObjectNode node, String field) {
        return node.get(field) instanceof ArrayNode a ? a : node.putArray(field);
    }

    /** The Forbidden of an update that changes what may not change, with kube's wording for the pod spec. */
    static FieldError podSpecUpdateForbidden(String diff) {
        return forbidden(
                "spec",
                "pod updates may not change fields other than `spec.containers[*].image`,"
                        + "`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only "
                        + "additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be "
                        + "set to 1 if it was previously negative)\n" + diff);
    }
}
