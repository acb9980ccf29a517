package io.kubeloop.apiserver.internal.table;

import java.util.Locale;
import java.util.Objects;

/**
 * What a Table request asked for: the {@code meta.k8s.io} version of the Table ({@code v1} or {@code v1beta1},
 * from the Accept header) and the {@code includeObject} query parameter.
 *
 * @param version {@code v1} or {@code v1beta1}
 * @param includeObject what each row's {@code object} holds
 */
public record TableOptions(String version, IncludeObject includeObject) {

    /** {@code includeObject}: nothing, the object's metadata (the default) or the whole object. */
    public enum IncludeObject {
        None,
        Metadata,
        Object
    }

    public TableOptions {
        Objects.requireNonNull(version, "version");
        Objects.requireNonNull(includeObject, "includeObject");
    }

    /**
     * The options of a request; {@code includeObject} null or empty means Metadata.
     *
     * @throws IllegalArgumentException with kube-apiserver's 400 message for any other includeObject value
     */
    public static TableOptions of(String version, String includeObject) {
        if (includeObject == null || includeObject.isEmpty()) {
            return new TableOptions(version, IncludeObject.Metadata);
        }
        for (IncludeObject value : IncludeObject.values()) {
            if (value.name().equals(includeObject)) {
                return new TableOptions(version, value);
            }
        }
        throw new IllegalArgumentException(String.format(
                Locale.ROOT,
                "Unable to convert to Table as requested: "
                        + "includeObject: Invalid value: \"%s\": must be 'Metadata', 'Object', 'None', or empty",
                includeObject));
    }

    /** {@code meta.k8s.io/v1} or {@code meta.k8s.io/v1beta1}. */
    String apiVersion() {
        return "meta.k8s.io/" + version;
    }
}
