package io.kubeloop.client.resource;

import io.kubeloop.client.codec.UndecodableObject;
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
 * @param undecodable objects of the page left out of {@code items} because they do not decode to the Java type
 *     (only from a client {@code withUndecodableObjects(SKIP)}; empty otherwise), in the server's order
 */
public record ListPage<T>(
        List<T> items,
        String resourceVersion,
        String continueToken,
        Long remainingItemCount,
        List<UndecodableObject> undecodable) {

    public ListPage {
        items = List.copyOf(Objects.requireNonNull(items, "items"));
        undecodable = List.copyOf(Objects.requireNonNull(undecodable, "undecodable"));
    }

    /** A page whose every object decoded. */
    public ListPage(List<T> items, String resourceVersion, String continueToken, Long remainingItemCount) {
        this(items, resourceVersion, continueToken, remainingItemCount, List.of());
    }

    /** Whether another page follows. */
    public boolean hasMore() {
        return continueToken != null && !continueToken.isEmpty();
    }
}
