package io.kubeloop.informer.audit;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.kubeloop.client.resource.ListOptions;
import io.kubeloop.client.resource.ListPage;
import io.kubeloop.client.resource.WatchOptions;
import io.kubeloop.informer.cache.Keys;
import io.kubeloop.informer.reflector.ListerWatcher;
import io.kubeloop.informer.reflector.WatchStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * A server of configmaps for the auditor's scenario tests: objects keyed {@code namespace/name} with a global
 * revision counter, listed page by page ({@code continue} = the last key of the previous page). The auditor only
 * lists, so {@link #watch} is refused. {@code failNextList} makes the next list throw.
 */
final class ScriptedServer implements ListerWatcher<ConfigMap> {

    private final NavigableMap<String, ConfigMap> objects = new ConcurrentSkipListMap<>();
    private final AtomicLong revision = new AtomicLong(100);
    final AtomicInteger lists = new AtomicInteger();
    final java.util.concurrent.atomic.AtomicReference<Thread> lastListThread =
            new java.util.concurrent.atomic.AtomicReference<>();
    final List<ListOptions> listOptions = new java.util.concurrent.CopyOnWriteArrayList<>();
    private volatile Supplier<RuntimeException> failNextList;
    private volatile Supplier<RuntimeException> failNextContinue;

    /** Creates or updates {@code namespace/name}; returns the stored object with its new resourceVersion. */
    ConfigMap put(String key) {
        String[] parts = key.split("/", 2);
        ConfigMap cm = new ConfigMapBuilder().withNewMetadata().withNamespace(parts[0]).withName(parts[1])
                .withResourceVersion(Long.toString(revision.incrementAndGet())).endMetadata().build();
        objects.put(key, cm);
        return cm;
    }

    void remove(String key) {
        revision.incrementAndGet();
        objects.remove(key);
    }

    ConfigMap get(String key) {
        return objects.get(key);
    }

    Map<String, ConfigMap> objects() {
        return objects;
    }

    void failNextList(Supplier<RuntimeException> failure) {
        this.failNextList = failure;
    }

    void failNextContinue(Supplier<RuntimeException> failure) {
        this.failNextContinue = failure;
    }

    @Override
    public ListPage<ConfigMap> list(ListOptions options) {
        listOptions.add(options);
        lastListThread.set(Thread.currentThread());
        lists.incrementAndGet();
        Supplier<RuntimeException> failure = failNextList;
        if (failure != null) {
            failNextList = null;
            throw failure.get();
        }
        failure = failNextContinue;
        if (failure != null && options.continueToken() != null) {
            failNextContinue = null;
            throw failure.get();
        }
        String rv = Long.toString(revision.get());
        NavigableMap<String, ConfigMap> from = options.continueToken() == null ? objects
                : objects.tailMap(options.continueToken(), false);
        List<ConfigMap> items = new ArrayList<>();
        for (ConfigMap cm : from.values()) {
            if (options.limit() > 0 && items.size() == options.limit()) {
                String last = Keys.META_NAMESPACE.keyOf(items.getLast());
                return new ListPage<>(items, rv, last, (long) (from.size() - items.size()));
            }
            items.add(cm);
        }
        return new ListPage<>(items, rv, null, null);
    }

    @Override
    public WatchStream<ConfigMap> watch(WatchOptions options) {
        throw new UnsupportedOperationException("the auditor never watches");
    }
}
