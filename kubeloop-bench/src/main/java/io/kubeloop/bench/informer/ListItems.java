package io.kubeloop.bench.informer;

import java.io.InputStream;
import java.util.function.Consumer;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.ObjectReader;

/**
 * Decodes the items of a list response one at a time with Jackson's streaming parser, as
 * {@code ResourceClient.list} does inside the client: only one item is held at a time, never a JSON tree of the
 * page. The benchmark uses it to time decoding without the network; the client keeps its own copy private.
 */
final class ListItems<T> {

    private final ObjectMapper mapper;
    /** Binds one item in the middle of the stream, where more tokens follow by design. */
    private final ObjectReader items;

    ListItems(Class<T> type, ObjectMapper mapper) {
        this.mapper = mapper;
        this.items = mapper.readerFor(type).without(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    }

    /** Hands every item of the list in {@code body} to {@code onItem}; returns how many there were. */
    long decode(InputStream body, Consumer<? super T> onItem) {
        long count = 0;
        try (JsonParser p = mapper.createParser(body)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw new IllegalArgumentException("a list response is a JSON object");
            }
            while (p.nextToken() == JsonToken.PROPERTY_NAME) {
                String field = p.currentName();
                JsonToken value = p.nextToken();
                if (field.equals("items") && value == JsonToken.START_ARRAY) {
                    while (p.nextToken() == JsonToken.START_OBJECT) {
                        onItem.accept(items.readValue(p));
                        count++;
                    }
                } else {
                    p.skipChildren();
                }
            }
        }
        return count;
    }
}
