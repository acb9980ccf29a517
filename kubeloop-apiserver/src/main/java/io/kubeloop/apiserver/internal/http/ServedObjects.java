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
