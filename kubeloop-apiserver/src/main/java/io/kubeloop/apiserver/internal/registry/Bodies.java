package io.kubeloop.apiserver.internal.registry;

import io.kubeloop.model.Statuses;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * Request bodies (objects and patches) parsed into JSON trees, as kube-apiserver's decoders read them; a body
 * that is not well-formed is a 400 naming what was wrong.
 */
public final class Bodies {

    private static final YAMLMapper YAML = YAMLMapper.builder().build();

    private final JsonMapper json;

    public Bodies(JsonMapper json) {
        this.json = json;
    }

    /** A JSON body. */
    public JsonNode json(byte[] body, WriteOptions options) {
        try {
            return json.readTree(body);
        } catch (JacksonException e) {
            throw new AdmissionException(
                    Statuses.badRequest("couldn't get version/kind; json parse error: " + e.getOriginalMessage()));
        }
    }

    /** A YAML body (of which JSON is a subset): {@code application/yaml} objects and apply patches. */
    public JsonNode yaml(byte[] body, WriteOptions options) {
        try {
            JsonNode node = YAML.readTree(body);
            return node == null || node.isMissingNode() ? json.createObjectNode() : node;
        } catch (JacksonException e) {
            throw new AdmissionException(
                    Statuses.badRequest("error converting YAML to JSON: " + e.getOriginalMessage()));
        }
    }
}
