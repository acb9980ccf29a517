package io.kubeloop.apiserver.internal.patch;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import tools.jackson.core.json.JsonReadFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** Test helpers: lenient JSON literals (single quotes, unquoted names, comments) and tree assertions. */
final class Trees {

    static final JsonMapper LENIENT = JsonMapper.builder()
            .enable(JsonReadFeature.ALLOW_SINGLE_QUOTES)
            .enable(JsonReadFeature.ALLOW_UNQUOTED_PROPERTY_NAMES)
            .enable(JsonReadFeature.ALLOW_JAVA_COMMENTS)
            .enable(JsonReadFeature.ALLOW_TRAILING_COMMA)
            .build();

    private Trees() {}

    static JsonNode json(String text) {
        return LENIENT.readTree(text);
    }

    static JsonNode resource(String name) {
        try (InputStream in = Trees.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalArgumentException("no resource " + name);
            }
            return LENIENT.readTree(in);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Asserts equal trees, member order ignored, list order significant; shows both on failure. */
    static void assertTree(JsonNode actual, JsonNode expected) {
        assertThat(JsonValues.canonical(actual)).isEqualTo(JsonValues.canonical(expected));
    }

    static void assertTree(JsonNode actual, String expected) {
        assertTree(actual, json(expected));
    }
}
