package io.kubeloop.client.watch;

import io.fabric8.kubernetes.api.model.ListMeta;
import java.io.InputStream;
import java.util.Objects;
import java.util.function.Consumer;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.exc.JacksonIOException;
import tools.jackson.core.exc.StreamReadException;
import tools.jackson.core.exc.UnexpectedEndOfInputException;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.ObjectReader;

/**
 * Decodes a list response ({@code PodList}, {@code ConfigMapList}, any {@code <Kind>List}) item by item with
 * Jackson's streaming parser: each item is decoded to the requested type and handed to a callback, and only that
 * item is held in memory, so a page of 10,000 objects never exists as a JSON tree or a String. The list's
 * metadata is returned once the whole body has been read, whether it came before or after the items.
 *
 * <pre>{@code
 * ListPage page = ListDecoder.of(Pod.class).decode(response.body(), pod -> cache.put(key(pod), pod));
 * if (page.hasMore()) { ... request the next page with continue=page.continueToken() ... }
 * }</pre>
 *
 * <p>A body that is not a list object, is cut short, malformed, or whose items do not decode to the type, is a
 * {@link WatchDecodeException} naming the item and the byte offset; a failure of the stream itself is a
 * {@link WatchException}. An exception from the callback stops decoding and propagates as is. The decoder does
 * not close the stream. Instances are immutable and thread-safe.
 *
 * @param <T> the type items are decoded to
 */
public final class ListDecoder<T> {

    private final Class<T> type;
    private final ObjectMapper mapper;
    private final ObjectReader items;
    private final ObjectReader listMeta;

    private ListDecoder(Class<T> type, ObjectMapper mapper) {
        this.type = Objects.requireNonNull(type, "type");
        this.mapper = Objects.requireNonNull(mapper, "mapper");
        this.items = Json.valueReader(mapper, type);
        this.listMeta = Json.valueReader(mapper, ListMeta.class);
    }

    /** A decoder of items to {@code type}, with a mapper that ignores unknown properties. */
    public static <T> ListDecoder<T> of(Class<T> type) {
        return new ListDecoder<>(type, Json.MAPPER);
    }

    /** A decoder of items to {@code type} with the given mapper. */
    public static <T> ListDecoder<T> of(Class<T> type, ObjectMapper mapper) {
        return new ListDecoder<>(type, mapper);
    }

    /**
     * Reads the list in {@code body} to its end, handing each item to {@code onItem} in order, and returns the
     * list's metadata.
     */
    public ListPage decode(InputStream body, Consumer<? super T> onItem) {
        Objects.requireNonNull(body, "body");
        Objects.requireNonNull(onItem, "onItem");
        long items = 0;
        JsonParser parser = null;
        try {
            parser = mapper.createParser(body);
            JsonToken start = parser.nextToken();
            if (start != JsonToken.START_OBJECT) {
                throw fail(parser, items, "expected a list object, found " + (start == null ? "an empty body" : start));
            }
            String kind = null;
            ListMeta meta = null;
            for (String name = parser.nextName(); name != null; name = parser.nextName()) {
                JsonToken value = parser.nextToken();
                switch (name) {
                    case "kind" -> kind = value == JsonToken.VALUE_STRING ? parser.getString() : null;
                    case "metadata" -> meta = value == JsonToken.VALUE_NULL ? null : listMeta.<ListMeta>readValue(parser);
                    case "items" -> {
                        if (value == JsonToken.VALUE_NULL) {
                            continue;
                        }
                        if (value != JsonToken.START_ARRAY) {
                            throw fail(parser, items, "\"items\" must be an array, found " + value);
                        }
                        for (JsonToken item = parser.nextToken(); item != JsonToken.END_ARRAY; item = parser.nextToken()) {
                            if (item != JsonToken.START_OBJECT) {
                                throw fail(parser, items, "an item must be an object, found " + item);
                            }
                            T decoded = this.items.readValue(parser);
                            items++;
                            onItem.accept(decoded);
                        }
                    }
                    default -> parser.skipChildren();
                }
            }
            JsonToken trailing = parser.nextToken();
            if (trailing != null) {
                throw fail(parser, items, "unexpected content after the list: " + trailing);
            }
            return new ListPage(kind, meta == null ? null : meta.getResourceVersion(),
                    meta == null ? null : meta.getContinue(), meta == null ? null : meta.getRemainingItemCount(), items);
        } catch (UnexpectedEndOfInputException e) {
            throw fail(parser, items, "the body ended inside the list (truncated): " + Json.describe(e), e);
        } catch (JacksonIOException e) {
            throw new WatchException("reading the list failed after " + items + " items at byte " + offset(parser)
                    + ": " + e.getCause(), e.getCause());
        } catch (StreamReadException e) {
            throw fail(parser, items, "malformed JSON: " + Json.describe(e), e);
        } catch (JacksonException e) {
            throw fail(parser, items, "it does not decode to " + type.getSimpleName() + ": "
                    + Json.describe(e), e);
        }
    }

    private static WatchDecodeException fail(JsonParser parser, long items, String what) {
        return fail(parser, items, what, null);
    }

    private static WatchDecodeException fail(JsonParser parser, long items, String what, Throwable cause) {
        long offset = offset(parser);
        return new WatchDecodeException("list item " + (items + 1) + " (at byte " + offset + "): " + what,
                items + 1, offset, cause);
    }

    private static long offset(JsonParser parser) {
        return parser == null ? -1 : parser.currentLocation().getByteOffset();
    }
}
