package io.kubeloop.apiserver.internal.http;

import io.kubeloop.model.Statuses;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * kube-apiserver's list continue token: unpadded base64url of {@code {"v":"meta.k8s.io/v1","rv":N,"start":KEY}}.
 * Clients treat it as opaque; the server decodes the revision of the first page (for a consistent snapshot)
 * and where the next page starts.
 */
record ContinueToken(long revision, String start) {

    String encode(JsonMapper json) {
        ObjectNode node = json.createObjectNode();
        node.put("v", "meta.k8s.io/v1");
        node.put("rv", revision);
        node.put("start", start);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(json.writeValueAsBytes(node));
    }

    /** Decodes a token; a malformed one is a 400 BadRequest, as in kube-apiserver. */
    static ContinueToken decode(JsonMapper json, String token) {
        try {
            JsonNode node = json.readTree(new String(Base64.getUrlDecoder().decode(token), StandardCharsets.UTF_8));
            if (!"meta.k8s.io/v1".equals(node.path("v").asString())
                    || !node.path("rv").canConvertToLong()
                    || node.path("rv").asLong() <= 0
                    || !node.path("start").isString()) {
                throw new IllegalArgumentException("unexpected fields");
            }
            return new ContinueToken(node.get("rv").asLong(), node.get("start").asString());
        } catch (JacksonException e) {
            // The parser's own text, without its location (which names the library's settings).
            throw new ApiException(Statuses.badRequest("continue key is not valid: " + e.getOriginalMessage()));
        } catch (IllegalArgumentException e) {
            throw new ApiException(Statuses.badRequest("continue key is not valid: " + e.getMessage()));
        }
    }
}
