package io.kubeloop.apiserver.internal.registry;

import static io.kubeloop.apiserver.internal.registry.KubeFieldErrors.forbidden;
import static io.kubeloop.apiserver.internal.registry.KubeFieldErrors.invalid;
import static io.kubeloop.apiserver.internal.registry.KubeFieldErrors.labelSelector;
import static io.kubeloop.apiserver.internal.registry.KubeFieldErrors.notSupported;
import static io.kubeloop.apiserver.internal.registry.KubeFieldErrors.required;
import static io.kubeloop.apiserver.internal.registry.KubeFieldErrors.stringMap;

import io.kubeloop.model.Statuses.FieldError;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * What the apps/v1 workloads (Deployment, ReplicaSet, StatefulSet, DaemonSet) share in kube's
 * pkg/apis/apps/validation and their registry strategies: a label selector that is required, not empty and matches
 * the pod template's labels; a pod template whose spec is valid and restarts {@code Always}; non-negative counts;
 * an immutable selector; the status reset on create and the generation bumped by spec changes.
 */
final class WorkloadSpecs {

    static final List<String> ALWAYS = List.of("Always");
    private static final List<String> OPERATORS = List.of("In", "NotIn", "Exists", "DoesNotExist");

    private WorkloadSpecs() {}

    /** The spec of {@code object}, created when absent (kube's spec is a struct: it always exists). */
    static ObjectNode spec(ObjectNode object) {
        return object.get("spec") instanceof ObjectNode spec ? spec : object.putObject("spec");
    }

    /** The pod template's spec defaults ({@code SetDefaults_PodSpec} runs on every embedded pod spec). */
    static void defaultTemplate(ObjectNode spec) {
        // the template and its spec are Go structs, not pointers: they always exist, so they are always defaulted
        ObjectNode template = spec.get("template") instanceof ObjectNode t ? t : spec.putObject("template");
        PodSpecs.applyDefaults(template.get("spec") instanceof ObjectNode s ? s : template.putObject("spec"));
    }

    /** {@code replicas}, defaulted to 1 when absent. */
    static void defaultReplicas(ObjectNode spec) {
        PodSpecs.putIfAbsent(spec, "replicas", 1);
    }

    /** {@code PrepareForCreate}: a new workload's status is empty. */
    static void resetStatus(ObjectNode object) {
        object.putObject("status");
    }

    /**
     * The selector rules of a Deployment, ReplicaSet or StatefulSet ({@code requireSelector}) or a DaemonSet
     * (whose missing selector matches nothing): required, not empty, well-formed, matching the template's labels.
     */
    static void validateSelector(JsonNode spec, String kindWord, boolean requireSelector, List<FieldError> errors) {
        JsonNode selector = spec.path("selector");
        int before = errors.size();
        if (!selector.isObject()) {
            if (requireSelector) {
                errors.add(required("spec.selector"));
            }
        } else {
            validateLabelSelector(selector, "spec.selector", errors);
            if (errors.size() > before) {
                return; // kube cannot turn it into a selector, so it matches nothing against the template
            }
            if (selector.path("matchLabels").size()
                            + selector.path("matchExpressions").size()
                    == 0) {
                errors.add(
                        invalid("spec.selector", labelSelector(selector), "empty selector is invalid for " + kindWord));
            }
        }
        JsonNode labels = spec.path("template").path("metadata").path("labels");
        // a nil selector matches nothing, an empty one is reported above (kube skips the match for it)
        boolean emptySelector = selector.isObject()
                && selector.path("matchLabels").size()
                                + selector.path("matchExpressions").size()
                        == 0;
        if (!emptySelector && !matches(selector, labels)) {
            errors.add(invalid(
                    "spec.template.metadata.labels", stringMap(labels), "`selector` does not match template `labels`"));
        }
    }

