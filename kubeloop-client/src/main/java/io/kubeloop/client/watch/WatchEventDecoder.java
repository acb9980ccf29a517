package io.kubeloop.client.watch;

import io.fabric8.kubernetes.api.model.Status;
import io.kubeloop.client.codec.Decoding;
import io.kubeloop.client.codec.UndecodableObjects;
import io.kubeloop.client.internal.ItemDecoder;
import io.kubeloop.client.internal.JacksonMessages;
import io.kubeloop.model.WatchEventType;
import java.io.InputStream;
import java.util.Objects;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.exc.JacksonIOException;
import tools.jackson.core.exc.StreamReadException;
import tools.jackson.core.exc.UnexpectedEndOfInputException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.ObjectReader;

/**
 * Decodes a watch response body ({@code application/json}: one {@code {"type":...,"object":...}} document per
 * event) into {@link WatchEvent}s, one at a time, with Jackson's streaming parser: only the event being decoded
 * is held in memory, whatever the length of the stream. Events may be separated by newlines (as kube-apiserver
 * writes them), by other whitespace, or by nothing at all.
 *
 * <p>{@link #next()} returns {@code null} at a clean end of the stream (between two events). Anything else is a
 * {@link WatchDecodeException} naming what was wrong, the event number and the byte offset: a stream cut inside
 * an event, malformed JSON, an event without {@code type} or {@code object}, a type other than the five of
 * Kubernetes, an object that does not decode to the requested type (its message names the object's
 * namespace/name and resourceVersion). A failure of the stream itself is a {@link WatchException} with the
 * {@code IOException} as its cause. After a failure the decoder is unusable.
 *
 * <p>A decoder that {@linkplain UndecodableObjects#SKIP skips undecodable objects} returns a
 * {@link WatchEvent.Undecodable} for an event whose object does not decode, and carries on with the next event: the
 * object is decoded on the one streaming parse, and only when it fails are its bytes read again, for its metadata.
 *
 * <p>The parser is created on the first {@code next()} (creating it reads the first bytes), so constructing a
 * decoder never blocks. Not thread-safe: one reader at a time. The decoder does not close the stream.
 *
 * @param <T> the type ADDED, MODIFIED and DELETED objects are decoded to: a fabric8 model class such as
 *     {@code Pod}, or {@code GenericKubernetesResource}
 */
public final class WatchEventDecoder<T> {

    static final String INITIAL_EVENTS_END = "k8s.io/initial-events-end";

    private final InputStream body;
    private final Class<T> type;
    private final ObjectMapper mapper;
    /**
     * Readers of one value from the shared parser; trailing tokens are the rest of the stream, not an error
     * (Jackson 3 fails on them by default).
     */
    private final ItemDecoder<T> objects;

    private final UndecodableObjects undecodable;

    private final ObjectReader statuses;
    private final ObjectReader trees;
    /** Prefixes every message: what is watched, or nothing. */
    private final String context;
    /** Null until the first {@link #next()}. */
    private JsonParser parser;
    /** Events returned so far. */
    private long events;
    /** The stream ended cleanly, or decoding failed: next() returns null, or throws, without reading. */
    private boolean ended;

    private WatchException failure;

    WatchEventDecoder(
            InputStream body, Class<T> type, ObjectMapper mapper, String context, UndecodableObjects undecodable) {
        this.body = Objects.requireNonNull(body, "body");
        this.type = Objects.requireNonNull(type, "type");
        this.mapper = Objects.requireNonNull(mapper, "mapper");
        this.context = context;
        this.objects = new ItemDecoder<>(mapper, type);
        this.undecodable = Objects.requireNonNull(undecodable, "undecodable");
        this.statuses = JacksonMessages.valueReader(mapper, Status.class);
        this.trees = JacksonMessages.valueReader(mapper, JsonNode.class);
    }

