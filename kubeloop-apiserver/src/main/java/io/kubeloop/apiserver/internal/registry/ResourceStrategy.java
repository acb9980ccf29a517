package io.kubeloop.apiserver.internal.registry;

import io.kubeloop.model.Statuses.FieldError;
import java.util.List;
import tools.jackson.databind.node.ObjectNode;

/**
 * What kube-apiserver's registry strategy (and its {@code SetDefaults_*} functions) does for one built-in
 * resource. {@link Admission} calls the methods in kube's order; every method has a do-nothing default, so a
 * strategy states only what its resource adds. Objects are JSON trees already type-checked against the kind
 * (so {@code spec.replicas}, when present, is an integer); the server's own metadata rules (uid,
 * resourceVersion, names, managedFields) have run before.
 *
 * <p>Invariant: {@code validate*} never change the object; {@code applyDefaults} and {@code prepare*} only
 * change it. Field paths in errors are kube's ({@code spec.template.spec.containers[0].image}).
 */
public interface ResourceStrategy {

    /**
     * kube's defaulting ({@code SetDefaults_*}): fills what the client left out. Runs on every write of the main
     * resource (kube defaults at decoding, so an update is defaulted too), before the {@code prepare*} methods.
     */
    default void applyDefaults(ObjectNode object) {}

    /** {@code PrepareForCreate}: server-owned fields of a new object (status reset, phase...). */
    default void prepareForCreate(ObjectNode object) {}

    /** {@code PrepareForUpdate} of the main resource: {@code next} keeps what a spec write may not change. */
    default void prepareForUpdate(ObjectNode next, ObjectNode current) {}

    /** {@code PrepareForUpdate} of {@code /status}: {@code next} keeps {@code current}'s everything but status. */
    default void prepareForStatusUpdate(ObjectNode next, ObjectNode current) {}

    /** {@code Validate}: the problems of a new object, none when valid. */
    default List<FieldError> validate(ObjectNode object) {
        return List.of();
    }

    /**
     * {@code ValidateUpdate} of the main resource: the problems of {@code next} itself (usually {@link
     * #validate}) and of the change from {@code current} (immutable fields).
     */
    default List<FieldError> validateUpdate(ObjectNode next, ObjectNode current) {
        return validate(next);
    }

    /** {@code ValidateUpdate} of {@code /status}. */
    default List<FieldError> validateStatusUpdate(ObjectNode next, ObjectNode current) {
        return List.of();
    }

    /** Warnings kube gives for a valid object ({@code WarningsOnCreate}/{@code WarningsOnUpdate}). */
    default List<String> warnings(ObjectNode object) {
        return List.of();
    }
}
