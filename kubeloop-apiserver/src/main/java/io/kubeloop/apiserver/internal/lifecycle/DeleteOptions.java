package io.kubeloop.apiserver.internal.lifecycle;

import io.kubeloop.apiserver.internal.storage.Preconditions;
import io.kubeloop.model.Statuses;
import io.kubeloop.model.Statuses.FieldError;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import tools.jackson.databind.JsonNode;

/**
 * A delete's {@code DeleteOptions}, from its body and its query parameters (a field in the body wins).
 *
 * @param gracePeriodSeconds the grace period asked for, or null for the object's default; only pods use it
 * @param propagation how dependents are treated: explicit policy, legacy {@code orphanDependents}, or null for
 *     the default (the object's own orphan/foregroundDeletion finalizer, else Background)
 * @param preconditions uid and resourceVersion the object must still have
 * @param dryRun true for {@code dryRun=All}: decide everything, store nothing
 */
public record DeleteOptions(
        Long gracePeriodSeconds, Propagation propagation, Preconditions preconditions, boolean dryRun) {

    /** kube's {@code propagationPolicy} values. */
    public enum Propagation {
        /** Delete the object now; the garbage collector deletes its dependents afterwards. */
        Background,
        /** Delete the dependents first (finalizer {@code foregroundDeletion}), then the object. */
        Foreground,
        /** Remove the object's owner reference from its dependents (finalizer {@code orphan}), keep them. */
        Orphan
    }

    public DeleteOptions {
        Objects.requireNonNull(preconditions, "preconditions");
    }

    static DeleteOptions of(Long gracePeriodSeconds, Propagation propagation, Preconditions preconditions) {
        return new DeleteOptions(gracePeriodSeconds, propagation, preconditions, false);
    }

    /**
     * Reads the options of a DELETE: {@code body} (a DeleteOptions object, or null when the request had none)
     * and the query parameters {@code gracePeriodSeconds}, {@code propagationPolicy}, {@code orphanDependents}
     * and {@code dryRun}.
     *
     * @throws LifecycleException 400 for a value that is not a number, 422 for an unknown propagation policy or
     *     for both {@code orphanDependents} and {@code propagationPolicy}
     */
    public static DeleteOptions parse(JsonNode body, Map<String, String> query) {
        JsonNode b = body == null ? tools.jackson.databind.node.MissingNode.getInstance() : body;
        Long grace = b.hasNonNull("gracePeriodSeconds")
                ? Long.valueOf(b.get("gracePeriodSeconds").asLong())
                : longParam(query, "gracePeriodSeconds");
        String policy = b.hasNonNull("propagationPolicy")
                ? b.get("propagationPolicy").asString()
                : query.get("propagationPolicy");
        Boolean orphan = b.hasNonNull("orphanDependents")
                ? Boolean.valueOf(b.get("orphanDependents").asBoolean())
                : booleanParam(query, "orphanDependents");
        if (policy != null && policy.isEmpty()) {
            policy = null;
        }
        if (policy != null && orphan != null) {
            throw invalid(new FieldError(
                    "Invalid value",
                    "propagationPolicy",
                    "\"" + policy + "\": orphanDependents and deletionPropagation cannot be both set"));
        }
        Propagation propagation = null;
        if (policy != null) {
            propagation = switch (policy) {
                case "Background" -> Propagation.Background;
                case "Foreground" -> Propagation.Foreground;
                case "Orphan" -> Propagation.Orphan;
                default ->
                    throw invalid(new FieldError(
                            "Unsupported value",
                            "propagationPolicy",
                            "\"" + policy
                                    + "\": supported values: \"Foreground\", \"Background\", \"Orphan\", \"nil\""));
            };
        } else if (orphan != null) {
            propagation = orphan ? Propagation.Orphan : Propagation.Background;
        }
        JsonNode pre = b.path("preconditions");
        Preconditions preconditions =
                new Preconditions(textOrNull(pre.get("uid")), textOrNull(pre.get("resourceVersion")));
        String dryRun = b.path("dryRun").isArray() && !b.path("dryRun").isEmpty()
                ? b.path("dryRun").get(0).asString()
                : query.get("dryRun");
        if (dryRun != null && !dryRun.equals("All")) {
            throw new LifecycleException(
                    Statuses.badRequest("Invalid dry run value: " + dryRun + " (only \"All\" is supported)"));
        }
        return new DeleteOptions(grace, propagation, preconditions, dryRun != null);
    }

    private static LifecycleException invalid(FieldError error) {
        return new LifecycleException(Statuses.invalid("meta.k8s.io", "DeleteOptions", "", List.of(error)));
    }

    private static Long longParam(Map<String, String> query, String name) {
        String value = query.get(name);
        if (value == null || value.isEmpty()) {
            return null;
        }
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw new LifecycleException(Statuses.badRequest("invalid " + name + " " + value + ": must be an integer"));
        }
    }

    private static Boolean booleanParam(Map<String, String> query, String name) {
        String value = query.get(name);
        if (value == null || value.isEmpty()) {
            return null;
        }
        return switch (value) {
            case "true" -> Boolean.TRUE;
            case "false" -> Boolean.FALSE;
            default ->
                throw new LifecycleException(
                        Statuses.badRequest("invalid " + name + " " + value + ": must be true or false"));
        };
    }

    private static String textOrNull(JsonNode node) {
        return node == null || node.isNull() ? null : node.asString();
    }
}
