package io.kubeloop.apiserver.internal.storage;

/**
 * Where the next page of a list starts: strictly after {@code after}, with {@code remaining} objects still to come
 * at the list's revision (or -1 if unknown, for filtered lists).
 *
 * <p>Its text form, {@code <remaining>:<namespace>/<name>}, is what {@link ListResult#continueKey()} hands out.
 * Carrying the count lets every page after the first report kube-apiserver's {@code remainingItemCount} without
 * counting the rest of the range again: the snapshot does not change along a continue chain, so the count
 * stays exact. Namespaces and names contain no {@code /}; names may contain {@code :}, which is why the count
 * comes first.
 */
record ContinueKey(long remaining, StorageKey after) {

    String format() {
        return remaining + ":" + after.namespace() + "/" + after.name();
    }

    /**
     * Parses a continue key of a list of {@code group}/{@code resource} in {@code namespace} (null for all).
     *
     * @throws IllegalArgumentException if it is malformed or belongs to another namespace
     */
    static ContinueKey parse(String group, String resource, String namespace, String text) {
        int colon = text.indexOf(':');
        int slash = text.indexOf('/', colon + 1);
        if (colon < 0 || slash < 0) {
            throw new IllegalArgumentException("malformed continue key: " + text);
        }
        long remaining;
        try {
            remaining = Long.parseLong(text.substring(0, colon));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("malformed continue key: " + text, e);
        }
        if (remaining < -1) {
            throw new IllegalArgumentException("malformed continue key: " + text);
        }
        String ns = text.substring(colon + 1, slash);
        if (namespace != null && !namespace.equals(ns)) {
            throw new IllegalArgumentException("continue key " + text + " is not in namespace " + namespace);
        }
        return new ContinueKey(remaining, new StorageKey(group, resource, ns, text.substring(slash + 1)));
    }
}
