package io.kubeloop.apiserver.internal.registry;

import io.kubeloop.apiserver.internal.types.BuiltInTypes;
import io.kubeloop.apiserver.internal.types.GoType;
import io.kubeloop.apiserver.internal.types.TypeCheck;
import io.kubeloop.model.ResourceType;
import io.kubeloop.model.Statuses;
import io.kubeloop.model.Statuses.FieldError;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * Runs kube-apiserver's admission of a write between decoding and storage, in kube's order: the decoded body
 * (or the result of a patch) is type-checked against its kind ({@link #decoded}, {@link #patched}); then, after
 * the server's metadata rules, the resource's {@link ResourceStrategy} defaults, prepares and validates it
 * ({@link #create}, {@link #update}). Failures are {@link AdmissionException}s: 400 for what cannot be decoded
 * into the kind, 422 Invalid listing every problem of a decodable object.
 *
 * <p>Type checking ({@link TypeCheck}) covers the built-in kinds that have a type table ({@link BuiltInTypes});
 * custom resources keep their CRD schema's rules and get only the duplicate-field reporting here.
 */
public final class Admission {

    /** How a patched object was produced: kube words a bad result differently per patch type. */
    public enum PatchType {
        JSON,
        MERGE,
        STRATEGIC,
        APPLY
    }

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final Strategies strategies;

    public Admission(Strategies strategies) {
        this.strategies = strategies;
    }

    /**
     * The object a create or update body decoded to, checked against {@code type}'s kind as kube's decoder checks
     * it: returns the object to continue with (unknown fields dropped, with warnings under
     * {@code fieldValidation=Warn}), or throws a 400 {@code <Kind> in version "<v>" cannot be handled as a <Kind>:
     * ...} naming the field, what it holds and the Go type it needs, or under {@code Strict} every unknown and
     * duplicate field.
     */
    public ObjectNode decoded(ResourceType type, ObjectNode object, WriteOptions options) {
        String prefix =
                type.kind() + " in version \"" + type.version() + "\" cannot be handled as a " + type.kind() + ": ";
        List<String> unknown;
        try {
            unknown = check(type, object);
        } catch (TypeCheck.Mismatch m) {
            throw new AdmissionException(Statuses.badRequest(prefix + m.goMessage()));
        }
        report(unknown, options, "", problems -> Statuses.badRequest(prefix + strictError(problems)));
        return object;
    }

    /**
     * The object a patch of {@code patchType} produced, checked as kube checks it: after a JSON, merge or strategic
     * merge patch a value of the wrong type (or, under {@code Strict}, an unknown or duplicate field) is a 422
     * Invalid on the field {@code patch}; after server-side apply it is a 400 {@code failed to create typed patch
     * object (...)}, and an unknown field is always refused there (apply's typed conversion knows no unknown
     * fields; kube answers 500 for it, kubernetes#122480, kubeloop 400).
     */
    public ObjectNode patched(ResourceType type, PatchType patchType, ObjectNode object, WriteOptions options) {
        List<String> unknown;
        try {
            unknown = check(type, object);
        } catch (TypeCheck.Mismatch m) {
            throw new AdmissionException(
                    patchType == PatchType.APPLY
                            ? Statuses.badRequest(typedPatchPrefix(type, object) + m.typedMessage())
                            : invalidPatch(object, m.goMessage()));
        }
        if (patchType == PatchType.APPLY) {
            if (!unknown.isEmpty()) {
                throw new AdmissionException(Statuses.badRequest(typedPatchPrefix(type, object)
                        + String.join(
                                "\n",
                                unknown.stream()
                                        .map(path -> "." + path + ": field not declared in schema")
                                        .toList())));
            }
            report(
                    List.of(),
                    options,
                    "",
                    problems -> Statuses.badRequest("error strict decoding YAML: error converting YAML to JSON: "
                            + "yaml: unmarshal errors:\n  " + String.join("\n  ", problems)));
            return object;
        }
        report(
                unknown,
                options,
                patchType == PatchType.JSON ? "json patch " : "",
                problems -> invalidPatch(object, strictError(problems)));
        return object;
    }

    private static List<String> check(ResourceType type, ObjectNode object) {
        Optional<GoType> table = BuiltInTypes.of(type.gvk().apiVersion(), type.kind());
        return table.isPresent() ? TypeCheck.check(table.get(), object) : List.of();
    }

    /**
     * Reports the body's duplicate fields and the object's unknown fields per {@code fieldValidation}. A JSON
     * duplicate of a field that is unknown anyway is reported once, as unknown, as kube's typed decoding does.
     */
    private static void report(
            List<String> unknown,
            WriteOptions options,
            String duplicatePrefix,
            Function<List<String>, io.fabric8.kubernetes.api.model.Status> strict) {
        List<FieldProblems.Problem> found = options.fieldProblems().drain();
        if (options.fieldValidation() == FieldValidation.IGNORE || (found.isEmpty() && unknown.isEmpty())) {
            return;
        }
        List<String> problems = new ArrayList<>();
        for (FieldProblems.Problem p : found) {
            if (p.duplicatePath() == null || !underAny(p.duplicatePath(), unknown)) {
                problems.add(p.duplicatePath() == null ? p.text() : duplicatePrefix + p.text());
            }
        }
        for (String path : unknown) {
            problems.add("unknown field \"" + path + "\"");
        }
        if (problems.isEmpty()) {
            return;
        }
        if (options.fieldValidation() == FieldValidation.STRICT) {
            throw new AdmissionException(strict.apply(problems));
        }
        problems.forEach(options.warnings()::add);
    }

    private static boolean underAny(String path, List<String> unknown) {
        for (String u : unknown) {
            if (path.equals(u) || path.startsWith(u + ".") || path.startsWith(u + "[")) {
                return true;
            }
        }
        return false;
    }

    private static String strictError(List<String> problems) {
        return "strict decoding error: " + String.join(", ", problems);
    }

    /** kube's {@code errors.NewInvalid(schema.GroupKind{}, "", field.Invalid(field.NewPath("patch"), ...))}. */
    private static io.fabric8.kubernetes.api.model.Status invalidPatch(ObjectNode patched, String detail) {
        String value = JSON.writeValueAsString(JSON.getNodeFactory().stringNode(JSON.writeValueAsString(patched)));
        return Statuses.invalid("", "", "", List.of(new FieldError("Invalid value", "patch", value + ": " + detail)));
    }

    /** structured-merge-diff's {@code failed to create typed patch object (<ns>/<name>; <group>/<v>, Kind=<Kind>): }. */
    private static String typedPatchPrefix(ResourceType type, ObjectNode object) {
        return "failed to create typed patch object ("
                + object.path("metadata").path("namespace").asString("") + "/"
                + object.path("metadata").path("name").asString("") + "; " + type.group() + "/" + type.version()
                + ", Kind=" + type.kind() + "): ";
    }

    /**
     * kube's defaulting alone ({@code SetDefaults_*}, which kube runs while decoding): for a create, before the
     * field manager records the write, so that the defaults are the creator's fields. {@link #create} defaults again
     * (defaulting is idempotent).
     */
    public void defaults(ResourceType type, ObjectNode object) {
        strategies.of(type).applyDefaults(object);
    }

    /** A new object, after the server's metadata rules: defaulted, prepared and validated. */
    public void create(ResourceType type, ObjectNode object, WriteOptions options) {
        ResourceStrategy strategy = strategies.of(type);
        strategy.applyDefaults(object);
        strategy.prepareForCreate(object);
        List<FieldError> errors = new ArrayList<>(strategy.validate(object));
        reject(type, object, errors);
        strategy.warnings(object).forEach(options.warnings()::add);
    }

    /**
     * A replacement of {@code current} through the main resource ({@code subresource} "" or "scale") or
     * {@code /status}, after the server's metadata rules: defaulted, prepared and validated.
     */
    public void update(
            ResourceType type, ObjectNode current, ObjectNode next, String subresource, WriteOptions options) {
        ResourceStrategy strategy = strategies.of(type);
        List<FieldError> errors;
        if (subresource.equals("status")) {
            strategy.prepareForStatusUpdate(next, current);
            errors = new ArrayList<>(strategy.validateStatusUpdate(next, current));
        } else {
            strategy.applyDefaults(next);
            strategy.prepareForUpdate(next, current);
            errors = new ArrayList<>(strategy.validateUpdate(next, current));
        }
        reject(type, next, errors);
        strategy.warnings(next).forEach(options.warnings()::add);
    }

    private static void reject(ResourceType type, ObjectNode object, List<FieldError> errors) {
        if (!errors.isEmpty()) {
            throw new AdmissionException(Statuses.invalid(
                    type.group(),
                    type.kind(),
                    object.path("metadata").path("name").asString(""),
                    errors));
        }
    }
}
