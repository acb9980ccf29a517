package io.kubeloop.client.watch;

import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.json.JsonMapper;

/** The mapper the decoders use unless given one. */
final class Json {

    /**
     * Unknown properties are ignored: a newer server may add fields, and fabric8's model classes keep them in
     * {@code additionalProperties} anyway.
     */
    static final JsonMapper MAPPER = JsonMapper.builder()
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .build();

    private Json() {}

    /**
     * A reader of one {@code type} value from a parser positioned on it, leaving the parser on the value's last
     * token: what follows is the rest of the stream, so trailing tokens are not an error (Jackson 3 fails on them
     * by default, even when given a parser).
     */
    static ObjectReader valueReader(ObjectMapper mapper, Class<?> type) {
        return mapper.readerFor(type).without(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    }

    /** A bounded excerpt of a Jackson message: a malformed token may be part of an object's data. */
    static String excerpt(String message) {
        if (message == null) {
            return "";
        }
        String oneLine = message.replace('\n', ' ');
        return oneLine.length() <= 200 ? oneLine : oneLine.substring(0, 200) + "...";
    }
}
