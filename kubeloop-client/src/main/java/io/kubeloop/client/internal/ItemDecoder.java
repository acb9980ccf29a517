package io.kubeloop.client.internal;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.kubeloop.client.codec.UndecodableObject;
import java.util.List;
import java.util.Objects;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.exc.StreamReadException;
import tools.jackson.core.exc.UnexpectedEndOfInputException;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.databind.DatabindException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.ObjectReader;

/**
 * Decodes one object (a list item, a watch event's object) from the middle of a stream so that a failure to bind it
 * costs that object only: the stream stays usable, positioned after the object, and what is known of the object (its
 * metadata, read apart) comes out as an {@link UndecodableObject}. Internal: the list and watch decoders use it.
 *
 * <p>The fast path is the plain streaming bind: before it, the object's first byte is marked in the parser's input
 * ({@link ItemInput}, which every parser of a {@code Decoding} reads through), so that its bytes stay in memory
 * until it is bound. Only when binding fails are those bytes parsed a second time, for {@code metadata} alone, token
 * by token (no binding, so a metadata field of an unexpected type cannot fail it again). Without an
 * {@link ItemInput} (a caller's own mapper), the metadata is taken from the partly bound object when the error
 * carries it, else it is unknown.
 *
 * <p>What counts as an undecodable object: a {@link DatabindException} (a value that does not fit its Java type,
 * a missing creator property, a setter that threw). Malformed JSON and a broken stream ({@link StreamReadException})
 * are failures of the stream, thrown unchanged. Thread-safe (the readers are immutable).
 *
 * @param <T> the type objects are decoded to
 */
public final class ItemDecoder<T> {

    private static final JsonFactory PLAIN = JsonFactory.builder().build();

    private final ObjectReader reader;
    private final Class<T> type;

    /** A decoder of {@code type} with {@code mapper}'s configuration. */
    public ItemDecoder(ObjectMapper mapper, Class<T> type) {
        this.type = Objects.requireNonNull(type, "type");
        this.reader = JacksonMessages.valueReader(mapper, type);
    }

    /** The type decoded to. */
    public Class<T> type() {
        return type;
    }

    /** The reader of one value, for callers that decode a tree. */
    public ObjectReader reader() {
        return reader;
    }

    /**
     * Decodes the object whose {@code START_OBJECT} is {@code p}'s current token and leaves {@code p} on its
     * {@code END_OBJECT}, whether it decoded or not.
     *
     * @throws Undecodable the object does not decode to the type; {@code p} is past it
     * @throws JacksonException the stream is malformed or broken (not the object's fault)
     */
    public T read(JsonParser p) {
        ItemInput input = p.streamReadInputSource() instanceof ItemInput in ? in : null;
        int depth = p.streamReadContext().getNestingDepth();
        boolean marked = input != null && input.markItem(p.currentLocation().getByteOffset() - 1, (byte) '{');
        try {
            return reader.readValue(p);
        } catch (DatabindException e) {
            if (streamFailure(e) != null) {
                throw streamFailure(e);
            }
            skipRest(p, depth);
            byte[] bytes = marked ? input.markedItem(p.currentLocation().getByteOffset(), (byte) '}') : null;
            throw new Undecodable(bytes != null ? fromBytes(bytes, e) : fromPartialObject(e));
        } finally {
            if (marked) {
                input.unmarkItem();
            }
        }
    }

    /**
     * Decodes {@code tree} (an object that arrived before what says how to read it, e.g. a watch event's object
     * before its type).
     *
     * @throws Undecodable the object does not decode to the type
     */
    public T read(JsonNode tree) {
        try {
            return reader.readValue(tree);
        } catch (DatabindException e) {
            JsonNode meta = tree.path("metadata");
            throw new Undecodable(new UndecodableObject(
                    text(meta.path("namespace")),
                    text(meta.path("name")),
                    text(meta.path("resourceVersion")),
                    text(meta.path("uid")),
                    message(e)));
        }
    }

    private static String text(JsonNode node) {
        return node.isString() ? node.asString() : null;
    }

    /** A stream failure wrapped by databind (a deserializer that read past a malformed token), or null. */
    private static StreamReadException streamFailure(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof StreamReadException s) {
                return s;
            }
        }
        return null;
    }

    /** Reads on until {@code p} is on the END_OBJECT that closes the object opened at nesting depth {@code depth}. */
    private static void skipRest(JsonParser p, int depth) {
        // Bounded by the input: every turn consumes a token, and the end of input throws.
        while (p.currentToken() != JsonToken.END_OBJECT || p.streamReadContext().getNestingDepth() != depth - 1) {
            if (p.nextToken() == null) {
                throw new UnexpectedEndOfInputException(
                        p, null, "the stream ended inside an object that did not decode (truncated)");
            }
        }
    }

    private String message(DatabindException e) {
        return "does not decode to " + type.getSimpleName() + ": " + JacksonMessages.describe(e);
    }

    /** The metadata read from the object's own bytes, token by token. */
    private UndecodableObject fromBytes(byte[] bytes, DatabindException e) {
        String namespace = null;
        String name = null;
        String resourceVersion = null;
        String uid = null;
        try (JsonParser p = PLAIN.createParser(tools.jackson.core.ObjectReadContext.empty(), bytes)) {
            if (p.nextToken() == JsonToken.START_OBJECT) {
                for (String field = p.nextName(); field != null; field = p.nextName()) {
                    JsonToken value = p.nextToken();
                    if (!field.equals("metadata") || value != JsonToken.START_OBJECT) {
                        p.skipChildren();
                        continue;
                    }
                    for (String m = p.nextName(); m != null; m = p.nextName()) {
                        JsonToken v = p.nextToken();
                        if (v != JsonToken.VALUE_STRING) {
                            p.skipChildren();
                            continue;
                        }
                        switch (m) {
                            case "namespace" -> namespace = p.getString();
                            case "name" -> name = p.getString();
                            case "resourceVersion" -> resourceVersion = p.getString();
                            case "uid" -> uid = p.getString();
                            default -> {}
                        }
                    }
                }
            }
        } catch (JacksonException again) {
            // The bytes parsed once already; keep whatever was read before this.
        }
        return new UndecodableObject(namespace, name, resourceVersion, uid, message(e));
    }

    /** The metadata of the object Jackson was filling when it failed, when the error names it. */
    private UndecodableObject fromPartialObject(DatabindException e) {
        List<JacksonException.Reference> path = e.getPath();
        ObjectMeta meta = !path.isEmpty() && path.get(0).from() instanceof HasMetadata h ? h.getMetadata() : null;
        if (meta == null) {
            return new UndecodableObject(null, null, null, null, message(e));
        }
        return new UndecodableObject(
                meta.getNamespace(), meta.getName(), meta.getResourceVersion(), meta.getUid(), message(e));
    }

    /**
     * Thrown by {@link ItemDecoder#read} for an object that does not decode; the stream is still usable. Carries no
     * stack trace: it is an outcome, caught by the list or watch decoder that called read.
     */
    public static final class Undecodable extends RuntimeException {
        private static final long serialVersionUID = 1L;

        private final transient UndecodableObject object;

        Undecodable(UndecodableObject object) {
            super(object.toString(), null, false, false);
            this.object = object;
        }

        /** What is known of the object. */
        public UndecodableObject object() {
            return object;
        }
    }
}
