package io.kubeloop.model;

import io.fabric8.kubernetes.api.model.ListMeta;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.StatusCause;
import io.fabric8.kubernetes.api.model.StatusDetails;
import java.util.List;

/**
 * {@code Status} objects worded exactly as kube-apiserver words them, so that kubectl prints the same
 * {@code Error from server (NotFound): pods "x" not found} and clients can match on reason and details.
 *
 * <p>Resources are named as kube-apiserver names them in messages: the plural, qualified by the group
 * when there is one ({@code pods}, {@code deployments.apps}).
 */
public final class Statuses {

    private Statuses() {}

    /** A failure Status with the given reason and message, and no details. */
    public static Status failure(StatusReason reason, String message) {
        Status s = new Status();
        s.setApiVersion("v1");
        s.setKind("Status");
        s.setMetadata(new ListMeta());
        s.setStatus("Failure");
        s.setReason(reason.name());
        s.setMessage(message);
        s.setCode(reason.code());
        return s;
    }

    /** {@code pods "x" not found}. */
    public static Status notFound(String group, String plural, String name) {
        Status s = failure(StatusReason.NotFound, qualified(group, plural) + " \"" + name + "\" not found");
        s.setDetails(details(group, plural, name));
        return s;
    }

    /** {@code pods "x" already exists}. */
    public static Status alreadyExists(String group, String plural, String name) {
        Status s = failure(StatusReason.AlreadyExists, qualified(group, plural) + " \"" + name + "\" already exists");
        s.setDetails(details(group, plural, name));
        return s;
    }

    /** A stale {@code resourceVersion} on update. */
    public static Status conflict(String group, String plural, String name) {
        return conflict(
                group,
                plural,
                name,
                "the object has been modified; please apply your changes to the latest version and try again");
    }

    /** {@code Operation cannot be fulfilled on pods "x": <why>}. */
    public static Status conflict(String group, String plural, String name, String why) {
        Status s = failure(
                StatusReason.Conflict,
                "Operation cannot be fulfilled on " + qualified(group, plural) + " \"" + name + "\": " + why);
        s.setDetails(details(group, plural, name));
        return s;
    }

    /** A 410 Expired, e.g. {@code too old resource version: 5 (99)}. */
    public static Status expired(String message) {
        return failure(StatusReason.Expired, message);
    }

    /** A 400 BadRequest with kube-apiserver's message. */
    public static Status badRequest(String message) {
        return failure(StatusReason.BadRequest, message);
    }

    /** An unknown route: {@code the server could not find the requested resource}, with empty details. */
    public static Status routeNotFound() {
        Status s = failure(StatusReason.NotFound, "the server could not find the requested resource");
        s.setDetails(new StatusDetails());
        return s;
    }

    /** One field error of an {@link #invalid} Status: {@code metadata.name: Required value: name is required}. */
    public record FieldError(String type, String field, String detail) {
        /** kube-apiserver's cause reason for this error type ({@code Required value} → FieldValueRequired). */
        String causeReason() {
            return switch (type) {
                case "Required value" -> "FieldValueRequired";
                case "Invalid value" -> "FieldValueInvalid";
                case "Unsupported value" -> "FieldValueNotSupported";
                case "Duplicate value" -> "FieldValueDuplicate";
                case "Not found" -> "FieldValueNotFound";
                case "Forbidden" -> "FieldValueForbidden";
                case "Too long" -> "FieldValueTooLong";
                case "Too many" -> "FieldValueTooMany";
                default -> "FieldValueInvalid";
            };
        }

        /** {@code Required value: name is required}, or just the type when there is no detail. */
        String message() {
            return detail == null || detail.isEmpty() ? type : type + ": " + detail;
        }
    }

    /**
     * A 422 Invalid: {@code Pod "x" is invalid: metadata.name: Required value: name is required}; several
     * errors are listed as {@code [a, b]}. {@code details.kind} is the Kind, as kube-apiserver sends it.
     */
    public static Status invalid(String group, String kind, String name, List<FieldError> errors) {
        String qualifiedKind = group.isEmpty() ? kind : kind + "." + group;
        List<String> parts =
                errors.stream().map(e -> e.field() + ": " + e.message()).toList();
        String joined = parts.size() == 1 ? parts.get(0) : "[" + String.join(", ", parts) + "]";
        Status s = failure(StatusReason.Invalid, qualifiedKind + " \"" + name + "\" is invalid: " + joined);
        StatusDetails d = new StatusDetails();
        d.setName(name);
        d.setGroup(group);
        d.setKind(kind);
        d.setCauses(errors.stream()
                .map(e -> {
                    StatusCause c = new StatusCause();
                    c.setReason(e.causeReason());
                    c.setMessage(e.message());
                    c.setField(e.field());
                    return c;
                })
                .toList());
        s.setDetails(d);
        return s;
    }

    /** {@code pods} or {@code deployments.apps}. */
    public static String qualified(String group, String plural) {
        return group.isEmpty() ? plural : plural + "." + group;
    }

    private static StatusDetails details(String group, String plural, String name) {
        StatusDetails d = new StatusDetails();
        d.setName(name);
        d.setGroup(group);
        d.setKind(plural);
        return d;
    }
}
