package io.kubeloop.cluster.internal.deployment;

import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.kubeloop.client.codec.Decoding;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The {@code pod-template-hash} of a Deployment's ReplicaSets, in the shape of kube's {@code controller.ComputeHash}:
 * FNV-32a over the pod template, then (when the Deployment has a {@code status.collisionCount}) over the count as 8
 * bytes (a little-endian uint32 and four zeros), the 32-bit sum written in decimal and each digit mapped through
 * {@code rand.SafeEncodeString}'s alphabet ({@code 0→4 … 5→9, 6→b, 7→c, 8→d, 9→f}), so names look like kube's
 * ({@code web-7d4b9c8f5}).
 *
 * <p>What is hashed differs: kube hashes Go's {@code spew} dump of its structs, which cannot be reproduced from
 * Java. This hashes a canonical JSON form of the template (object keys sorted at every level, no whitespace, as the
 * model serializes it: unset and empty fields absent), so the same template always gives the same hash in every
 * JVM (unset, null and empty lists and maps count as absent, as kube's semantic equality has it), and a change to
 * any field gives another — but not the hash a real cluster would give. Which ReplicaSet
 * belongs to which template is decided by {@link #equalIgnoringHash}, never by the hash, as in kube.
 *
 * <p>Stateless and thread-safe.
 */
final class PodTemplateHash {

    /** The label the hash is stored under, on the ReplicaSet, its selector and its pod template. */
    static final String LABEL = "pod-template-hash";

    private static final JsonMapper JSON = Decoding.standard().mapper();
    private static final String ALPHANUMS = "bcdfghjklmnpqrstvwxz2456789";
    private static final int FNV_OFFSET = 0x811c9dc5;
    private static final int FNV_PRIME = 0x01000193;

    private PodTemplateHash() {}

    /** The hash of {@code template} with {@code collisionCount} (null when the Deployment never had a collision). */
    static String compute(PodTemplateSpec template, Integer collisionCount) {
        int h = FNV_OFFSET;
        for (byte b : canonicalJson(normalized(template)).getBytes(StandardCharsets.UTF_8)) {
            h = (h ^ (b & 0xff)) * FNV_PRIME;
        }
        if (collisionCount != null) {
            int c = collisionCount;
            byte[] bytes = {(byte) c, (byte) (c >>> 8), (byte) (c >>> 16), (byte) (c >>> 24), 0, 0, 0, 0};
            for (byte b : bytes) {
                h = (h ^ (b & 0xff)) * FNV_PRIME;
            }
        }
        return safeEncode(Integer.toUnsignedString(h));
    }

    /** apimachinery's {@code rand.SafeEncodeString}: every character mapped into an alphabet without vowels. */
    static String safeEncode(String s) {
        StringBuilder out = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            out.append(ALPHANUMS.charAt((s.charAt(i) & 0xff) % ALPHANUMS.length()));
        }
        return out.toString();
    }

    /**
     * kube's {@code EqualIgnoreHash}: whether two pod templates are the same once the {@code pod-template-hash} label
     * is removed from both. Compared on the JSON form, where an unset and an empty list or map are both absent (as
     * {@code apiequality.Semantic.DeepEqual} treats nil and empty alike).
     */
    static boolean equalIgnoringHash(PodTemplateSpec a, PodTemplateSpec b) {
        return withoutHashLabel(normalized(a)).equals(withoutHashLabel(normalized(b)));
    }

    /**
     * Objects whose emptiness means nothing (Go maps, where nil and empty are semantically equal, and
     * {@code metadata}, a struct): dropped when empty. Other empty objects ({@code emptyDir: {}}) are a non-nil
     * pointer in Go and stay.
     */
    private static final java.util.Set<String> MAPS =
            java.util.Set.of("metadata", "labels", "annotations", "nodeSelector", "limits", "requests");

    /** The template as a JSON tree without nulls, empty lists, or empty maps (see {@link #MAPS}). */
    private static JsonNode normalized(PodTemplateSpec template) {
        JsonNode tree = JSON.valueToTree(template);
        prune(tree);
        return tree;
    }

    private static void prune(JsonNode node) {
        if (node instanceof ObjectNode object) {
            List<String> drop = new ArrayList<>();
            for (var e : object.properties()) {
                JsonNode child = e.getValue();
                prune(child);
                if (child.isNull()
                        || (child.isArray() && child.isEmpty())
                        || (child.isObject() && child.isEmpty() && MAPS.contains(e.getKey()))) {
                    drop.add(e.getKey());
                }
            }
            drop.forEach(object::remove);
        } else if (node.isArray()) {
            for (JsonNode child : node) {
                prune(child);
            }
        }
    }

    private static JsonNode withoutHashLabel(JsonNode template) {
        if (template.get("metadata") instanceof ObjectNode metadata
                && metadata.get("labels") instanceof ObjectNode labels) {
            labels.remove(LABEL);
            if (labels.isEmpty()) {
                metadata.remove("labels");
            }
            if (metadata.isEmpty()) {
                ((ObjectNode) template).remove("metadata");
            }
        }
        return template;
    }

    /** Compact JSON with the keys of every object sorted: one text per tree, whatever order the maps were built in. */
    static String canonicalJson(JsonNode node) {
        StringBuilder out = new StringBuilder(1024);
        write(node, out);
        return out.toString();
    }

    private static void write(JsonNode node, StringBuilder out) {
        if (node.isObject()) {
            Map<String, JsonNode> fields = new HashMap<>();
            for (var e : node.properties()) {
                fields.put(e.getKey(), e.getValue());
            }
            List<String> names = new ArrayList<>(fields.keySet());
            names.sort(null);
            out.append('{');
            boolean first = true;
            for (String name : names) {
                if (!first) {
                    out.append(',');
                }
                first = false;
                out.append(JSON.writeValueAsString(name)).append(':');
                write(fields.get(name), out);
            }
            out.append('}');
        } else if (node.isArray()) {
            out.append('[');
            for (int i = 0; i < node.size(); i++) {
                if (i > 0) {
                    out.append(',');
                }
                write(node.get(i), out);
            }
            out.append(']');
        } else {
            out.append(JSON.writeValueAsString(node));
        }
    }
}
