package io.kubeloop.apiserver.internal.protobuf;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The {@link ProtobufCodec} driven by the Kubernetes protobuf schemas ({@link Schemas}): {@link ProtoToJson}
 * decodes, {@link JsonToProto} encodes, this class adds the {@code k8s\0} envelope and the watch framing.
 * Immutable and thread-safe; each call uses a decoder or encoder of its own.
 */
final class DescriptorCodec implements ProtobufCodec {

    private static final byte[] MAGIC = {'k', '8', 's', 0};
    private static final Set<String> WATCH_EVENT_TYPES = Set.of("ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR");
    private static final Map<Descriptor, List<FieldDescriptor>> FIELDS_IN_ORDER = new ConcurrentHashMap<>();

    private final JsonMapper json;
    private final Schemas schemas;

    DescriptorCodec(JsonMapper json) {
        this.json = json;
        this.schemas = new Schemas();
    }

    Schemas schemas() {
        return schemas;
    }

    @Override
    public boolean supports(String apiVersion, String kind) {
        return schemas.find(apiVersion, kind).isPresent();
    }

    /** Whether this JSON object has a supported apiVersion and kind. */
    boolean supports(JsonNode object) {
        return object instanceof ObjectNode
                && object.path("apiVersion").isString()
                && object.path("kind").isString()
                && supports(
                        object.path("apiVersion").asString(),
                        object.path("kind").asString());
    }

    @Override
    public ObjectNode decode(byte[] body, Consumer<String> dropped) {
        ProtoToJson decoder = new ProtoToJson(this, json, dropped);
        return decode(body, decoder);
    }

    /** Decodes a body, at the top or embedded in a WatchEvent (then with the outer body's decoder). */
    ObjectNode decode(byte[] body, ProtoToJson decoder) {
        Envelope envelope = Envelope.decode(body);
        if (!envelope.contentEncoding().isEmpty()) {
            throw new ProtobufException("the body has a content encoding; only the identity encoding is supported");
        }
        if (envelope.kind().isEmpty() || envelope.apiVersion().isEmpty()) {
            throw new ProtobufException(
                    "the body's envelope names no " + (envelope.kind().isEmpty() ? "kind" : "apiVersion"));
        }
        String what = printable(envelope.apiVersion()) + " " + printable(envelope.kind());
        Descriptor type = schemas.find(envelope.apiVersion(), envelope.kind())
                .orElseThrow(() -> new ProtobufException("there is no protobuf schema for " + what
                        + " here (built-in kinds only; custom resources are JSON only)"));
        // An empty raw is the empty message (every field at its zero value), as kube's proto.Unmarshal reads it:
        // it is what encoding an object with nothing but apiVersion and kind produces.
        ObjectNode out = json.createObjectNode();
        out.put("apiVersion", envelope.apiVersion());
        out.put("kind", envelope.kind());
        boolean outermost = decoder.depth() == 0;
        try {
            decoder.message(type, new WireReader(envelope.raw()), out);
        } catch (ProtobufException e) {
            if (!outermost) {
                throw e;
            }
            throw new ProtobufException("malformed protobuf " + what + " at " + decoder.path() + ": " + e.getMessage());
        }
        FieldDescriptor items = type.findFieldByName("items");
        if (envelope.kind().endsWith("List") && items != null && items.isRepeated() && !out.has("items")) {
            out.putArray("items"); // protobuf cannot tell an empty list from a missing one; lists always have items
        }
        return out;
    }

    @Override
    public byte[] encode(JsonNode object) {
        if (!(object instanceof ObjectNode)) {
            throw new ProtobufException("only a JSON object can be encoded");
        }
        String apiVersion = object.path("apiVersion").asString("");
        String kind = object.path("kind").asString("");
        String what = printable(apiVersion) + " " + printable(kind);
        Descriptor type = schemas.find(apiVersion, kind)
                .orElseThrow(() -> new ProtobufException("there is no protobuf schema for " + what + " here"));
        JsonToProto encoder = new JsonToProto(this, json);
        WireWriter message;
        try {
            message = encoder.message(type, object);
        } catch (ProtobufException e) {
            throw new ProtobufException(
                    "cannot encode " + what + " as protobuf at " + encoder.path() + ": " + e.getMessage());
        }
        return envelope(apiVersion, kind, message.toByteArray());
    }

    @Override
    public byte[] encodeWatchEvent(String type, JsonNode object) {
        if (!WATCH_EVENT_TYPES.contains(type)) {
            throw new ProtobufException("a watch event's type is one of " + WATCH_EVENT_TYPES);
        }
        WireWriter raw = new WireWriter();
        raw.bytes(1, encode(object));
        WireWriter event = new WireWriter();
        event.string(1, type);
        event.message(2, raw);
        // kube-apiserver encodes the event in the watched resource's group version; clients accept any version.
        String apiVersion = object.path("kind").asString("").equals("Status")
                ? "v1"
                : object.path("apiVersion").asString("v1");
        byte[] body = envelope(apiVersion, "WatchEvent", event.toByteArray());
        byte[] frame = new byte[4 + body.length];
        frame[0] = (byte) (body.length >>> 24);
        frame[1] = (byte) (body.length >>> 16);
        frame[2] = (byte) (body.length >>> 8);
        frame[3] = (byte) body.length;
        System.arraycopy(body, 0, frame, 4, body.length);
        return frame;
    }

    /** {@code k8s\0} + runtime.Unknown {typeMeta {apiVersion, kind}, raw, contentEncoding "", contentType ""}. */
    private static byte[] envelope(String apiVersion, String kind, byte[] raw) {
        WireWriter typeMeta = new WireWriter();
        typeMeta.string(1, apiVersion);
        typeMeta.string(2, kind);
        WireWriter unknown = new WireWriter();
        unknown.raw(MAGIC);
        unknown.message(1, typeMeta);
        unknown.bytes(2, raw);
        unknown.string(3, "");
        unknown.string(4, "");
        return unknown.toByteArray();
    }

    /** The fields of a message in field-number order, the order Go writes them in. */
    static List<FieldDescriptor> fieldsInOrder(Descriptor type) {
        return FIELDS_IN_ORDER.computeIfAbsent(type, t -> t.getFields().stream()
                .sorted(Comparator.comparingInt(FieldDescriptor::getNumber))
                .toList());
    }

    /** A name from the input, quoted, shortened and stripped of control characters, fit for an error message. */
    private static String printable(String name) {
        String shortened = name.length() > 64 ? name.substring(0, 64) + "..." : name;
        return "\"" + shortened.replaceAll("[\\p{Cntrl}\"\\\\]", "?") + "\"";
    }
}
