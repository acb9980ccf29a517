package io.kubeloop.controller;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Finalizers on an object (controller-runtime's {@code AddFinalizer}, {@code RemoveFinalizer},
 * {@code ContainsFinalizer}). A finalizer keeps a deleted object (with a {@code deletionTimestamp}) until every
 * finalizer is removed: the way a controller cleans up outside resources before its object goes.
 *
 * <pre>{@code
 * Widget w = client.get(Widget.class, request).orElseThrow();          // a copy
 * if (w.getMetadata().getDeletionTimestamp() == null) {
 *     if (Finalizers.add(w, "example.com/cleanup")) client.update(w);
 * } else if (Finalizers.contains(w, "example.com/cleanup")) {
 *     cleanUpOutside(w);
 *     Finalizers.remove(w, "example.com/cleanup");
 *     client.update(w);
 * }
 * }</pre>
 *
 * <p>The methods change {@code object} in place (a copy, never a cached object) and say whether they changed it, so
 * that a controller writes only when needed.
 */
public final class Finalizers {

    private Finalizers() {}

    /**
     * Adds {@code finalizer} unless present.
     *
     * @return whether {@code object} changed
     */
    public static boolean add(HasMetadata object, String finalizer) {
        requireFinalizer(finalizer);
        ObjectMeta meta = metadata(object);
        List<String> finalizers = meta.getFinalizers();
        if (finalizers != null && finalizers.contains(finalizer)) {
            return false;
        }
        List<String> changed = finalizers == null ? new ArrayList<>() : new ArrayList<>(finalizers);
        changed.add(finalizer);
        meta.setFinalizers(changed);
        return true;
    }

    /**
     * Removes every occurrence of {@code finalizer}.
     *
     * @return whether {@code object} changed
     */
    public static boolean remove(HasMetadata object, String finalizer) {
        requireFinalizer(finalizer);
        ObjectMeta meta = metadata(object);
        List<String> finalizers = meta.getFinalizers();
        if (finalizers == null || !finalizers.contains(finalizer)) {
            return false;
        }
        List<String> changed = new ArrayList<>(finalizers);
        changed.removeIf(finalizer::equals);
        meta.setFinalizers(changed);
        return true;
    }

    /** Whether {@code object} has {@code finalizer}. */
    public static boolean contains(HasMetadata object, String finalizer) {
        requireFinalizer(finalizer);
        ObjectMeta meta = Objects.requireNonNull(object, "object").getMetadata();
        return meta != null
                && meta.getFinalizers() != null
                && meta.getFinalizers().contains(finalizer);
    }

    private static void requireFinalizer(String finalizer) {
        if (finalizer == null || finalizer.isBlank()) {
            throw new IllegalArgumentException("a finalizer is a non-empty name such as \"example.com/cleanup\", was "
                    + (finalizer == null ? "null" : "\"" + finalizer + "\""));
        }
    }

    private static ObjectMeta metadata(HasMetadata object) {
        Objects.requireNonNull(object, "object");
        ObjectMeta meta = object.getMetadata();
        if (meta == null) {
            meta = new ObjectMeta();
            object.setMetadata(meta);
        }
        return meta;
    }
}
