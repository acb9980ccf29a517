package io.kubeloop.apiserver.internal.patch;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * A set of field paths, the unit of field ownership in server-side apply, with its FieldsV1 encoding:
 * a JSON object whose keys are {@link FieldPath} spellings, nested along the paths, where {@code "."} marks
 * a path that is itself in the set and also has members below it.
 */
final class FieldSet {

    private static final JsonMapper MAPPER = JsonMapper.builder().build();

    private final Set<List<FieldPath>> paths = new LinkedHashSet<>();

    void add(List<FieldPath> path) {
        paths.add(List.copyOf(path));
    }

    boolean contains(List<FieldPath> path) {
        return paths.contains(path);
    }

    Set<List<FieldPath>> paths() {
        return paths;
    }

    boolean isEmpty() {
        return paths.isEmpty();
    }

    void addAll(FieldSet other) {
        paths.addAll(other.paths);
    }

    /** True if the set holds {@code path} or any path below it. */
    boolean containsPrefix(List<FieldPath> path) {
        for (List<FieldPath> p : paths) {
            if (p.size() >= path.size() && p.subList(0, path.size()).equals(path)) {
                return true;
            }
        }
        return false;
    }

    // ---- FieldsV1 ------------------------------------------------------------------------------------------

    private static final class Node {
        boolean member;
        final TreeMap<FieldPath, Node> children = new TreeMap<>();
    }

    /** The FieldsV1 encoding, keys in structured-merge-diff's order. */
    ObjectNode toFieldsV1() {
        Node root = new Node();
        for (List<FieldPath> path : paths) {
            Node n = root;
            for (FieldPath p : path) {
                n = n.children.computeIfAbsent(p, k -> new Node());
            }
            n.member = true;
        }
        return encode(root, false);
    }

    private static ObjectNode encode(Node node, boolean self) {
        ObjectNode out = JsonValues.object();
        if (self && node.member && !node.children.isEmpty()) {
            out.set(".", JsonValues.object());
        }
        for (Map.Entry<FieldPath, Node> e : node.children.entrySet()) {
            out.set(e.getKey().text(), encode(e.getValue(), true));
        }
        return out;
    }

    /** Decodes FieldsV1; unknown keys are skipped. */
    static FieldSet fromFieldsV1(JsonNode fields) {
        FieldSet set = new FieldSet();
        if (fields != null && fields.isObject()) {
            decode(fields, new ArrayList<>(), set);
        }
        return set;
    }

    private static void decode(JsonNode node, List<FieldPath> prefix, FieldSet set) {
        for (Map.Entry<String, JsonNode> e : node.properties()) {
            if (e.getKey().equals(".")) {
                set.add(prefix);
                continue;
            }
            FieldPath p = FieldPath.parse(e.getKey(), MAPPER);
            if (p == null) {
                continue;
            }
            prefix.add(p);
            if (e.getValue().isObject() && !e.getValue().isEmpty()) {
                decode(e.getValue(), prefix, set);
            } else {
                set.add(prefix);
            }
            prefix.remove(prefix.size() - 1);
        }
    }

    @Override
    public String toString() {
        return toFieldsV1().toString();
    }
}
