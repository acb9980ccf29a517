package io.kubeloop.informer.audit;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.kubeloop.client.resource.ListOptions;
import io.kubeloop.client.resource.ListPage;
import io.kubeloop.client.resource.WatchOptions;
import io.kubeloop.informer.reflector.ListerWatcher;
import io.kubeloop.informer.reflector.WatchStream;
import io.kubeloop.informer.testing.FakeSource;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The auditor's scenario server: a {@link FakeSource} of configmaps driven by key ({@code namespace/name}), which
 * also remembers the thread of the last list and can expire the continue tokens right after a first page (the
 * server compacting in the middle of a paged list).
 */
final class ScriptedServer implements ListerWatcher<ConfigMap> {

    final FakeSource<ConfigMap> source = new FakeSource<>();
    final AtomicReference<Thread> lastListThread = new AtomicReference<>();
    /** What the source holds, by key, as its writes returned it (the source's own copies cost a JSON round trip). */
    private final Map<String, ConfigMap> stored = new ConcurrentSkipListMap<>();

    private volatile boolean expireAfterFirstPage;

    /** Creates or updates {@code namespace/name}; returns the stored object with its new resourceVersion. */
    ConfigMap put(String key) {
        ConfigMap current = stored.get(key);
        String[] parts = key.split("/", 2);
        ConfigMap written = current != null
                ? source.modify(current)
                : source.add(new ConfigMapBuilder()
                        .withNewMetadata()
                        .withNamespace(parts[0])
                        .withName(parts[1])
                        .endMetadata()
                        .build());
        stored.put(key, written);
        return written;
    }

    void remove(String key) {
        source.delete(stored.remove(key));
    }

    /** The stored object, or null. */
    ConfigMap get(String key) {
        return stored.get(key);
    }

    Map<String, ConfigMap> objects() {
        return stored;
    }

    int lists() {
        return source.listCalls();
    }

    List<ListOptions> listOptions() {
        return source.listRequests();
    }

    /** The next paged list's continue token expires (410) as soon as its first page has been served. */
    void expireContinueAfterFirstPage() {
        expireAfterFirstPage = true;
    }

    @Override
    public ListPage<ConfigMap> list(ListOptions options) {
        lastListThread.set(Thread.currentThread());
        ListPage<ConfigMap> page = source.list(options);
        if (expireAfterFirstPage && page.hasMore()) {
            expireAfterFirstPage = false;
            source.expireContinueTokens();
        }
        return page;
    }

    @Override
    public WatchStream<ConfigMap> watch(WatchOptions options) {
        throw new UnsupportedOperationException("the auditor never watches");
    }
}
