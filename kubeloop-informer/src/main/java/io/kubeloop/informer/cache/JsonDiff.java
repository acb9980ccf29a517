package io.kubeloop.informer.cache;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * A bounded list of the differences between two JSON documents, for the mutation detector's reports: each
 * {@code /json/pointer: before -> after}, with {@code absent} for a missing member and long values cut.
 */
final class JsonDiff {

    private static final int MAX_VALUE_CHARS = 80;

    private JsonDiff() {}

    /**
     * At most {@code max} differences between {@code before} and {@code after}; with {@code redact}, values are
     * left out and only paths are shown (a Secret's data must not reach a log).
     */
    static List<String> differences(ObjectMapper mapper, byte[] before, byte[] after, int max, boolean redact) {
        List<String> out = new ArrayList<>();
        JsonNode a = mapper.readTree(before);
        JsonNode b = mapper.readTree(after);
        int[] found = {0};
        compare("", a, b, out, max, redact, found);
        if (found[0] > out.size()) {
            out.add("... and " + (found[0] - out.size()) + " more");
        }
        if (out.isEmpty()) {
            // Same tree, different bytes: for example map entries in another order.
            out.add("the serialised form changed (same content in another order)");
        }
        return out;
    }

    private static void compare(
            String path, JsonNode a, JsonNode b, List<String> out, int max, boolean redact, int[] found) {
        // An absent member compares as an empty one of the other's type, so added or removed objects and arrays
        // are reported leaf by leaf ("/metadata/labels/app: absent -> ...", not the whole map).
        if ((a == null || a.isObject()) && (b == null || b.isObject()) && (a != null || b != null)) {
            Set<String> names = new LinkedHashSet<>();
            if (a != null) {
                names.addAll(a.propertyNames());
            }
            if (b != null) {
                names.addAll(b.propertyNames());
            }
            for (String name : names) {
                compare(
                        path + "/" + name.replace("~", "~0").replace("/", "~1"),
                        a == null ? null : a.get(name),
                        b == null ? null : b.get(name),
                        out,
                        max,
                        redact,
                        found);
            }
        } else if ((a == null || a.isArray()) && (b == null || b.isArray()) && (a != null || b != null)) {
            int sizeA = a == null ? 0 : a.size();
            int sizeB = b == null ? 0 : b.size();
            for (int i = 0; i < Math.max(sizeA, sizeB); i++) {
                compare(
                        path + "/" + i,
                        i < sizeA ? a.get(i) : null,
                        i < sizeB ? b.get(i) : null,
                        out,
                        max,
                        redact,
                        found);
            }
        } else if (a == null ? b != null : !a.equals(b)) {
            if (found[0]++ < max) {
                String where = path.isEmpty() ? "/" : path;
                out.add(redact ? where + ": changed" : where + ": " + show(a) + " -> " + show(b));
            }
        }
    }

    private static String show(JsonNode node) {
        if (node == null) {
            return "absent";
        }
        String text = node.toString();
        return text.length() <= MAX_VALUE_CHARS ? text : text.substring(0, MAX_VALUE_CHARS) + "...";
    }
}
