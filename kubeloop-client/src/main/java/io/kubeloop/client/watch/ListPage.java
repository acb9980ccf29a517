package io.kubeloop.client.watch;

/**
 * What a list response says about itself, once {@link ListDecoder} has handed its items out one by one.
 *
 * @param kind the list's kind, e.g. {@code PodList}; null when absent
 * @param resourceVersion {@code metadata.resourceVersion}: the list is the state at this version, from which a
 *     watch can continue
 * @param continueToken {@code metadata.continue}: pass it as {@code continue} for the next page; null on the
 *     last page
 * @param remainingItemCount {@code metadata.remainingItemCount}: how many items later pages hold, when the
 *     server says; null otherwise
 * @param itemCount how many items this page held
 */
public record ListPage(String kind, String resourceVersion, String continueToken, Long remainingItemCount,
        long itemCount) {

    /** True when a later page follows ({@code metadata.continue} is set). */
    public boolean hasMore() {
        return continueToken != null && !continueToken.isEmpty();
    }
}
