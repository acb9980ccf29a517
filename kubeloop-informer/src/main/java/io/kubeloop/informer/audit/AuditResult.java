package io.kubeloop.informer.audit;

import java.util.List;
import java.util.Objects;
import java.util.stream.Stream;

/**
 * What one {@link CacheAuditor#audit() audit} found: the differences between a cache and the server that were
 * still there after the settle time. Keys are the cache's keys ({@code namespace/name}, or {@code name} for a
 * cluster-scoped object), each list sorted by key.
 *
 * @param missingInCache keys the server has and the cache does not
 * @param extraInCache keys the cache has and the server does not (a "ghost" object)
 * @param staleInCache keys both have, at different resourceVersions
 * @param checkedObjects how many objects the server listed (in the last list the audit read)
 * @param serverResourceVersion the resourceVersion of that list: the server state the differences refer to
 */
public record AuditResult(
        List<String> missingInCache,
        List<String> extraInCache,
        List<StaleObject> staleInCache,
        int checkedObjects,
        String serverResourceVersion) {

    /** How many keys {@link #toString()} names per kind of difference. */
    static final int EXAMPLES = 10;

    public AuditResult {
        missingInCache = List.copyOf(Objects.requireNonNull(missingInCache, "missingInCache"));
        extraInCache = List.copyOf(Objects.requireNonNull(extraInCache, "extraInCache"));
        staleInCache = List.copyOf(Objects.requireNonNull(staleInCache, "staleInCache"));
        if (checkedObjects < 0) {
            throw new IllegalArgumentException("checkedObjects must be ≥ 0: " + checkedObjects);
        }
    }

    /**
     * An object the cache holds at another resourceVersion than the server.
     *
     * @param key the object's key
     * @param cachedResourceVersion the resourceVersion in the cache
     * @param serverResourceVersion the resourceVersion on the server
     */
    public record StaleObject(String key, String cachedResourceVersion, String serverResourceVersion) {
        public StaleObject {
            Objects.requireNonNull(key, "key");
        }

        @Override
        public String toString() {
            return key + " (cached " + cachedResourceVersion + ", server " + serverResourceVersion + ")";
        }
    }

    /** True when the cache equals the server: nothing missing, extra or stale. */
    public boolean isClean() {
        return driftedObjects() == 0;
    }

    /** How many objects differ: missing + extra + stale. */
    public int driftedObjects() {
        return missingInCache.size() + extraInCache.size() + staleInCache.size();
    }

    /** Up to {@code limit} keys of drifted objects, missing first, then extra, then stale. */
    public List<String> exampleKeys(int limit) {
        if (limit < 0) {
            throw new IllegalArgumentException("limit must be ≥ 0: " + limit);
        }
        return Stream.of(
                        missingInCache.stream(),
                        extraInCache.stream(),
                        staleInCache.stream().map(StaleObject::key))
                .flatMap(s -> s)
                .limit(limit)
                .toList();
    }

    /**
     * {@code clean: 120 objects at resourceVersion 345}, or
     * {@code drift: 2 missing in cache [default/a, default/b], 0 extra in cache [], 1 stale in cache
     * [default/c (cached 12, server 15)]; 120 objects at resourceVersion 345}, naming at most ten keys of each.
     */
    @Override
    public String toString() {
        String where = checkedObjects + " objects at resourceVersion " + serverResourceVersion;
        if (isClean()) {
            return "clean: " + where;
        }
        return "drift: " + missingInCache.size() + " missing in cache " + examples(missingInCache) + ", "
                + extraInCache.size() + " extra in cache " + examples(extraInCache) + ", "
                + staleInCache.size() + " stale in cache " + examples(staleInCache) + "; " + where;
    }

    private static String examples(List<?> items) {
        if (items.size() <= EXAMPLES) {
            return items.toString();
        }
        String shown = items.subList(0, EXAMPLES).toString();
        return shown.substring(0, shown.length() - 1) + ", … " + (items.size() - EXAMPLES) + " more]";
    }
}
