package io.kubeloop.informer.cache;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * An indexer that keeps, beside each object it stores, a copy taken at write time, for the
 * {@link MutationDetector} to compare (client-go's cache mutation detector, here at the store, so that every
 * cached object is watched whoever wrote it). Reads go straight to the delegate.
 *
 * <p>Invariant: after each write, {@link #copies} holds for every key written the copy of the object written
 * last (writes here are serialized by {@link #writeLock}, the delegate's writes happen inside it). A write of a
 * key first verifies the copy of the object it replaces or deletes; a mutation found is thrown as a
 * {@link CacheMutationException} after the write is applied, so the cache still converges on the server's state.
 */
final class DetectingIndexer<T> implements Indexer<T> {

    private final ThreadSafeIndexer<T> delegate;
    private final KeyFunc keyFunc;
    private final MutationDetector detector;
    private final ConcurrentHashMap<String, MutationDetector.Copy<T>> copies = new ConcurrentHashMap<>();
    /** Serializes writes, so the copies follow the delegate's writes in the same order. Readers never take it. */
    private final ReentrantLock writeLock = new ReentrantLock();

    DetectingIndexer(ThreadSafeIndexer<T> delegate, KeyFunc keyFunc, MutationDetector detector) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
        this.keyFunc = Objects.requireNonNull(keyFunc, "keyFunc");
        this.detector = Objects.requireNonNull(detector, "detector");
    }

    @Override
    public void add(T object) {
        put(object, true);
    }

    @Override
    public void update(T object) {
        put(object, false);
    }

    private void put(T object, boolean add) {
        Objects.requireNonNull(object, "object");
        String key = keyFunc.keyOf(object);
        MutationDetector.Mutation mutation;
        writeLock.lock();
        try {
            mutation = verify(copies.get(key));
            if (add) {
                delegate.add(object);
            } else {
                delegate.update(object);
            }
            copies.put(key, detector.copy(key, object));
        } finally {
            writeLock.unlock();
        }
        throwIf(mutation == null ? List.of() : List.of(mutation));
    }

    @Override
    public void delete(T object) {
        Objects.requireNonNull(object, "object");
        String key = keyFunc.keyOf(object);
        MutationDetector.Mutation mutation;
        writeLock.lock();
        try {
            mutation = verify(copies.get(key));
            delegate.delete(object);
            copies.remove(key);
        } finally {
            writeLock.unlock();
        }
        throwIf(mutation == null ? List.of() : List.of(mutation));
    }

    @Override
    public void replace(Collection<? extends T> objects, String resourceVersion) {
        List<MutationDetector.Mutation> mutations = new ArrayList<>();
        writeLock.lock();
        try {
            for (MutationDetector.Copy<T> copy : copies.values()) {
                MutationDetector.Mutation m = verify(copy);
                if (m != null) {
                    mutations.add(m);
                }
            }
            delegate.replace(objects, resourceVersion);
            // The delegate accepted every key; take the copies of exactly what it now holds.
            copies.clear();
            for (T object : objects) {
                String key = keyFunc.keyOf(object);
                copies.put(key, detector.copy(key, object));
            }
        } finally {
            writeLock.unlock();
        }
        throwIf(mutations);
    }

    @Override
    public void addIndexers(Map<String, IndexFunc<T>> newIndexers) {
        writeLock.lock();
        try {
            delegate.addIndexers(newIndexers);
        } finally {
            writeLock.unlock();
        }
    }

    /**
     * Compares every copy with its object (reporting each new mutation once through the detector) and drops the
     * copies older than {@code retentionNanos}, after this last comparison.
     */
    void checkCopies(long nowNanos, long retentionNanos) {
        for (MutationDetector.Copy<T> copy : copies.values()) {
            detector.verify(copy);
            if (nowNanos - copy.storedAtNanos > retentionNanos) {
                copies.remove(copy.key, copy);
            }
        }
    }

    /** How many objects are watched; for tests. */
    int watched() {
        return copies.size();
    }

    private MutationDetector.Mutation verify(MutationDetector.Copy<T> copy) {
        return copy == null ? null : detector.verify(copy);
    }

    private static void throwIf(List<MutationDetector.Mutation> mutations) {
        if (!mutations.isEmpty()) {
            throw new CacheMutationException(mutations);
        }
    }

    // ------------------------------------------------------------------------------------------------
    // Reads

    @Override
    public List<T> list() {
        return delegate.list();
    }

    @Override
    public int size() {
        return delegate.size();
    }

    @Override
    public List<String> listKeys() {
        return delegate.listKeys();
    }

    @Override
    public Optional<T> get(T object) {
        return delegate.get(object);
    }

    @Override
    public Optional<T> getByKey(String key) {
        return delegate.getByKey(key);
    }

    @Override
    public List<T> index(String indexName, T object) {
        return delegate.index(indexName, object);
    }

    @Override
    public List<String> indexKeys(String indexName, String indexedValue) {
        return delegate.indexKeys(indexName, indexedValue);
    }

    @Override
    public List<String> listIndexFuncValues(String indexName) {
        return delegate.listIndexFuncValues(indexName);
    }

    @Override
    public List<T> byIndex(String indexName, String indexedValue) {
        return delegate.byIndex(indexName, indexedValue);
    }

    @Override
    public Map<String, IndexFunc<T>> indexers() {
        return delegate.indexers();
    }

    @Override
    public String toString() {
        return delegate + " (mutation detector: " + copies.size() + " objects watched)";
    }
}