    /** {@code ValidateLabelSelector}'s operator and values rules. */
    private static void validateLabelSelector(JsonNode selector, String path, List<FieldError> errors) {
        int i = 0;
        for (JsonNode e : selector.path("matchExpressions")) {
            String at = path + ".matchExpressions[" + i++ + "]";
            String operator = e.path("operator").asString("");
            switch (operator) {
                case "In", "NotIn" -> {
                    if (e.path("values").isEmpty()) {
                        errors.add(required(at + ".values", "must be specified when `operator` is 'In' or 'NotIn'"));
                    }
                }
                case "Exists", "DoesNotExist" -> {
                    if (!e.path("values").isEmpty()) {
                        errors.add(forbidden(
                                at + ".values", "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
                    }
                }
                default -> errors.add(invalid(at + ".operator", operator, "not a valid selector operator"));
            }
            if (e.path("key").asString("").isEmpty()) {
                errors.add(invalid(at + ".key", "", "name part must be non-empty"));
            }
        }
    }

    /** Whether {@code selector} (a LabelSelector; absent matches nothing) selects {@code labels}. */
    static boolean matches(JsonNode selector, JsonNode labels) {
        if (!selector.isObject()) {
            return false;
        }
        for (var e : selector.path("matchLabels").properties()) {
            JsonNode value = labels.get(e.getKey());
            if (value == null || !value.asString("").equals(e.getValue().asString(""))) {
                return false;
            }
        }
        for (JsonNode e : selector.path("matchExpressions")) {
            JsonNode value = labels.get(e.path("key").asString(""));
            boolean in = false;
            if (value != null) {
                for (JsonNode v : e.path("values")) {
                    in |= v.asString("").equals(value.asString(""));
                }
            }
            boolean ok =
                    switch (e.path("operator").asString("")) {
                        case "In" -> in;
                        case "NotIn" -> !in;
                        case "Exists" -> value != null;
                        case "DoesNotExist" -> value == null;
                        default -> false;
                    };
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    /**
     * {@code ValidatePodTemplateSpec} (not for a StatefulSet, as kube) plus the workload controllers' own rule: their
     * pods restart {@code Always} and have no active deadline ({@code kind} names the controller in kube's message).
     */
    static void validateTemplate(JsonNode spec, String kind, List<FieldError> errors) {
        JsonNode template = spec.path("template");
        JsonNode podSpec = template.path("spec");
        if (!kind.equals("StatefulSet")) {
            // kube skips a StatefulSet's pod spec ("currently this will check volumes, which we know will fail":
            // its mounts may name volumeClaimTemplates)
            PodSpecs.validate(podSpec, "spec.template.spec", errors);
        }
        String restartPolicy = podSpec.path("restartPolicy").asString("");
        if (!restartPolicy.isEmpty() && !restartPolicy.equals("Always")) {
            errors.add(notSupported("spec.template.spec.restartPolicy", restartPolicy, ALWAYS));
        }
        JsonNode deadline = podSpec.path("activeDeadlineSeconds");
        if (!deadline.isMissingNode() && !deadline.isNull()) {
            errors.add(forbidden(
                    "spec.template.spec.activeDeadlineSeconds",
                    "activeDeadlineSeconds in " + kind + " is not Supported"));
        }
    }

    /** {@code ValidateNonnegativeField} of an integer field of the spec. */
    static void nonNegative(JsonNode spec, String field, List<FieldError> errors) {
        JsonNode value = spec.path(field);
        if (value.isNumber() && value.asLong() < 0) {
            errors.add(invalid("spec." + field, value.asLong(), "must be greater than or equal to 0"));
        }
    }

    /** The selector may not change ({@code ValidateImmutableField} of {@code spec.selector}). */
    static void selectorImmutable(JsonNode next, JsonNode current, List<FieldError> errors) {
        JsonNode selector = next.path("spec").path("selector");
        if (!PodSpecs.same(selector, current.path("spec").path("selector"))) {
            errors.add(invalid("spec.selector", labelSelector(selector), "field is immutable"));
        }
    }

    /**
     * {@code metadata.generation}: the stored one, plus one when the (defaulted) spec changed — or, for a Deployment
     * ({@code annotationsToo}), its annotations, which kube copies to its ReplicaSets. Decided here, after
     * defaulting, so that a write leaving out defaulted fields does not count as a change.
     */
    static void generation(ObjectNode next, JsonNode current, boolean annotationsToo) {
        JsonNode currentMeta = current.path("metadata");
        boolean changed = !PodSpecs.same(next.path("spec"), current.path("spec"))
                || (annotationsToo
                        && !PodSpecs.same(next.path("metadata").path("annotations"), currentMeta.path("annotations")));
        if (next.get("metadata") instanceof ObjectNode meta && currentMeta.has("generation")) {
            meta.put("generation", currentMeta.path("generation").asLong(1) + (changed ? 1 : 0));
        }
    }

    /**
     * An {@code intstr.IntOrString} of a rolling update ({@code maxUnavailable}, {@code maxSurge}): a non-negative
     * integer or a percentage ({@code ValidatePositiveIntOrPercent}, {@code IsNotMoreThan100Percent}). Returns its
     * value as a count or percent, -1 when invalid or absent.
     */
    static long intOrPercent(JsonNode value, String path, List<FieldError> errors) {
        if (value.isNumber()) {
            if (value.asLong() < 0) {
                errors.add(invalid(path, value.asLong(), "must be greater than or equal to 0"));
                return -1;
            }
            return value.asLong();
        }
        if (!value.isString()) {
            return -1;
        }
        String s = value.asString();
        boolean percent = s.length() > 1 && s.endsWith("%");
        for (int i = 0; percent && i < s.length() - 1; i++) {
            percent = Character.isDigit(s.charAt(i));
        }
        if (!percent) {
            errors.add(invalid(
                    path,
                    s,
                    "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or "
                            + "'93%', regex used for validation is '[0-9]+%')"));
            return -1;
        }
        long p;
        try {
            p = Long.parseLong(s.substring(0, s.length() - 1));
        } catch (NumberFormatException e) {
            p = Long.MAX_VALUE;
        }
        if (p > 100) {
            errors.add(invalid(path, s, "must not be greater than 100%"));
            return -1;
        }
        return p;
    }
}
