package io.kubeloop.apiserver.internal.registry;

import io.kubeloop.model.Statuses;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.snakeyaml.engine.v2.common.Anchor;
import org.snakeyaml.engine.v2.events.Event;
import org.snakeyaml.engine.v2.events.ScalarEvent;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.MissingNode;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.dataformat.yaml.YAMLMapper;
import tools.jackson.dataformat.yaml.YAMLParser;

/**
 * Request bodies (objects and patches) parsed into JSON trees, as kube-apiserver's decoders read them; a body
 * that is not well-formed is a 400 naming what was wrong. One pass over the parser's tokens builds the tree and
 * finds what kube's strict decoding reports, without a second parse:
 *
 * <ul>
 *   <li><b>Duplicate keys</b> keep the last value (as Go does) and are recorded in the request's
 *       {@link FieldProblems}: {@code duplicate field "spec.paused"} in JSON (sigs.k8s.io/json's wording),
 *       {@code line 12: key "paused" already set in map} in YAML (go-yaml's). {@link Admission} reports them
 *       with the unknown fields, as warnings or, under {@code fieldValidation=Strict}, as an error.
 *   <li><b>YAML anchors and aliases</b> are resolved as kube's YAML decoder (sigs.k8s.io/yaml over go-yaml v2)
 *       resolves them: an alias is a copy of its anchor's value, {@code <<} merge keys merge mappings. Expansion
 *       is capped with go-yaml's own rule (the share of decoded nodes that come from aliases, see
 *       {@link #allowedAliasRatio}), so a "billion laughs" document is a 400 long before it costs memory: the
 *       check runs before each copy, with the size of what the alias would add.
 *   <li><b>Numbers</b> keep their exact value when a double cannot hold it ({@code 1e400} is a decimal, not
 *       Infinity), so the type check can refuse it with Go's wording; YAML's {@code .inf} and {@code .nan},
 *       which JSON cannot carry, are a 400 as in kube.
 * </ul>
 */
public final class Bodies {

    private static final YAMLMapper YAML = YAMLMapper.builder().build();

    /**
     * The parser's last snakeyaml event: Jackson exposes a collection's anchor ({@code getObjectId}) but not a
     * scalar's, which only that event carries. Looked up once; null if this Jackson version lacks the field, and then
     * an alias of a scalar is refused as an unknown anchor (400) rather than resolved wrongly.
     */
    private static final VarHandle LAST_EVENT = lastEvent();

