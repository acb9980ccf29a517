package io.kubeloop.informer.reflector;

import io.fabric8.kubernetes.api.model.HasMetadata;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * A {@link ReflectorStore} for tests: records every call in order and keeps the resulting state (key → object),
 * and fails loudly if two calls overlap.
 */
final class RecordingStore<T extends HasMetadata> implements ReflectorStore<T> {

    /** One call: add, update, delete (one name), replace (the names, the RV) or resync. */
    record Call(String op, List<String> names, String resourceVersion) {}

    private final ReentrantLock lock = new ReentrantLock();
    private final List<Call> calls = new ArrayList<>();
    private final Map<String, T> state = new TreeMap<>();
    private final AtomicInteger inside = new AtomicInteger();
    private volatile Supplier<? extends RuntimeException> resyncFailure;
    private volatile boolean overlapped;

    @Override
    public void add(T object) {
        record("add", List.of(object), object.getMetadata().getResourceVersion(), () -> state.put(key(object), object));
    }

    @Override
    public void update(T object) {
        record(
                "update",
                List.of(object),
                object.getMetadata().getResourceVersion(),
                () -> state.put(key(object), object));
    }

    @Override
    public void delete(T object) {
        record("delete", List.of(object), object.getMetadata().getResourceVersion(), () -> state.remove(key(object)));
    }

    @Override
    public void replace(Collection<? extends T> objects, String resourceVersion) {
        record("replace", List.copyOf(objects), resourceVersion, () -> {
            state.clear();
            objects.forEach(o -> state.put(key(o), o));
        });
    }

    @Override
    public void resync() {
        Supplier<? extends RuntimeException> failure = resyncFailure;
        record("resync", List.of(), null, () -> {});
        if (failure != null) {
            throw failure.get();
        }
    }

    void failResyncWith(Supplier<? extends RuntimeException> failure) {
        this.resyncFailure = failure;
    }

    private void record(String op, List<? extends T> objects, String rv, Runnable change) {
        if (inside.incrementAndGet() != 1) {
            overlapped = true;
        }
        try {
            lock.lock();
            try {
                calls.add(new Call(
                        op, objects.stream().map(o -> o.getMetadata().getName()).toList(), rv));
                change.run();
            } finally {
                lock.unlock();
            }
        } finally {
            inside.decrementAndGet();
        }
    }

    List<Call> calls() {
        lock.lock();
        try {
            return List.copyOf(calls);
        } finally {
            lock.unlock();
        }
    }

    long count(String op) {
        return calls().stream().filter(c -> c.op().equals(op)).count();
    }

    Call last(String op) {
        List<Call> matching = calls().stream().filter(c -> c.op().equals(op)).toList();
        return matching.isEmpty() ? null : matching.getLast();
    }

    /** Key → resourceVersion of the objects the store holds now. */
    Map<String, String> versions() {
        lock.lock();
        try {
            Map<String, String> out = new TreeMap<>();
            state.forEach((k, v) -> out.put(k, v.getMetadata().getResourceVersion()));
            return out;
        } finally {
            lock.unlock();
        }
    }

    boolean callsOverlapped() {
        return overlapped;
    }

    static String key(HasMetadata o) {
        String ns = o.getMetadata().getNamespace();
        return (ns == null || ns.isEmpty() ? "" : ns + "/") + o.getMetadata().getName();
    }

    static Map<String, String> versionsOf(Collection<? extends HasMetadata> objects) {
        Map<String, String> out = new TreeMap<>();
        objects.forEach(o -> out.put(key(o), o.getMetadata().getResourceVersion()));
        return out;
    }
}
