package io.kubeloop.apiserver.internal.protobuf;

import java.util.function.Consumer;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Converts between the Kubernetes protobuf encoding of built-in kinds ({@code application/vnd.kubernetes.protobuf})
 * and the JSON form the server stores and serves. The server keeps JSON only: a protobuf request body is decoded
 * to the JSON object the same request would have carried in JSON, and a protobuf answer is encoded from the JSON
 * the server would have answered.
 *
 * <p>Invariants: {@code decode(encode(o))} equals {@code o} for every object of a supported kind; every failure is a
 * {@link ProtobufException} whose message names what was wrong (never echoing the input); no input makes a method
 * throw anything else or allocate more than a bounded multiple of the input's size.
 */
public interface ProtobufCodec {

    /** The media type of single objects, lists and Status answers. */
    String MEDIA_TYPE = Envelope.MEDIA_TYPE;

    /** The media type of a protobuf watch stream (a sequence of {@link #encodeWatchEvent frames}). */
    String WATCH_MEDIA_TYPE = Envelope.MEDIA_TYPE + ";stream=watch";

    /**
     * Whether objects of this apiVersion and kind have a protobuf message here: the server's built-in kinds, their
     * lists, and {@code meta/v1} Status. Custom resources never do (kube-apiserver serves them as JSON only).
     */
    boolean supports(String apiVersion, String kind);

    /**
     * Decodes a whole request body: the bytes {@code k8s\0}, then a {@code runtime.Unknown} whose {@code raw} is the
     * kind's own message. The result carries {@code apiVersion} and {@code kind} from the envelope's type meta.
     *
     * @throws ProtobufException if the body is malformed or truncated, its kind is not {@link #supports supported},
     *     or its content encoding is not the identity
     */
    default ObjectNode decode(byte[] body) {
        return decode(body, field -> {});
    }

    /**
     * Like {@link #decode(byte[])}, and tells {@code dropped} about every field of the body that this codec's schemas
     * do not know, which is left out of the result: its JSON path with the unknown field's number, such as
     * {@code spec.<field 40>}. (The schemas are those of one Kubernetes version; a newer client may send fields
     * added since.)
     *
     * @throws ProtobufException as {@link #decode(byte[])} does
     */
    ObjectNode decode(byte[] body, Consumer<String> dropped);

    /**
     * Encodes a JSON object of a supported kind ({@code apiVersion} and {@code kind} set) as a whole body, envelope
     * included.
     *
     * @throws ProtobufException if the kind is not supported or a field's value does not fit its protobuf type
     */
    byte[] encode(JsonNode object);

    /**
     * One frame of a protobuf watch stream: a four-byte big-endian length, then an envelope holding a
     * {@code meta/v1} WatchEvent whose {@code object} is a {@code runtime.RawExtension} holding
     * {@link #encode encode(object)}.
     *
     * @param type ADDED, MODIFIED, DELETED, BOOKMARK or ERROR
     * @param object the event's object (a Status for ERROR)
     */
    byte[] encodeWatchEvent(String type, JsonNode object);
}
