package io.kubeloop.client.resource;

import java.util.List;
import java.util.Objects;

/**
 * One page of a list, or all of them ({@link ResourceClient#listAll}).
 *
 * @param items the objects, in the server's order (namespace, then name)
 * @param resourceVersion the list's resourceVersion: the snapshot every page of one list was read at, and where
 *     a watch should start
 * @param continueToken the token for the next page; null on the last page
 * @param remainingItemCount how many objects the following pages hold, when the server says; else null
 */
public record ListPage<T>(List<T> items, String resourceVersion, String continueToken, Long remainingItemCount) {

    public ListPage {
        items = List.copyOf(Objects.requireNonNull(items, "items"));
    }

    /** Whether another page follows. */
    public boolean hasMore() {
        return continueToken != null && !continueToken.isEmpty();
    }
}