    private static VarHandle lastEvent() {
        try {
            return MethodHandles.privateLookupIn(YAMLParser.class, MethodHandles.lookup())
                    .findVarHandle(YAMLParser.class, "_lastEvent", Event.class);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    private final JsonMapper json;
    private final JsonNodeFactory nodes;

    public Bodies(JsonMapper json) {
        this.json = json;
        this.nodes = json.getNodeFactory();
    }

    /** A JSON body; duplicate keys go to {@code options}' {@link FieldProblems} (ignored when options is null). */
    public JsonNode json(byte[] body, WriteOptions options) {
        try (JsonParser parser = json.createParser(body)) {
            JsonNode root = new Builder(parser, false, options).build();
            if (parser.nextToken() != null) {
                throw new AdmissionException(Statuses.badRequest(
                        "couldn't get version/kind; json parse error: invalid character after top-level value"));
            }
            return root;
        } catch (JacksonException e) {
            throw new AdmissionException(
                    Statuses.badRequest("couldn't get version/kind; json parse error: " + e.getOriginalMessage()));
        }
    }

    /** A YAML body (of which JSON is a subset): {@code application/yaml} objects and apply patches. */
    public JsonNode yaml(byte[] body, WriteOptions options) {
        try (JsonParser parser = YAML.createParser(body)) {
            JsonNode node = new Builder(parser, true, options).build();
            return node.isMissingNode() ? json.createObjectNode() : node;
        } catch (JacksonException e) {
            throw new AdmissionException(
                    Statuses.badRequest("error converting YAML to JSON: " + e.getOriginalMessage()));
        }
    }

    /** go-yaml v2's decoder.go: above 400,000 decoded nodes the allowed share of aliased nodes falls to 10%. */
    static double allowedAliasRatio(long decodeCount) {
        if (decodeCount <= 400_000) {
            return 0.99;
        }
        if (decodeCount >= 4_000_000) {
            return 0.10;
        }
        return 0.99 - 0.89 * ((double) (decodeCount - 400_000) / 3_600_000);
    }

    /** An object or array being built, with the key its next value goes to. */
    private static final class Frame {
        final JsonNode node;
        final String anchor;
        final long start;
        String key;
        int keyLine;
        int index;
        List<JsonNode> merges;

        Frame(JsonNode node, String anchor, long start) {
            this.node = node;
            this.anchor = anchor;
            this.start = start;
        }
    }

    /** A YAML anchor's value and how many decoded nodes it holds. */
    private record Anchored(JsonNode value, long size) {}

    /** Builds one tree; confined to one request. */
    private final class Builder {
        private final JsonParser parser;
        private final boolean yaml;
        private final WriteOptions options;
        private final Deque<Frame> stack = new ArrayDeque<>();
        private final Map<String, Anchored> anchors = new HashMap<>();
        private long decodeCount;
        private long aliasCount;

        Builder(JsonParser parser, boolean yaml, WriteOptions options) {
            this.parser = parser;
            this.yaml = yaml;
            this.options = options;
        }

        JsonNode build() {
            JsonToken token = parser.nextToken();
            if (token == null) {
                return MissingNode.getInstance();
            }
            while (true) {
                JsonNode value;
                switch (token) {
                    case START_OBJECT -> {
                        stack.push(new Frame(nodes.objectNode(), anchor(), decodeCount++));
                        token = parser.nextToken();
                        continue;
                    }
                    case START_ARRAY -> {
                        stack.push(new Frame(nodes.arrayNode(), anchor(), decodeCount++));
                        token = parser.nextToken();
                        continue;
                    }
                    case PROPERTY_NAME -> {
                        Frame top = stack.peek();
                        top.key = parser.currentName();
                        top.keyLine = yaml ? parser.currentTokenLocation().getLineNr() : 0;
                        decodeCount++;
                        token = parser.nextToken();
                        continue;
                    }
                    case END_OBJECT, END_ARRAY -> value = close(stack.pop());
                    default -> value = scalar(token);
                }
                if (stack.isEmpty()) {
                    return value;
                }
                attach(stack.peek(), value);
                token = parser.nextToken();
            }
        }

        private String anchor() {
            if (!yaml) {
                return null;
            }
            Object id = parser.getObjectId();
            if (id != null) {
                return id.toString();
            }
            if (LAST_EVENT != null
                    && parser.currentToken().isScalarValue()
                    && LAST_EVENT.get((YAMLParser) parser) instanceof ScalarEvent scalar) {
                return scalar.getAnchor().map(Anchor::getValue).orElse(null);
            }
            return null;
        }

        private JsonNode close(Frame frame) {
            if (frame.merges != null && frame.node instanceof ObjectNode object) {
                for (JsonNode source : frame.merges) {
                    for (Map.Entry<String, JsonNode> entry : source.properties()) {
                        if (!object.has(entry.getKey())) {
                            object.set(entry.getKey(), entry.getValue());
                        }
                    }
                }
            }
            if (frame.anchor != null) {
                anchors.put(frame.anchor, new Anchored(frame.node, decodeCount - frame.start));
            }
            return frame.node;
        }

        private JsonNode scalar(JsonToken token) {
            String anchor = anchor();
            JsonNode value =
                    switch (token) {
                        case VALUE_STRING -> {
                            if (yaml && ((YAMLParser) parser).isCurrentAlias()) {
                                yield alias(parser.getString());
                            }
                            yield nodes.stringNode(parser.getString());
                        }
                        case VALUE_NUMBER_INT -> number(parser.getNumberValue());
                        case VALUE_NUMBER_FLOAT -> floating();
                        case VALUE_TRUE -> nodes.booleanNode(true);
                        case VALUE_FALSE -> nodes.booleanNode(false);
                        case VALUE_NULL -> nodes.nullNode();
                        case VALUE_EMBEDDED_OBJECT -> {
                            Object embedded = parser.getEmbeddedObject();
                            yield embedded instanceof byte[] bytes
                                    ? nodes.stringNode(
                                            java.util.Base64.getEncoder().encodeToString(bytes))
                                    : nodes.stringNode(String.valueOf(embedded));
                        }
                        default -> throw new AdmissionException(Statuses.badRequest("unexpected token " + token));
                    };
            decodeCount++;
            if (anchor != null) {
                anchors.put(anchor, new Anchored(value, 1));
            }
            return value;
        }

        private JsonNode number(Number n) {
            return switch (n) {
                case Integer i -> nodes.numberNode(i.intValue());
                case Long l -> nodes.numberNode(l.longValue());
                case java.math.BigInteger b -> nodes.numberNode(b);
                default -> nodes.numberNode(n.longValue());
            };
        }

        /** A double when it holds the value; the exact decimal when the literal overflows a double. */
        private JsonNode floating() {
            double d = parser.getDoubleValue();
            if (Double.isFinite(d)) {
                return nodes.numberNode(d);
            }
            try {
                return nodes.numberNode(new java.math.BigDecimal(parser.getString()));
            } catch (NumberFormatException e) { // YAML's .inf, .nan: Go's JSON cannot write them either
                throw new AdmissionException(Statuses.badRequest("error converting YAML to JSON: json: unsupported "
                        + "value: " + (Double.isNaN(d) ? "NaN" : d > 0 ? "+Inf" : "-Inf")));
            }
        }

        /** A copy of an anchor's value, refused when the document would be mostly aliases (go-yaml's rule). */
        private JsonNode alias(String name) {
            Anchored anchored = anchors.get(name);
            if (anchored == null) {
                boolean open = stack.stream().anyMatch(f -> name.equals(f.anchor));
                throw new AdmissionException(Statuses.badRequest("error converting YAML to JSON: yaml: "
                        + (open
                                ? "anchor '" + name + "' value contains itself"
                                : "unknown anchor '" + name + "' referenced")));
            }
            long decoded = decodeCount + anchored.size();
            long aliased = aliasCount + anchored.size();
            if (aliased > 100 && decoded > 1000 && (double) aliased / decoded > allowedAliasRatio(decoded)) {
                throw new AdmissionException(Statuses.badRequest(
                        "error converting YAML to JSON: yaml: document contains excessive aliasing"));
            }
            decodeCount = decoded - 1; // scalar() counts the alias node itself
            aliasCount = aliased;
            return anchored.value().deepCopy();
        }

        private void attach(Frame frame, JsonNode value) {
            if (frame.node instanceof ArrayNode array) {
                array.add(value);
                frame.index++;
                return;
            }
            ObjectNode object = (ObjectNode) frame.node;
            String key = frame.key;
            if (yaml && key.equals("<<")) {
                merge(frame, value);
                return;
            }
            JsonNode previous = object.replace(key, value);
            if (previous != null && options != null) {
                options.fieldProblems()
                        .add(
                                yaml
                                        ? "line " + frame.keyLine + ": key \"" + key + "\" already set in map"
                                        : "duplicate field \"" + path(key) + "\"",
                                yaml ? null : path(key));
            }
        }

        /** A {@code <<} merge key: a mapping, or a sequence of mappings, whose keys the mapping does not set. */
        private void merge(Frame frame, JsonNode value) {
            List<JsonNode> sources = new ArrayList<>();
            if (value.isObject()) {
                sources.add(value);
            } else if (value.isArray() && value.valueStream().allMatch(JsonNode::isObject)) {
                value.valueStream().forEach(sources::add);
            } else {
                throw new AdmissionException(Statuses.badRequest("error converting YAML to JSON: yaml: map merge "
                        + "requires map or sequence of maps as the value"));
            }
            if (frame.merges == null) {
                frame.merges = new ArrayList<>();
            }
            frame.merges.addAll(sources);
        }

        /** sigs.k8s.io/json's path of a field of the innermost open object: {@code spec.containers[0].name}. */
        private String path(String key) {
            List<Frame> frames = new ArrayList<>(stack);
            StringBuilder out = new StringBuilder();
            for (int i = frames.size() - 1; i > 0; i--) { // the outermost frame first; the innermost is key's
                Frame f = frames.get(i);
                if (f.node instanceof ArrayNode) {
                    out.append('[').append(f.index).append(']');
                } else {
                    if (!out.isEmpty()) {
                        out.append('.');
                    }
                    out.append(f.key);
                }
            }
            if (!out.isEmpty()) {
                out.append('.');
            }
            return out.append(key).toString();
        }
    }
}
