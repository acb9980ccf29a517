package io.kubeloop.client.resource;

import io.kubeloop.client.codec.Decoding;
import tools.jackson.databind.json.JsonMapper;

/**
 * The client's one {@link JsonMapper}, shared with {@link Decoding#standard()} and the watch decoders so that each
 * model class is introspected once: fabric8's model classes carry their own Jackson 3 annotations (null fields left
 * out, unknown fields kept in {@code additionalProperties}); unknown fields never fail a read, so a newer server's
 * fields do not break an older client.
 */
final class Json {
    static final JsonMapper MAPPER = Decoding.standard().mapper();

    private Json() {}
}
