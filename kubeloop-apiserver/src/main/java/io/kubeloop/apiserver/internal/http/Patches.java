package io.kubeloop.apiserver.internal.http;

import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.StatusCause;
import io.fabric8.kubernetes.api.model.StatusDetails;
import io.kubeloop.apiserver.internal.patch.JsonMergePatch;
import io.kubeloop.apiserver.internal.patch.JsonPatch;
import io.kubeloop.apiserver.internal.patch.PatchException;
import io.kubeloop.apiserver.internal.patch.PatchLimits;
import io.kubeloop.apiserver.internal.patch.PatchSchema;
import io.kubeloop.apiserver.internal.patch.ServerSideApply;
import io.kubeloop.apiserver.internal.patch.StrategicMergePatch;
import io.kubeloop.model.ResourceType;
import io.kubeloop.model.StatusReason;
import io.kubeloop.model.Statuses;
import java.time.Instant;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** The four PATCH content types kube-apiserver accepts, applied to a current object. */
enum Patches {
    JSON_PATCH("application/json-patch+json"),
    MERGE_PATCH("application/merge-patch+json"),
    STRATEGIC_MERGE_PATCH("application/strategic-merge-patch+json"),
    APPLY_PATCH("application/apply-patch+yaml");

    final String mediaType;

    Patches(String mediaType) {
        this.mediaType = mediaType;
    }

    /** The patch type of a Content-Type header; 415 for anything else, as kube-apiserver answers. */
    static Patches of(String contentType) {
        String type = contentType == null ? "" : MediaType.parse(contentType).type();
        for (Patches p : values()) {
            if (p.mediaType.equals(type)) {
                return p;
            }
        }
        throw new ApiException(
                Statuses.failure(
                        StatusReason.UnsupportedMediaType,
                        "the body of the request was "
                                + "in an unknown format - accepted media types include: application/json-patch+json, "
                                + "application/merge-patch+json, application/apply-patch+yaml, application/strategic-merge-patch+json"));
    }

    /**
     * Applies {@code patch} to {@code current} (null only for server-side apply of a missing object) and
     * returns a new tree; the inputs are not changed. The result is bounded by {@link PatchLimits} (413 when
     * larger than a request body may be).
     */
    ObjectNode apply(ResourceType type, JsonNode current, JsonNode patch, String fieldManager, Instant now) {
        PatchSchema schema = PatchSchema.forKind(type.group(), type.version(), type.kind());
        try {
            JsonNode result =
                    switch (this) {
                        case JSON_PATCH -> JsonPatch.apply(current, patch);
                        case MERGE_PATCH -> JsonMergePatch.apply(current, patch);
                        case STRATEGIC_MERGE_PATCH -> StrategicMergePatch.apply(current, patch, schema);
                        case APPLY_PATCH -> ServerSideApply.apply(current, patch, fieldManager, schema, now);
                    };
            if (!result.isObject()) {
                throw new ApiException(Statuses.badRequest("the patched object is not a JSON object"));
            }
            PatchLimits.checkResult(result); // 413 over the request body limit: a patch stores nothing a PUT could not
            return (ObjectNode) result;
        } catch (PatchException e) {
            throw new ApiException(status(e));
        }
    }

    private static Status status(PatchException e) {
        Status s = new Status();
        s.setApiVersion("v1");
        s.setKind("Status");
        s.setMetadata(new io.fabric8.kubernetes.api.model.ListMeta());
        s.setStatus("Failure");
        s.setCode(e.code());
        s.setReason(e.reason());
        s.setMessage(e.getMessage());
        if (e.detail() != null && !e.detail().isEmpty()) {
            StatusDetails d = new StatusDetails();
            StatusCause c = new StatusCause();
            c.setMessage(e.detail());
            d.setCauses(List.of(c));
            s.setDetails(d);
        }
        return s;
    }
}
