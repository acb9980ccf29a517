package io.kubeloop.apiserver.internal.storage;

import java.util.List;
import java.util.Objects;
import tools.jackson.databind.node.ObjectNode;

/**
 * One page of a {@link Store#list list}.
 *
 * @param items the objects in key order, as stored (shared with the store: never change them)
 * @param revision the revision the list was taken at; later pages must ask for exactly this revision (a
 *     consistent snapshot), and a watch from it continues exactly after this list
 * @param hasMore whether matching objects follow this page
 * @param continueKey if {@code hasMore}, the key to pass to the next page's {@code list} call (opaque to the
 *     REST layer, which wraps it in its continue token together with {@code revision}); otherwise null
 * @param remainingCount how many objects follow this page, when the list had no filter (kube-apiserver's
 *     {@code remainingItemCount}); -1 with a filter, where the count is not known
 */
public record ListResult(
        List<ObjectNode> items, long revision, boolean hasMore, String continueKey, long remainingCount) {

    public ListResult {
        items = List.copyOf(items);
        if (hasMore) {
            Objects.requireNonNull(continueKey, "continueKey when hasMore");
        } else if (continueKey != null) {
            throw new IllegalArgumentException("a continue key without more items");
        }
    }
}
