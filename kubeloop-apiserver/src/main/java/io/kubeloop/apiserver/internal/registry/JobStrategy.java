package io.kubeloop.apiserver.internal.registry;

import static io.kubeloop.apiserver.internal.registry.FieldChecks.invalid;
import static io.kubeloop.apiserver.internal.registry.FieldChecks.notSupported;
import static io.kubeloop.apiserver.internal.registry.FieldChecks.required;

import io.kubeloop.model.Statuses.FieldError;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * batch/v1 Job, as kube's {@code SetDefaults_Job} and {@code pkg/registry/batch/job} strategy: completions and
 * parallelism 1 when both are unset, backoffLimit 6, completionMode NonIndexed, suspend false, manualSelector
 * false, podReplacementPolicy TerminatingOrFailed; the job's labels from the template's when it has none; on
 * create, unless {@code manualSelector}, the generated selector {@code batch.kubernetes.io/controller-uid=<uid>}
 * and the template labels {@code batch.kubernetes.io/controller-uid}, {@code controller-uid},
 * {@code batch.kubernetes.io/job-name}, {@code job-name}. Validation: selector required and matching the
 * template's labels, restartPolicy OnFailure or Never, non-negative counts, completionMode; selector,
 * completionMode and (while not suspended) the template are immutable.
 *
 * <p>The pod template itself (containers, pod spec defaults) is the Pod strategy's concern and is not checked
 * here.
 */
final class JobStrategy implements ResourceStrategy {

    static final String CONTROLLER_UID = "batch.kubernetes.io/controller-uid";
    static final String LEGACY_CONTROLLER_UID = "controller-uid";
    static final String JOB_NAME = "batch.kubernetes.io/job-name";
    static final String LEGACY_JOB_NAME = "job-name";

    @Override
    public void applyDefaults(ObjectNode job) {
        ObjectNode spec = object(job, "spec");
        defaultJobSpec(spec);
        JsonNode templateLabels = spec.path("template").path("metadata").get("labels");
        ObjectNode meta = object(job, "metadata");
        if (templateLabels != null
                && templateLabels.isObject()
                && meta.path("labels").isEmpty()) {
            meta.set("labels", templateLabels.deepCopy());
        }
    }

    /** {@code SetDefaults_Job}'s spec part (not applied to a CronJob's job template, as in kube). */
    static void defaultJobSpec(ObjectNode spec) {
        if (!spec.has("completions") && !spec.has("parallelism")) {
            spec.put("completions", 1);
            spec.put("parallelism", 1);
        }
        if (!spec.has("parallelism")) {
            spec.put("parallelism", 1);
        }
        if (!spec.has("backoffLimit")) {
            spec.put("backoffLimit", spec.has("backoffLimitPerIndex") ? Integer.MAX_VALUE : 6);
        }
        if (!spec.has("completionMode")) {
            spec.put("completionMode", "NonIndexed");
        }
        if (!spec.has("suspend")) {
            spec.put("suspend", false);
        }
        if (!spec.has("podReplacementPolicy")) {
            spec.put("podReplacementPolicy", spec.has("podFailurePolicy") ? "Failed" : "TerminatingOrFailed");
        }
    }

    @Override
    public void prepareForCreate(ObjectNode job) {
        job.remove("status");
        ObjectNode spec = object(job, "spec");
        if (!spec.has("manualSelector")) {
            spec.put("manualSelector", false);
        }
        if (!spec.path("manualSelector").asBoolean(false)) {
            generateSelector(job, spec);
        }
    }

    /** kube's {@code generateSelector}: labels the user already set are kept (validation rejects a wrong uid). */
    private static void generateSelector(ObjectNode job, ObjectNode spec) {
        String uid = FieldChecks.text(job.path("metadata").get("uid"));
        String name = FieldChecks.text(job.path("metadata").get("name"));
        ObjectNode labels = object(object(object(spec, "template"), "metadata"), "labels");
        for (String key : List.of(LEGACY_JOB_NAME, JOB_NAME)) {
            if (!labels.has(key)) {
                labels.put(key, name);
            }
        }
        for (String key : List.of(LEGACY_CONTROLLER_UID, CONTROLLER_UID)) {
            if (!labels.has(key)) {
                labels.put(key, uid);
            }
        }
        ObjectNode matchLabels = object(object(spec, "selector"), "matchLabels");
        if (!matchLabels.has(CONTROLLER_UID)) {
            matchLabels.put(CONTROLLER_UID, uid);
        }
    }

    @Override
    public List<FieldError> validate(ObjectNode job) {
        List<FieldError> errors = new ArrayList<>();
        JsonNode spec = job.path("spec");
        validateJobSpec(errors, spec, "spec", true);
        if (!spec.path("manualSelector").asBoolean(false)) {
            String uid = FieldChecks.text(job.path("metadata").get("uid"));
            hasLabel(
                    errors,
                    spec.path("template").path("metadata").path("labels"),
                    "spec.template.metadata.labels",
                    LEGACY_CONTROLLER_UID,
                    uid);
            hasLabel(
                    errors,
                    spec.path("template").path("metadata").path("labels"),
                    "spec.template.metadata.labels",
                    CONTROLLER_UID,
                    uid);
        }
        return errors;
    }

