package io.kubeloop.client.internal;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.ObjectReader;

/**
 * Jackson readers for values in the middle of a stream, and Jackson errors turned into messages that never quote
 * the data. The decoders' default mapper is the client's one mapper, {@code Decoding.standard().mapper()}. Internal:
 * shared by the list and watch decoders.
 */
public final class JacksonMessages {

    private JacksonMessages() {}

    /**
     * A reader of one {@code type} value from a parser positioned on it, leaving the parser on the value's last
     * token: what follows is the rest of the stream, so trailing tokens are not an error (Jackson 3 fails on them
     * by default, even when given a parser).
     */
    public static ObjectReader valueReader(ObjectMapper mapper, Class<?> type) {
        return mapper.readerFor(type).without(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    }

    /**
     * A Jackson error for a message, without the data it quotes: a malformed token or a mistyped value may be a
     * Secret's data, which must never reach an exception message. Jackson quotes values in {@code "..."} or
     * {@code '...'} and names types in backticks, which are kept; the path names the fields. Bounded in length.
     */
    public static String describe(JacksonException e) {
        String message = redact(e.getOriginalMessage());
        // The path names fields and map keys (schema, not values) and is kept.
        String path = e.getPath().isEmpty() ? "" : " (at " + e.getPathReference() + ")";
        return bounded(message + path);
    }

    /** Quoted text replaced by {@code "..."}, bounded in length. */
    public static String redact(String text) {
        if (text == null) {
            return "";
        }
        return bounded(text.replaceAll("\"[^\"]*\"", "\"...\"").replaceAll("'[^']*'", "'...'"));
    }

    private static String bounded(String text) {
        String oneLine = text.replace('\n', ' ');
        return oneLine.length() <= 300 ? oneLine : oneLine.substring(0, 300) + "...";
    }
}
