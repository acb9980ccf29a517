package io.kubeloop.client.resource;

import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * The client's one {@link JsonMapper}: fabric8's model classes carry their own Jackson 3 annotations
 * (null fields left out, unknown fields kept in {@code additionalProperties}); unknown fields never fail a read,
 * so a newer server's fields do not break an older client.
 */
final class Json {
    static final JsonMapper MAPPER = JsonMapper.builder()
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .build();

    private Json() {}
}