    /** A decoder of {@code body} to {@code type}, with a mapper that ignores unknown properties. */
    public static <T> WatchEventDecoder<T> of(InputStream body, Class<T> type) {
        return new WatchEventDecoder<>(body, type, Decoding.standard().mapper(), "", UndecodableObjects.FAIL);
    }

    /** A decoder of {@code body} to {@code type} with the given mapper. */
    public static <T> WatchEventDecoder<T> of(InputStream body, Class<T> type, ObjectMapper mapper) {
        return new WatchEventDecoder<>(body, type, mapper, "", UndecodableObjects.FAIL);
    }

    /**
     * A decoder of {@code body} to {@code type} with the given mapper, doing {@code undecodable} with an object that
     * does not decode ({@link UndecodableObjects#SKIP}: a {@link WatchEvent.Undecodable} in its place).
     */
    public static <T> WatchEventDecoder<T> of(
            InputStream body, Class<T> type, ObjectMapper mapper, UndecodableObjects undecodable) {
        return new WatchEventDecoder<>(body, type, mapper, "", undecodable);
    }

    /**
     * The next event, blocking until it has arrived in full, or {@code null} when the stream ended cleanly.
     *
     * @throws WatchDecodeException the stream is not a well-formed sequence of watch events
     * @throws WatchException the stream could not be read
     */
    public WatchEvent<T> next() {
        if (failure != null) {
            throw failure;
        }
        if (ended) {
            return null;
        }
        try {
            if (parser == null) {
                parser = mapper.createParser(body);
            }
            JsonToken start = parser.nextToken();
            if (start == null) {
                ended = true;
                return null;
            }
            if (start != JsonToken.START_OBJECT) {
                throw fail("expected a watch event object, found " + describe(start), null);
            }
            WatchEvent<T> event = readEvent();
            events++;
            return event;
        } catch (WatchException e) {
            failure = e;
            throw e;
        } catch (UnexpectedEndOfInputException e) {
            throw fail("the stream ended inside the event (truncated): " + JacksonMessages.describe(e), e);
        } catch (JacksonIOException e) {
            failure = new WatchException(
                    context + "reading the watch stream failed after " + events + " events at byte " + offset() + ": "
                            + e.getCause(),
                    e.getCause());
            throw failure;
        } catch (StreamReadException e) {
            throw fail("malformed JSON: " + JacksonMessages.describe(e), e);
        } catch (JacksonException e) {
            throw fail("its object does not decode to " + type.getSimpleName() + ": " + JacksonMessages.describe(e), e);
        }
    }

    /** The number of events returned so far. */
    public long eventCount() {
        return events;
    }

    /** Reads the members of an event whose START_OBJECT is the current token, up to its END_OBJECT. */
    private WatchEvent<T> readEvent() {
        WatchEventType eventType = null;
        WatchEvent<T> decoded = null;
        JsonNode early = null; // the object, when it came before the type
        boolean sawObject = false;
        for (String name = parser.nextName(); name != null; name = parser.nextName()) {
            JsonToken value = parser.nextToken();
            switch (name) {
                case "type" -> {
                    if (value != JsonToken.VALUE_STRING) {
                        throw fail("\"type\" must be a string, found " + describe(value), null);
                    }
                    eventType = eventType(parser.getString());
                }
                case "object" -> {
                    sawObject = true;
                    if (value == JsonToken.VALUE_NULL) {
                        continue;
                    }
                    if (value != JsonToken.START_OBJECT) {
                        throw fail("\"object\" must be an object, found " + describe(value), null);
                    }
                    if (eventType != null) {
                        decoded = decode(eventType);
                    } else {
                        early = trees.readValue(parser);
                    }
                }
                default -> parser.skipChildren();
            }
        }
        if (eventType == null) {
            throw fail("the event has no \"type\"", null);
        }
        if (decoded != null) {
            return decoded;
        }
        if (early != null) {
            return fromTree(eventType, early);
        }
        throw fail("the " + eventType + " event has " + (sawObject ? "a null" : "no") + " \"object\"", null);
    }

