package io.kubeloop.informer.reflector;

import io.kubeloop.client.codec.UndecodableObject;
import io.kubeloop.client.resource.ListOptions;
import io.kubeloop.client.resource.ListPage;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * client-go's {@code tools/pager} with the reflector's page-size rules (client-go-semantics.md §2.4): reads every
 * page of one list, and reads the list again whole if a continue token expires. Used from the reflector's run
 * thread only.
 *
 * <p>Invariant: {@code paginatedResult} turns true once, when a list at resourceVersion "0" came back paged (the
 * server has no watch cache for the resource), and every later list is then paged.
 */
final class ListPager<T> {

    private static final Logger LOG = LoggerFactory.getLogger(Reflector.class);

    /**
     * A complete list: every item of every page, the first page's resourceVersion, and the objects of every page
     * that did not decode.
     */
    record Listed<T>(List<T> items, String resourceVersion, List<UndecodableObject> undecodable) {}

    private final String name;
    /** 0: client-go's rules choose between the default page size and no limit. */
    private final long fixedPageSize;

    private final Function<ListOptions, ListPage<T>> fetch;
    private boolean paginatedResult;

    ListPager(String name, long fixedPageSize, Function<ListOptions, ListPage<T>> fetch) {
        this.name = name;
        this.fixedPageSize = fixedPageSize;
        this.fetch = fetch;
    }

    /** The page size of a list at {@code rv}: 0 for no limit. */
    long pageSizeFor(String rv) {
        if (fixedPageSize > 0) {
            return fixedPageSize;
        }
        if (paginatedResult) {
            return Reflector.DEFAULT_PAGE_SIZE;
        }
        if (!rv.isEmpty() && !rv.equals("0")) {
            return 0; // may be served from the server's watch cache, which does not page
        }
        return Reflector.DEFAULT_PAGE_SIZE;
    }

    /**
     * Every object at {@code rv} ("" newest, "0" any, else at least that version). An expired token of a later
     * page → the whole list again, unpaged, at {@code rv}; an error of the first page is thrown unchanged.
     */
    Listed<T> list(String rv) {
        long limit = pageSizeFor(rv);
        ListPage<T> first = fetch.apply(
                ListOptions.builder().resourceVersion(rv).limit(limit).build());
        if (!first.hasMore()) {
            return new Listed<>(first.items(), first.resourceVersion(), first.undecodable());
        }
        if (rv.equals("0")) {
            paginatedResult = true;
        }
        List<T> items = new ArrayList<>(first.items());
        List<UndecodableObject> undecodable = new ArrayList<>(first.undecodable());
        ListPage<T> page = first;
        while (page.hasMore()) {
            String token = page.continueToken();
            try {
                // The server refuses a resourceVersion beside a continue token: the token holds the snapshot.
                page = fetch.apply(
                        ListOptions.builder().limit(limit).continueToken(token).build());
            } catch (RuntimeException e) {
                if (!Failures.isExpired(e)) {
                    throw e;
                }
                LOG.info(
                        "{}: the continue token of a paged list expired after {} objects; listing again, unpaged, "
                                + "at resourceVersion \"{}\"",
                        name,
                        items.size(),
                        rv);
                ListPage<T> whole =
                        fetch.apply(ListOptions.builder().resourceVersion(rv).build());
                return new Listed<>(whole.items(), whole.resourceVersion(), whole.undecodable());
            }
            items.addAll(page.items());
            undecodable.addAll(page.undecodable());
        }
        return new Listed<>(items, first.resourceVersion(), undecodable);
    }
}
