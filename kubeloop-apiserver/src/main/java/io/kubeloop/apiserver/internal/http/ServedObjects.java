package io.kubeloop.apiserver.internal.http;

import io.kubeloop.model.ResourceType;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * Stored objects as a request's version serves them, shared by the read, write and watch endpoints: a custom
 * resource is stored once for all its versions (conversion strategy None), so only its apiVersion changes; the
 * JSON answers come from each object's cached serialization ({@link SerializedObjects}).
 */
final class ServedObjects {

    private final JsonMapper json;
    private final SerializedObjects serialized;

    ServedObjects(JsonMapper json, SerializedObjects serialized) {
        this.json = json;
        this.serialized = serialized;
    }

    /** The cached serializations of stored objects. */
    SerializedObjects serialized() {
        return serialized;
    }

    /** {@code object} as served at {@code type}'s version (itself when its apiVersion is already that). */
    ObjectNode served(ResourceType type, ObjectNode object) {
        if (servedAsStored(type, object)) {
            return object;
        }
        ObjectNode copy = json.createObjectNode();
        for (Map.Entry<String, JsonNode> field : object.properties()) {
            copy.set(
                    field.getKey(),
                    field.getKey().equals("apiVersion")
                            ? json.getNodeFactory().stringNode(type.gvk().apiVersion())
                            : field.getValue());
        }
        return copy;
    }

    /**
     * {@code object} as a meta.k8s.io PartialObjectMetadata of {@code apiVersion}: its metadata only (sharing the
     * stored node, which is never changed). A Status (a watch's ERROR event) stays itself.
     */
    ObjectNode partial(String apiVersion, ObjectNode object) {
        if ("Status".equals(object.path("kind").asString(""))
                && "v1".equals(object.path("apiVersion").asString(""))) {
            return object;
        }
        ObjectNode partial = json.createObjectNode();
        partial.put("kind", "PartialObjectMetadata");
        partial.put("apiVersion", apiVersion);
        JsonNode metadata = object.get("metadata");
        partial.set("metadata", metadata == null ? json.createObjectNode() : metadata);
        return partial;
    }

    /**
     * The 406 kube-apiserver answers when the metadata-only view asked for does not fit the answer: a
     * PartialObjectMetadataList of one object, or a PartialObjectMetadata of a list. Its message names the Go type
     * kube would have served.
     */
    static ApiException partialMismatch(Negotiated negotiated, ResourceType type, boolean custom, boolean list) {
        String goType = custom
                ? (list ? "*unstructured.UnstructuredList" : "*unstructured.Unstructured")
                : "*" + type.version() + "." + (list ? type.listKind() : type.kind());
        String message = list
                ? "you requested PartialObjectMetadata, but the requested object is a list (" + goType + ")"
                : "you requested PartialObjectMetadataList, but the requested object is not a list (" + goType + ")";
        return new ApiException(
                io.kubeloop.model.Statuses.failure(io.kubeloop.model.StatusReason.NotAcceptable, message));
    }

    /** Whether {@link #served} leaves {@code object} as it is. */
    static boolean servedAsStored(ResourceType type, ObjectNode object) {
        JsonNode apiVersion = object.get("apiVersion");
        return apiVersion == null || apiVersion.asString().equals(type.gvk().apiVersion());
    }

    /** The apiVersion field {@link #served} gives a re-versioned object, for {@link SerializedObject#writeTo}. */
    byte[] servedApiVersion(ResourceType type) {
        return SerializedObject.field(json, "apiVersion", type.gvk().apiVersion());
    }

    /**
     * Writes {@code stored} as {@link #served} gives it, from its cached serialization: as stored, or with
     * {@code apiVersionField} (what {@link #servedApiVersion} gives for {@code type}) in place of its apiVersion.
     */
    void writeServed(OutputStream out, ResourceType type, ObjectNode stored, byte[] apiVersionField)
            throws IOException {
        SerializedObject object = serialized.of(stored);
        if (servedAsStored(type, stored)) {
            object.writeTo(out);
        } else {
            object.writeTo(out, apiVersionField);
        }
    }
}
