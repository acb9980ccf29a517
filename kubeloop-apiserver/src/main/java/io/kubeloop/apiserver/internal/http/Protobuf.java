package io.kubeloop.apiserver.internal.http;

import com.sun.net.httpserver.Headers;
import io.fabric8.kubernetes.api.model.Status;
import io.kubeloop.apiserver.internal.protobuf.ProtobufCodec;
import io.kubeloop.apiserver.internal.protobuf.ProtobufException;
import io.kubeloop.apiserver.internal.protobuf.ProtobufSupport;
import io.kubeloop.model.StatusReason;
import io.kubeloop.model.Statuses;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The front door's use of the optional protobuf codec ({@code application/vnd.kubernetes.protobuf}, what client-go's
 * typed clients and kubectl's imperative commands send): which requests may carry protobuf bodies, which answers
 * may be protobuf, and the Status each refusal gets.
 *
 * <p>Invariants: the server keeps JSON only, so a protobuf body becomes the JSON object the same request would have
 * carried in JSON before any check runs; protobuf is used only for kinds the codec {@link ProtobufCodec#supports
 * supports} (built-in kinds; never custom resources or CRDs); no protobuf input produces anything but a decoded
 * object or a 400/415 {@link ApiException}, and no message echoes the input.
 */
final class Protobuf {

    static final String MEDIA_TYPE = ProtobufCodec.MEDIA_TYPE;
    /** The artifact whose generated classes the codec is built from; optional for users who only want JSON. */
    static final String DEPENDENCY = ProtobufSupport.ARTIFACT;

    private static final String UNKNOWN_FORMAT =
            "the body of the request was in an unknown format - accepted media types include: ";
    private static final String NOT_ACCEPTABLE = "only the following media types are accepted: ";

    private final Supplier<Optional<ProtobufCodec>> factory;
    /**
     * The codec, built on first use: building it loads every protobuf descriptor (about half a second in a fresh
     * JVM), which a server that only ever sees JSON never pays. Empty when client-java-proto is not on the class
     * path; null until first use.
     */
    private volatile Optional<ProtobufCodec> codec;

    Protobuf(Supplier<Optional<ProtobufCodec>> factory) {
        this.factory = factory;
    }

    /** The codec, or null when this server has none. */
    private ProtobufCodec codec() {
        Optional<ProtobufCodec> c = codec;
        if (c == null) {
            synchronized (this) {
                c = codec;
                if (c == null) {
                    c = factory.get();
                    codec = c;
                }
            }
        }
        return c.orElse(null);
    }

    /** Whether this server speaks protobuf at all (the optional client-java-proto dependency is present). */
    boolean available() {
        return codec() != null;
    }

    /** Whether bodies and answers of this kind can be protobuf on this server. */
    boolean supports(String apiVersion, String kind) {
        ProtobufCodec c = codec();
        return c != null && c.supports(apiVersion, kind);
    }

    /**
     * Whether an Accept header allows only protobuf answers: it names {@code application/vnd.kubernetes.protobuf}
     * (without {@code as=}) with a quality above 0, and no range that allows JSON. Anything else, an absent header
     * included, gets JSON, which every client understands (client-go decodes by the answer's Content-Type).
     */
    static boolean acceptsOnlyProtobuf(String accept) {
        boolean protobuf = false;
        for (MediaType range : MediaType.parseAccept(accept)) {
            if (!range.acceptable()) {
                continue;
            }
            if (range.allowsJson()) {
                return false;
            }
            protobuf |= range.type().equals(MEDIA_TYPE) && range.param("as") == null;
        }
        return protobuf;
    }

    /**
     * The JSON form of a protobuf request body sent to an endpoint that reads {@code apiVersion}/{@code kind}; the
     * caller then checks it exactly as it checks a JSON body.
     *
     * <p>Fields the codec's schemas do not know (added to Kubernetes after them) are dropped, and each becomes a
     * {@code Warning} header on the answer, which kubectl prints, so that nothing is lost silently.
     *
     * @throws ApiException 415 when this server cannot read protobuf bodies of that kind (a custom resource, a
     *     CRD, or the codec left out), 400 when the body is not a valid protobuf body
     */
    ObjectNode decode(byte[] body, String apiVersion, String kind, Headers answer) {
        ProtobufCodec codec = codec();
        if (codec == null) {
            throw new ApiException(Statuses.failure(
                    StatusReason.UnsupportedMediaType,
                    UNKNOWN_FORMAT
                            + "application/json, application/yaml (" + MEDIA_TYPE + " bodies need " + DEPENDENCY
                            + " on the server's class path)"));
        }
        if (!codec.supports(apiVersion, kind)) {
            throw new ApiException(Statuses.failure(
                    StatusReason.UnsupportedMediaType, UNKNOWN_FORMAT + "application/json, application/yaml"));
        }
        try {
            List<String> dropped = new ArrayList<>();
            ObjectNode object = codec.decode(body, dropped::add);
            for (int i = 0; i < dropped.size() && i < MAX_WARNINGS; i++) {
                answer.add(
                        "Warning",
                        "299 - \"unknown field \\\"" + dropped.get(i) + "\\\" in the protobuf body: "
                                + "this server's schemas predate it, so it was dropped (send the object as JSON to keep it)\"");
            }
            if (dropped.size() > MAX_WARNINGS) {
                answer.add(
                        "Warning",
                        "299 - \"" + (dropped.size() - MAX_WARNINGS) + " more unknown fields in the "
                                + "protobuf body were dropped\"");
            }
            return object;
        } catch (ProtobufException e) {
            throw new ApiException(Statuses.badRequest("the object provided is unrecognized (" + e.getMessage() + ")"));
        }
    }

    /** At most this many unknown-field warnings per answer (then one that counts the rest). */
    private static final int MAX_WARNINGS = 10;

    /** The 415 for a Content-Type no reader knows, listing what an endpoint of this kind accepts. */
    Status unknownFormat(String apiVersion, String kind) {
        return Statuses.failure(
                StatusReason.UnsupportedMediaType,
                UNKNOWN_FORMAT + "application/json, " + "application/yaml"
                        + (supports(apiVersion, kind) ? ", " + MEDIA_TYPE : ""));
    }

    /**
     * Whether a request that accepts only protobuf is refused 406 at an endpoint answering {@code apiVersion}/
     * {@code kind}: when this server speaks protobuf but not for that kind (custom resources, CRDs). A server
     * without the codec answers JSON as it always did (client-go decodes answers by their Content-Type).
     */
    boolean refusesProtobufOnly(String apiVersion, String kind) {
        return codec() != null && !supports(apiVersion, kind);
    }

    /** The 406 for a request that accepts only protobuf at an endpoint that {@link #refusesProtobufOnly refuses} it. */
    static Status notAcceptable() {
        return Statuses.failure(StatusReason.NotAcceptable, NOT_ACCEPTABLE + "application/json");
    }

    /** A whole protobuf body for a JSON object of a {@link #supports supported} kind. */
    byte[] encode(JsonNode object) {
        return codec().encode(object);
    }

    /** One frame of a protobuf watch stream. */
    byte[] watchEvent(String type, JsonNode object) {
        return codec().encodeWatchEvent(type, object);
    }

    /** Whether {@code object} (with apiVersion and kind) can be answered in protobuf. */
    boolean supports(JsonNode object) {
        return supports(
                object.path("apiVersion").asString(""), object.path("kind").asString(""));
    }
}