    private WatchEventType eventType(String name) {
        return switch (name) {
            case "ADDED" -> WatchEventType.ADDED;
            case "MODIFIED" -> WatchEventType.MODIFIED;
            case "DELETED" -> WatchEventType.DELETED;
            case "BOOKMARK" -> WatchEventType.BOOKMARK;
            case "ERROR" -> WatchEventType.ERROR;
            default ->
                throw fail(
                        "unknown event type " + printable(name)
                                + " (expected ADDED, MODIFIED, DELETED, BOOKMARK or ERROR)",
                        null);
        };
    }

    /** An event type is echoed only when it looks like one: a short word. */
    private static String printable(String name) {
        return name.length() <= 32 && name.matches("[A-Za-z_-]*")
                ? "\"" + name + "\""
                : "(a string of " + name.length() + " characters)";
    }

    /** Decodes the object whose START_OBJECT is the current token. */
    private WatchEvent<T> decode(WatchEventType eventType) {
        return switch (eventType) {
            case ADDED, MODIFIED, DELETED -> {
                try {
                    yield new WatchEvent.Change<>(eventType, objects.read(parser));
                } catch (ItemDecoder.Undecodable e) {
                    yield undecodable(eventType, e);
                }
            }
            case BOOKMARK -> bookmark(trees.<JsonNode>readValue(parser));
            case ERROR -> new WatchEvent.Error<>(statuses.<Status>readValue(parser));
        };
    }

    private WatchEvent<T> fromTree(WatchEventType eventType, JsonNode object) {
        return switch (eventType) {
            case ADDED, MODIFIED, DELETED -> {
                try {
                    yield new WatchEvent.Change<>(eventType, objects.read(object));
                } catch (ItemDecoder.Undecodable e) {
                    yield undecodable(eventType, e);
                }
            }
            case BOOKMARK -> bookmark(object);
            case ERROR -> new WatchEvent.Error<>(statuses.<Status>readValue(object));
        };
    }

    /** The event in place of an object that did not decode, or the decoder's failure. */
    private WatchEvent<T> undecodable(WatchEventType eventType, ItemDecoder.Undecodable e) {
        if (undecodable == UndecodableObjects.SKIP) {
            return new WatchEvent.Undecodable<>(eventType, e.object());
        }
        throw fail("the " + eventType + " object " + e.getMessage(), null);
    }

    /** A bookmark's object is the watched kind with only metadata.resourceVersion (and maybe annotations). */
    private WatchEvent<T> bookmark(JsonNode object) {
        JsonNode metadata = object.path("metadata");
        JsonNode rv = metadata.path("resourceVersion");
        if (!rv.isString() || rv.asString().isEmpty()) {
            throw fail("the BOOKMARK event has no metadata.resourceVersion", null);
        }
        JsonNode end = metadata.path("annotations").path(INITIAL_EVENTS_END);
        return new WatchEvent.Bookmark<>(
                rv.asString(), end.isString() && end.asString().equals("true"));
    }

    private WatchDecodeException fail(String what, Throwable cause) {
        WatchDecodeException e = new WatchDecodeException(
                context + "watch event " + (events + 1) + " (at byte " + offset() + "): " + what,
                events + 1,
                offset(),
                cause);
        failure = e;
        ended = true;
        return e;
    }

    private long offset() {
        return parser == null ? 0 : parser.currentLocation().getByteOffset();
    }

    private static String describe(JsonToken token) {
        return switch (token) {
            case START_ARRAY -> "an array";
            case START_OBJECT -> "an object";
            case VALUE_STRING -> "a string";
            case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> "a number";
            case VALUE_TRUE, VALUE_FALSE -> "a boolean";
            case VALUE_NULL -> "null";
            default -> token.toString();
        };
    }
}
