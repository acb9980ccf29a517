package io.kubeloop.informer.cache;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * client-go's {@code threadSafeMap} with its {@code storeIndex}, keyed by a {@link KeyFunc}: the cache behind
 * every informer. Objects are stored as given (shared, never copied).
 *
 * <h2>Concurrency</h2>
 * Writers take {@link #writeLock} one at a time; readers take no lock at all and never wait for a writer. All
 * state lives in one {@link State} read through the volatile {@link #state}; every read works on the state it
 * read first.
 * <ul>
 *   <li>Single-key writes ({@code add}, {@code update}, {@code delete}) change the current state in place. Their
 *       linearization point is the write of {@code items[key]}. Invariant <b>I1</b>, true at every instant: for
 *       every key {@code k} and every value {@code v} that {@code items[k]} has in index {@code i},
 *       {@code k ∈ indexes[i][v]}. Writers keep it by adding a key to its new values' sets before publishing
 *       the entry and removing it from its old values' sets after. An index set may thus briefly hold a key
 *       that no longer (or does not yet) have the value, so readers keep a key only when its current entry has
 *       the value (the entry records its index values). Hence a reader never sees an object under a value it
 *       does not have, never sees a key twice, and never misses an object that had the value throughout the
 *       read; each key is seen as it was at some instant during the read (weakly consistent, like
 *       {@link ConcurrentHashMap}'s iterators).</li>
 *   <li>{@code replace} and {@code addIndexers} build a complete new state beside the current one and publish
 *       it with one volatile write: a reader sees all of the old content or all of the new, never a mix. A
 *       replaced state is never written again, so a reader still holding it sees a frozen snapshot.</li>
 *   <li>Index functions run before anything changes, so one that throws leaves the store as it was.</li>
 *   <li>An index value whose set becomes empty is removed (kubernetes#84959): {@link #listIndexFuncValues} never
 *       reports it and high-cardinality values do not leak.</li>
 * </ul>
 *
 * @param <T> the object type
 */
final class ThreadSafeIndexer<T> implements Indexer<T> {

    private static final String[] NO_VALUES = new String[0];
    /** The index values of every entry of a store without indexes: shared, it is never written. */
    private static final String[][] NO_INDEXES = new String[0][];

    private final KeyFunc keyFunc;
    /** Held by writers only, around one whole write; readers never take it. */
    private final ReentrantLock writeLock = new ReentrantLock();
    /** Replaced only under {@link #writeLock}; single-key writes change it in place under the lock. */
    private volatile State<T> state;

    ThreadSafeIndexer(KeyFunc keyFunc, Map<String, IndexFunc<T>> indexers) {
        this.keyFunc = Objects.requireNonNull(keyFunc, "keyFunc");
        this.state = State.empty(checkIndexers(indexers));
    }

    /** The store's content; an index slot is the position of the index's values in an {@link Entry}. */
    private record State<T>(
            ConcurrentHashMap<String, Entry<T>> items,
            Map<String, Index<T>> indexes,
            Map<String, IndexFunc<T>> indexers) {

        static <T> State<T> empty(Map<String, IndexFunc<T>> indexers) {
            return build(indexers, new ConcurrentHashMap<>());
        }

        /** A state holding {@code items} with every index built from the entries' recorded values. */
        static <T> State<T> build(Map<String, IndexFunc<T>> indexers, ConcurrentHashMap<String, Entry<T>> items) {
            Map<String, Index<T>> indexes = new LinkedHashMap<>();
            int slot = 0;
            for (Map.Entry<String, IndexFunc<T>> e : indexers.entrySet()) {
                indexes.put(e.getKey(), new Index<>(e.getKey(), slot++, e.getValue(), new ConcurrentHashMap<>()));
            }
            for (Map.Entry<String, Entry<T>> item : items.entrySet()) {
                String[][] values = item.getValue().values;
                for (Index<T> index : indexes.values()) {
                    String[] own = values[index.slot];
                    for (String value : own) {
                        String[] shared = index.add(value, item.getKey());
                        if (own.length == 1) {
                            // Not published yet: no reader can see this entry, so its array may still change.
                            values[index.slot] = shared;
                        }
                    }
                }
            }
            return new State<>(items, Collections.unmodifiableMap(indexes), Collections.unmodifiableMap(indexers));
        }

        Index<T> index(String name) {
            Index<T> index = indexes.get(name);
            if (index == null) {
                throw new IllegalArgumentException("Index with name " + name + " does not exist");
            }
            return index;
        }
    }

    /**
     * A stored object with the values it had in each index when it was written (by slot). Never changed once
     * published in a state's items: readers check these values, not the object's current ones, so an object
     * mutated against the rules cannot make the indexes disagree with themselves.
     */
    private record Entry<T>(T object, String[][] values) {}

    /**
     * One index: value → the keys of the objects under that value (a superset during a write, see I1). A bucket
     * also holds the one-element array {@code {value}} that entries whose only value in this index is
     * {@code value} share, instead of an array each.
     */
    private record Index<T>(String name, int slot, IndexFunc<T> func, ConcurrentHashMap<String, Bucket> buckets) {

        /** Adds {@code key} under {@code value}; returns the bucket's shared array for the value. */
        String[] add(String value, String key) {
            Bucket bucket =
                    buckets.computeIfAbsent(value, v -> new Bucket(new String[] {v}, ConcurrentHashMap.newKeySet()));
            bucket.keys.add(key);
            return bucket.single;
        }

        void remove(String value, String key) {
            Bucket bucket = buckets.get(value);
            if (bucket != null) {
                bucket.keys.remove(key);
                if (bucket.keys.isEmpty()) {
                    buckets.remove(value, bucket);
                }
            }
        }

        /** The keys under {@code value}, or null. */
        Set<String> keys(String value) {
            Bucket bucket = buckets.get(value);
            return bucket == null ? null : bucket.keys;
        }

        /** {@code {value}}: the shared array when the value has a bucket, else a new one. */
        String[] single(String value) {
            Bucket bucket = buckets.get(value);
            return bucket == null ? new String[] {value} : bucket.single;
        }
    }

    /** The keys under one index value, and the shared array {@code {value}}. */
    private record Bucket(String[] single, Set<String> keys) {}

    // ------------------------------------------------------------------------------------------------
    // Writes

    @Override
    public void add(T object) {
        put(object);
    }

    @Override
    public void update(T object) {
        put(object);
    }

    private void put(T object) {
        Objects.requireNonNull(object, "object");
        String key = keyFunc.keyOf(object);
        writeLock.lock();
        try {
            State<T> s = state;
            Entry<T> entry = new Entry<>(object, valuesOf(s, key, object));
            Entry<T> old = s.items.get(key);
            // I1: the key joins its new values' sets before the entry is published ...
            for (Index<T> index : s.indexes.values()) {
                String[] values = entry.values[index.slot];
                for (String value : values) {
                    if (old == null || !contains(old.values[index.slot], value)) {
                        String[] shared = index.add(value, key);
                        if (values.length == 1) {
                            entry.values[index.slot] = shared; // not published yet
                        }
                    }
                }
            }
            s.items.put(key, entry);
            // ... and leaves its old values' sets only after.
            if (old != null) {
                removeStale(s, key, old, entry);
            }
        } finally {
            writeLock.unlock();
        }
    }

    @Override
    public void delete(T object) {
        Objects.requireNonNull(object, "object");
        deleteKey(keyFunc.keyOf(object));
    }

    private void deleteKey(String key) {
        writeLock.lock();
        try {
            State<T> s = state;
            Entry<T> old = s.items.remove(key);
            if (old != null) {
                removeStale(s, key, old, null);
            }
        } finally {
            writeLock.unlock();
        }
    }

    /** Takes {@code key} out of every set of {@code old}'s values that {@code current} (null: none) lacks. */
    private static <T> void removeStale(State<T> s, String key, Entry<T> old, Entry<T> current) {
        for (Index<T> index : s.indexes.values()) {
            for (String value : old.values[index.slot]) {
                if (current == null || !contains(current.values[index.slot], value)) {
                    index.remove(value, key);
                }
            }
        }
    }

    @Override
    public void replace(Collection<? extends T> objects, String resourceVersion) {
        Objects.requireNonNull(objects, "objects");
        // Keys first: a KeyException leaves the store unchanged (client-go's Store.Replace).
        List<String> keys = new ArrayList<>(objects.size());
        int i = 0;
        for (T object : objects) {
            Objects.requireNonNull(object, "objects[" + i++ + "]");
            keys.add(keyFunc.keyOf(object));
        }
        writeLock.lock();
        try {
            State<T> s = state;
            ConcurrentHashMap<String, Entry<T>> items = new ConcurrentHashMap<>(Math.max(16, keys.size() * 4 / 3 + 1));
            i = 0;
            for (T object : objects) {
                String key = keys.get(i++);
                items.put(key, new Entry<>(object, valuesOf(s, key, object)));
            }
            state = State.build(s.indexers, items);
        } finally {
            writeLock.unlock();
        }
    }

    @Override
    public void addIndexers(Map<String, IndexFunc<T>> newIndexers) {
        Map<String, IndexFunc<T>> added = checkIndexers(newIndexers);
        writeLock.lock();
        try {
            State<T> s = state;
            Set<String> conflicts = new TreeSet<>(added.keySet());
            conflicts.retainAll(s.indexers.keySet());
            if (!conflicts.isEmpty()) {
                throw new IllegalArgumentException("indexer conflict: " + conflicts);
            }
            Map<String, IndexFunc<T>> all = new LinkedHashMap<>(s.indexers);
            all.putAll(added);
            // The new indexes take the slots after the existing ones, whose recorded values are kept.
            int existing = s.indexers.size();
            List<Map.Entry<String, IndexFunc<T>>> fresh = List.copyOf(added.entrySet());
            ConcurrentHashMap<String, Entry<T>> items =
                    new ConcurrentHashMap<>(Math.max(16, s.items.size() * 4 / 3 + 1));
            for (Map.Entry<String, Entry<T>> item : s.items.entrySet()) {
                String key = item.getKey();
                Entry<T> old = item.getValue();
                String[][] values = Arrays.copyOf(old.values, existing + fresh.size());
                for (int j = 0; j < fresh.size(); j++) {
                    values[existing + j] =
                            indexValues(fresh.get(j).getKey(), fresh.get(j).getValue(), key, old.object);
                }
                items.put(key, new Entry<>(old.object, values));
            }
            state = State.build(all, items);
        } finally {
            writeLock.unlock();
        }
    }

    // ------------------------------------------------------------------------------------------------
    // Reads: no lock; each works on the state it read first.

    @Override
    public List<T> list() {
        Collection<Entry<T>> entries = state.items.values();
        List<T> out = new ArrayList<>(entries.size());
        for (Entry<T> e : entries) {
            out.add(e.object);
        }
        return out;
    }

    @Override
    public int size() {
        return state.items.size();
    }

    @Override
    public List<String> listKeys() {
        return new ArrayList<>(state.items.keySet());
    }

    @Override
    public Optional<T> get(T object) {
        Objects.requireNonNull(object, "object");
        return getByKey(keyFunc.keyOf(object));
    }

    @Override
    public Optional<T> getByKey(String key) {
        Objects.requireNonNull(key, "key");
        Entry<T> e = state.items.get(key);
        return e == null ? Optional.empty() : Optional.of(e.object);
    }

    @Override
    public List<T> index(String indexName, T object) {
        Objects.requireNonNull(object, "object");
        State<T> s = state;
        Index<T> index = s.index(indexName);
        String[] values = indexValues(index.name, index.func, "(the object queried)", object);
        if (values.length == 1) {
            return byValue(s, index, values[0]);
        }
        Set<String> keys = new LinkedHashSet<>();
        for (String value : values) {
            Set<String> set = index.keys(value);
            if (set != null) {
                keys.addAll(set);
            }
        }
        List<T> out = new ArrayList<>(keys.size());
        for (String key : keys) {
            Entry<T> e = s.items.get(key);
            if (e != null && sharesValue(e.values[index.slot], values)) {
                out.add(e.object);
            }
        }
        return out;
    }

    @Override
    public List<String> indexKeys(String indexName, String indexedValue) {
        Objects.requireNonNull(indexedValue, "indexedValue");
        State<T> s = state;
        Index<T> index = s.index(indexName);
        Set<String> set = index.keys(indexedValue);
        if (set == null) {
            return new ArrayList<>();
        }
        List<String> out = new ArrayList<>(set.size());
        for (String key : set) {
            Entry<T> e = s.items.get(key);
            if (e != null && contains(e.values[index.slot], indexedValue)) {
                out.add(key);
            }
        }
        Collections.sort(out);
        return out;
    }

    @Override
    public List<String> listIndexFuncValues(String indexName) {
        State<T> s = state;
        Index<T> index = s.indexes.get(indexName);
        if (index == null) {
            return new ArrayList<>();
        }
        List<String> out = new ArrayList<>(index.buckets.size());
        for (Map.Entry<String, Bucket> e : index.buckets.entrySet()) {
            // Report a value only when some object has it now (its set may briefly hold keys in transit, I1).
            for (String key : e.getValue().keys) {
                Entry<T> item = s.items.get(key);
                if (item != null && contains(item.values[index.slot], e.getKey())) {
                    out.add(e.getKey());
                    break;
                }
            }
        }
        return out;
    }

    @Override
    public List<T> byIndex(String indexName, String indexedValue) {
        Objects.requireNonNull(indexedValue, "indexedValue");
        State<T> s = state;
        return byValue(s, s.index(indexName), indexedValue);
    }

    private static <T> List<T> byValue(State<T> s, Index<T> index, String value) {
        Set<String> set = index.keys(value);
        if (set == null) {
            return new ArrayList<>();
        }
        List<T> out = new ArrayList<>(set.size());
        for (String key : set) {
            Entry<T> e = s.items.get(key);
            if (e != null && contains(e.values[index.slot], value)) {
                out.add(e.object);
            }
        }
        return out;
    }

    @Override
    public Map<String, IndexFunc<T>> indexers() {
        return state.indexers;
    }

    // ------------------------------------------------------------------------------------------------

    /** The object's values in every index of {@code s}, by slot. */
    private String[][] valuesOf(State<T> s, String key, T object) {
        if (s.indexes.isEmpty()) {
            return NO_INDEXES;
        }
        String[][] values = new String[s.indexes.size()][];
        for (Index<T> index : s.indexes.values()) {
            String[] own = indexValues(index.name, index.func, key, object);
            values[index.slot] = own.length == 1 ? index.single(own[0]) : own;
        }
        return values;
    }

    /**
     * The distinct values {@code func} gives {@code object}.
     *
     * @throws IllegalStateException naming the index and key when the function throws or returns null
     *     (client-go panics: an index function that fails is a programming error)
     */
    private static <T> String[] indexValues(String indexName, IndexFunc<T> func, String key, T object) {
        List<String> values;
        try {
            values = func.indexValues(object);
        } catch (RuntimeException e) {
            throw new IllegalStateException(
                    "unable to calculate an index entry for key \"" + key + "\" on index \"" + indexName + "\": " + e,
                    e);
        }
        if (values == null) {
            throw new IllegalStateException("unable to calculate an index entry for key \"" + key + "\" on index \""
                    + indexName + "\": the index function returned null (return an empty list for no values)");
        }
        switch (values.size()) {
            case 0:
                return NO_VALUES;
            case 1: {
                String only = values.get(0);
                if (only == null) {
                    throw nullValue(indexName, key);
                }
                return new String[] {only};
            }
            default: {
                Set<String> distinct = new LinkedHashSet<>(values.size() * 2);
                for (String value : values) {
                    if (value == null) {
                        throw nullValue(indexName, key);
                    }
                    distinct.add(value);
                }
                return distinct.toArray(NO_VALUES);
            }
        }
    }

    private static IllegalStateException nullValue(String indexName, String key) {
        return new IllegalStateException("unable to calculate an index entry for key \"" + key + "\" on index \""
                + indexName + "\": the index function returned a null value");
    }

    private static boolean contains(String[] values, String value) {
        for (String v : values) {
            if (v.equals(value)) {
                return true;
            }
        }
        return false;
    }

    private static boolean sharesValue(String[] values, String[] wanted) {
        for (String v : wanted) {
            if (contains(values, v)) {
                return true;
            }
        }
        return false;
    }

    private static <T> Map<String, IndexFunc<T>> checkIndexers(Map<String, IndexFunc<T>> indexers) {
        Objects.requireNonNull(indexers, "indexers");
        Map<String, IndexFunc<T>> copy = new LinkedHashMap<>();
        for (Map.Entry<String, IndexFunc<T>> e : indexers.entrySet()) {
            if (e.getKey() == null || e.getKey().isEmpty()) {
                throw new IllegalArgumentException("an index name must not be null or empty");
            }
            if (e.getValue() == null) {
                throw new IllegalArgumentException("index \"" + e.getKey() + "\" has no index function (null)");
            }
            copy.put(e.getKey(), e.getValue());
        }
        return copy;
    }

    @Override
    public String toString() {
        State<T> s = state;
        return "Indexer[" + s.items.size() + " objects, indexes " + s.indexers.keySet() + "]";
    }
}
