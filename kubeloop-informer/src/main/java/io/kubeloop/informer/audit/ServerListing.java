package io.kubeloop.informer.audit;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.kubeloop.client.errors.ExpiredException;
import io.kubeloop.client.resource.ListOptions;
import io.kubeloop.client.resource.ListPage;
import io.kubeloop.informer.cache.KeyFunc;
import io.kubeloop.informer.reflector.ListerWatcher;
import java.util.HashMap;
import java.util.Map;

/**
 * The server's state as an audit compares it: every object's key and resourceVersion, read from one consistent
 * snapshot (a list at the newest resourceVersion, page by page along the {@code continue} tokens).
 *
 * @param resourceVersions key → resourceVersion of every listed object
 * @param resourceVersion the list's resourceVersion
 */
record ServerListing(Map<String, String> resourceVersions, String resourceVersion) {

    /**
     * Lists everything {@code source} serves, {@code pageSize} objects a page (0: one request). When a continue
     * token expires (410) before the last page, the pages read so far are dropped and the whole list is read
     * again in one request, as client-go's pager does: consistent, but unpaged.
     */
    static <T extends HasMetadata> ServerListing read(ListerWatcher<T> source, KeyFunc keyFunc, int pageSize) {
        Map<String, String> versions = new HashMap<>();
        ListOptions options = ListOptions.builder().limit(pageSize).build();
        String resourceVersion = null;
        String previousToken = null;
        // Bounded by the server: each page advances the continue token; a repeated token is a server bug we
        // stop on rather than loop forever.
        while (true) {
            ListPage<T> page;
            try {
                page = source.list(options);
            } catch (ExpiredException e) {
                if (options.continueToken() == null) {
                    throw e;
                }
                ListPage<T> full = source.list(ListOptions.none());
                versions.clear();
                collect(full, keyFunc, versions);
                return new ServerListing(versions, full.resourceVersion());
            }
            collect(page, keyFunc, versions);
            if (resourceVersion == null) {
                resourceVersion = page.resourceVersion();
            }
            if (!page.hasMore()) {
                return new ServerListing(versions, resourceVersion);
            }
            if (page.continueToken().equals(previousToken)) {
                throw new IllegalStateException("the server repeated the continue token " + previousToken);
            }
            previousToken = page.continueToken();
            options = ListOptions.builder()
                    .limit(pageSize)
                    .continueToken(page.continueToken())
                    .build();
        }
    }

    private static <T extends HasMetadata> void collect(
            ListPage<T> page, KeyFunc keyFunc, Map<String, String> versions) {
        for (T object : page.items()) {
            versions.put(keyFunc.keyOf(object), CacheAuditor.resourceVersionOf(object));
        }
    }
}
