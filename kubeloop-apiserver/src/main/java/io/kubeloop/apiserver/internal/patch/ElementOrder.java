package io.kubeloop.apiserver.internal.patch;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import tools.jackson.databind.JsonNode;

/**
 * The ordering rules of strategic merge patch for merged lists, as upstream implements them
 * ({@code normalizeElementOrder}, {@code mergeSortedSlice}, {@code partition*ByPresentInList}): items named by
 * the patch (or by {@code $setElementOrder}) take the patch's order, items only on the server keep the
 * server's order, and the two runs are interleaved so that a server-only item stays before the patch item it
 * preceded on the server. Precedence: {@code $setElementOrder} &gt; order in the patch list &gt; order on the
 * server.
 *
 * <p>Items are compared by merge key value for lists of maps ({@code mergeKey} non-null) and by value for lists
 * of primitives, with Go's {@code ==} ({@link JsonValues#sameValue}).
 */
final class ElementOrder {

    private ElementOrder() {}

    /** The items of {@code merged} present in {@code by} (first) and the others (second), each in list order. */
    static List<List<JsonNode>> partition(List<JsonNode> merged, List<JsonNode> by, String mergeKey) {
        List<JsonNode> present = new ArrayList<>();
        List<JsonNode> serverOnly = new ArrayList<>();
        if (mergeKey == null) {
            Set<Object> in = new HashSet<>();
            for (JsonNode v : by) {
                in.add(JsonValues.scalarKey(v));
            }
            for (JsonNode v : merged) {
                (in.contains(JsonValues.scalarKey(v)) ? present : serverOnly).add(v);
            }
        } else {
            for (JsonNode v : merged) {
                JsonNode key = mergeKeyOf(v, mergeKey);
                boolean found = false;
                for (JsonNode o : by) {
                    if (!o.isObject()) {
                        throw PatchException.badRequest("value for key " + by.indexOf(o) + " is not a map.");
                    }
                    JsonNode ok = o.get(mergeKey);
                    if (ok != null && JsonValues.sameValue(ok, key)) {
                        found = true;
                        break;
                    }
                }
                (found ? present : serverOnly).add(v);
            }
        }
        return List.of(present, serverOnly);
    }

    /** The merge key value of a list item, failing as upstream does when it is not a map or lacks the key. */
    static JsonNode mergeKeyOf(JsonNode item, String mergeKey) {
        if (!item.isObject()) {
            throw PatchException.badRequest(
                    "expected a map[string]interface {}, but received a " + JsonValues.goTypeName(item));
        }
        JsonNode key = item.get(mergeKey);
        if (key == null) {
            throw noMergeKey(item, mergeKey);
        }
        return key;
    }

    static PatchException noMergeKey(JsonNode item, String mergeKey) {
        return PatchException.badRequest(
                "map: " + JsonValues.go(item) + " does not contain declared merge key: " + mergeKey);
    }

    /**
     * Sorts {@code patch} by {@code patchOrder} and {@code serverOnly} by {@code serverOrder}, then interleaves
     * them ({@code normalizeElementOrder}).
     */
    static List<JsonNode> normalize(
            List<JsonNode> patch,
            List<JsonNode> serverOnly,
            List<JsonNode> patchOrder,
            List<JsonNode> serverOrder,
            String mergeKey,
            boolean maps) {
        List<JsonNode> sortedPatch = sortBy(patch, patchOrder, mergeKey, maps);
        List<JsonNode> sortedServer = sortBy(serverOnly, serverOrder, mergeKey, maps);
        return mergeSorted(sortedServer, sortedPatch, serverOrder, mergeKey, maps);
    }

    /**
     * {@code normalizeSliceOrder}: a stable sort of {@code toSort} by position in {@code order}, with items
     * carrying {@code $patch: delete} moved to the end. Uses insertion sort with upstream's comparison
     * (an item missing from {@code order} compares as "less"), which is what Go's stable sort does for
     * lists of up to 20 items.
     */
    static List<JsonNode> sortBy(List<JsonNode> toSort, List<JsonNode> order, String mergeKey, boolean maps) {
        List<JsonNode> keep = new ArrayList<>();
        List<JsonNode> deletes = new ArrayList<>();
        if (maps) {
            for (JsonNode item : toSort) {
                mergeKeyOf(item, mergeKey);
            }
            for (JsonNode item : order) {
                mergeKeyOf(item, mergeKey);
            }
            for (JsonNode item : toSort) {
                JsonNode directive = item.get(StrategicMergePatch.DIRECTIVE);
                boolean delete = directive != null
                        && directive.isString()
                        && directive.stringValue().equals(StrategicMergePatch.DELETE);
                (delete ? deletes : keep).add(item);
            }
        } else {
            keep.addAll(toSort);
        }
        JsonNode[] a = keep.toArray(new JsonNode[0]);
        for (int i = 1; i < a.length; i++) {
            for (int j = i; j > 0 && less(a[j], a[j - 1], order, mergeKey, maps); j--) {
                JsonNode t = a[j];
                a[j] = a[j - 1];
                a[j - 1] = t;
            }
        }
        List<JsonNode> out = new ArrayList<>(List.of(a));
        out.addAll(deletes);
        return out;
    }

    private static boolean less(JsonNode x, JsonNode y, List<JsonNode> order, String mergeKey, boolean maps) {
        int ix = index(order, x, mergeKey, maps);
        if (ix >= 0) {
            int iy = index(order, y, mergeKey, maps);
            if (iy >= 0) {
                return ix < iy;
            }
        }
        return true;
    }

    /** Position of {@code item} in {@code list}, by merge key for maps and by value otherwise; -1 if absent. */
    static int index(List<JsonNode> list, JsonNode item, String mergeKey, boolean maps) {
        JsonNode wanted = maps ? keyOrNull(item, mergeKey) : item;
        for (int i = 0; i < list.size(); i++) {
            JsonNode candidate = maps ? keyOrNull(list.get(i), mergeKey) : list.get(i);
            if (JsonValues.sameValue(wanted, candidate)) {
                return i;
            }
        }
        return -1;
    }

    private static JsonNode keyOrNull(JsonNode item, String mergeKey) {
        return item.isObject() ? item.get(mergeKey) : null;
    }

    /**
     * {@code mergeSortedSlice}: interleaves two sorted, disjoint runs, taking from {@code left} (server-only
     * items) while its head precedes the head of {@code right} (patch items) in {@code serverOrder}.
     */
    static List<JsonNode> mergeSorted(
            List<JsonNode> left, List<JsonNode> right, List<JsonNode> serverOrder, String mergeKey, boolean maps) {
        List<JsonNode> out = new ArrayList<>(left.size() + right.size());
        int i = 0;
        int j = 0;
        while (i < left.size() && j < right.size()) {
            int li = index(serverOrder, left.get(i), mergeKey, maps);
            int ri = index(serverOrder, right.get(j), mergeKey, maps);
            if (li >= 0 && ri >= 0 && li < ri) {
                out.add(left.get(i++));
            } else {
                out.add(right.get(j++));
            }
        }
        out.addAll(left.subList(i, left.size()));
        out.addAll(right.subList(j, right.size()));
        return out;
    }
}
