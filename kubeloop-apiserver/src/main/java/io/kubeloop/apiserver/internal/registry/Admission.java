package io.kubeloop.apiserver.internal.registry;

import io.kubeloop.model.ResourceType;
import io.kubeloop.model.Statuses;
import io.kubeloop.model.Statuses.FieldError;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.node.ObjectNode;

/**
 * Runs kube-apiserver's admission of a write between decoding and storage, in kube's order: the decoded body
 * (or the result of a patch) is type-checked against its kind ({@link #decoded}); then, after the server's
 * metadata rules, the resource's {@link ResourceStrategy} defaults, prepares and validates it ({@link #create},
 * {@link #update}). Failures are {@link AdmissionException}s: 400 for what cannot be decoded into the kind,
 * 422 Invalid listing every problem of a decodable object.
 */
public final class Admission {

    private final Strategies strategies;

    public Admission(Strategies strategies) {
        this.strategies = strategies;
    }

    /**
     * The object a create or update body decoded to, or a patch produced, checked against {@code type}'s kind as
     * kube's decoder checks it: returns the object to continue with (unknown fields dropped, with warnings), or
     * throws a 400 naming the field, what it holds and the type it needs.
     */
    public ObjectNode decoded(ResourceType type, ObjectNode object, WriteOptions options) {
        return object;
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
