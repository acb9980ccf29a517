package io.kubeloop.client.errors;

import java.util.List;
import java.util.Objects;

/**
 * 422 Invalid: the object failed validation, e.g.
 * {@code ConfigMap "x" is invalid: metadata.name: Required value: name or generateName is required}. Each
 * field error is one of {@link #causes()}; {@code status().getDetails().getKind()} is the Kind (not the
 * plural), as kube-apiserver sends it.
 */
public class InvalidException extends KubernetesApiException {

    private static final long serialVersionUID = 1L;

    InvalidException(ErrorParts parts) {
        super(parts);
    }

    /**
     * One field error: the field path ({@code metadata.name}, {@code spec.containers[0].image}), kube's cause
     * reason ({@code FieldValueRequired}, {@code FieldValueInvalid}, {@code FieldValueNotSupported}, ...) and
     * the message ({@code Required value: name or generateName is required}). Any part the server left out is
     * the empty string.
     */
    public record Cause(String field, String reason, String message) {}

    /** The field errors, in the server's order; empty when the Status lists none. */
    public List<Cause> causes() {
        var details = status().getDetails();
        if (details == null || details.getCauses() == null) {
            return List.of();
        }
        return details.getCauses().stream()
                .filter(Objects::nonNull)
                .map(c -> new Cause(orEmpty(c.getField()), orEmpty(c.getReason()), orEmpty(c.getMessage())))
                .toList();
    }

    private static String orEmpty(String s) {
        return s == null ? "" : s;
    }
}