    /** {@code ValidateHasLabel}. */
    private static void hasLabel(List<FieldError> errors, JsonNode labels, String path, String key, String value) {
        String p = path + "[" + key + "]";
        JsonNode actual = labels.get(key);
        if (actual == null) {
            errors.add(required(p, ""));
        } else if (!FieldChecks.text(actual).equals(value)) {
            errors.add(invalid(p, actual, "must be '" + value + "'"));
        }
    }

    /** kube's {@code validateJobSpec}; {@code selectorRequired} is false for a CronJob's job template. */
    static void validateJobSpec(List<FieldError> errors, JsonNode spec, String path, boolean selectorRequired) {
        FieldChecks.nonNegative(errors, spec, "parallelism", path + ".parallelism");
        FieldChecks.nonNegative(errors, spec, "completions", path + ".completions");
        FieldChecks.positive(errors, spec, "activeDeadlineSeconds", path + ".activeDeadlineSeconds");
        FieldChecks.nonNegative(errors, spec, "backoffLimit", path + ".backoffLimit");
        FieldChecks.nonNegative(errors, spec, "ttlSecondsAfterFinished", path + ".ttlSecondsAfterFinished");
        String mode = FieldChecks.text(spec.get("completionMode"));
        if (spec.has("completionMode") && !List.of("NonIndexed", "Indexed").contains(mode)) {
            errors.add(notSupported(
                    path + ".completionMode", spec.get("completionMode"), List.of("NonIndexed", "Indexed")));
        }
        if (mode.equals("Indexed") && !spec.path("completions").isNumber()) {
            errors.add(required(path + ".completions", "when completion mode is Indexed"));
        }
        JsonNode selector = spec.get("selector");
        if (selectorRequired) {
            if (selector == null || selector.isNull()) {
                errors.add(required(path + ".selector", ""));
            } else if (!selects(selector, spec.path("template").path("metadata").path("labels"))) {
                errors.add(invalid(
                        path + ".template.metadata.labels",
                        spec.path("template").path("metadata").path("labels"),
                        "`selector` does not match template `labels`"));
            }
        }
        // The template's restartPolicy: kube defaults an absent one to Always (SetDefaults_PodSpec), which a Job
        // refuses; the message names that defaulted value.
        JsonNode restart = spec.path("template").path("spec").get("restartPolicy");
        String policy = restart == null || FieldChecks.text(restart).isEmpty() ? "Always" : FieldChecks.text(restart);
        if (!policy.equals("OnFailure") && !policy.equals("Never")) {
            errors.add(notSupported(path + ".template.spec.restartPolicy", policy, List.of("OnFailure", "Never")));
        }
    }

    /** Whether a label selector (matchLabels and matchExpressions) selects {@code labels}. */
    static boolean selects(JsonNode selector, JsonNode labels) {
        for (Map.Entry<String, JsonNode> e : selector.path("matchLabels").properties()) {
            if (!FieldChecks.text(labels.get(e.getKey())).equals(FieldChecks.text(e.getValue()))
                    || !labels.has(e.getKey())) {
                return false;
            }
        }
        for (JsonNode expr : selector.path("matchExpressions")) {
            String key = FieldChecks.text(expr.get("key"));
            boolean has = labels.has(key);
            String value = FieldChecks.text(labels.get(key));
            List<String> values = new ArrayList<>();
            expr.path("values").forEach(v -> values.add(FieldChecks.text(v)));
            boolean ok =
                    switch (FieldChecks.text(expr.get("operator"))) {
                        case "In" -> has && values.contains(value);
                        case "NotIn" -> !has || !values.contains(value);
                        case "Exists" -> has;
                        case "DoesNotExist" -> !has;
                        default -> false;
                    };
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    @Override
    public List<FieldError> validateUpdate(ObjectNode next, ObjectNode current) {
        List<FieldError> errors = new ArrayList<>(validate(next));
        JsonNode spec = next.path("spec");
        JsonNode old = current.path("spec");
        FieldChecks.immutable(errors, "spec.selector", spec.get("selector"), old.get("selector"));
        FieldChecks.immutable(errors, "spec.completionMode", spec.get("completionMode"), old.get("completionMode"));
        // kube lets a suspended job that never started change its template's scheduling directives; anything
        // else in the template is immutable.
        boolean suspendedNeverStarted =
                old.path("suspend").asBoolean(false) && !current.path("status").has("startTime");
        if (!suspendedNeverStarted) {
            FieldChecks.immutable(errors, "spec.template", spec.get("template"), old.get("template"));
        }
        return errors;
    }

    static ObjectNode object(ObjectNode parent, String field) {
        JsonNode child = parent.get(field);
        if (child instanceof ObjectNode o) {
            return o;
        }
        return parent.putObject(field);
    }
}
