package io.kubeloop.informer.testing;

import io.kubeloop.client.resource.ListOptions;
import io.kubeloop.client.resource.ListPage;
import io.kubeloop.client.resource.WatchOptions;
import io.kubeloop.informer.reflector.ListerWatcher;
import io.kubeloop.informer.reflector.WatchStream;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Passes lists and watches through to the real lister-watcher and counts them, with their failures by exception
 * class: a test's evidence of how often an informer or auditor listed, and that faults reached it (it relisted,
 * re-watched, failed).
 */
public final class CountingListerWatcher<T> implements ListerWatcher<T> {

    private final ListerWatcher<T> delegate;
    /** List requests (every page counts). */
    public final AtomicInteger lists = new AtomicInteger();
    /** Lists (requests without a continue token). */
    public final AtomicInteger firstPages = new AtomicInteger();

    public final AtomicInteger watches = new AtomicInteger();
    /** Failed lists, watch opens and watch reads by exception class name. */
    public final Map<String, AtomicInteger> failures = new ConcurrentHashMap<>();

    public CountingListerWatcher(ListerWatcher<T> delegate) {
        this.delegate = delegate;
    }

    @Override
    public ListPage<T> list(ListOptions options) {
        lists.incrementAndGet();
        if (options.continueToken() == null) {
            firstPages.incrementAndGet();
        }
        try {
            return delegate.list(options);
        } catch (RuntimeException e) {
            failed(e);
            throw e;
        }
    }

    @Override
    public WatchStream<T> watch(WatchOptions options) {
        watches.incrementAndGet();
        WatchStream<T> stream;
        try {
            stream = delegate.watch(options);
        } catch (RuntimeException e) {
            failed(e);
            throw e;
        }
        return new WatchStream<>() {
            @Override
            public io.kubeloop.client.watch.WatchEvent<T> next() throws InterruptedException {
                try {
                    return stream.next();
                } catch (RuntimeException e) {
                    failed(e);
                    throw e;
                }
            }

            @Override
            public void close() {
                stream.close();
            }
        };
    }

    private void failed(RuntimeException e) {
        failures.computeIfAbsent(e.getClass().getSimpleName(), k -> new AtomicInteger())
                .incrementAndGet();
    }

    @Override
    public String toString() {
        return lists.get() + " list requests (" + firstPages.get() + " lists), " + watches.get() + " watches, "
                + "failures " + failures;
    }
}
