package io.kubeloop.informer.cache;

import java.util.List;
import java.util.Map;

/**
 * A {@link Store} with secondary indexes: client-go's {@code cache.Indexer}. Each index has a name and an
 * {@link IndexFunc}; an object appears in an index under every value its function returns. An index value with
 * no objects left is removed, so {@link #listIndexFuncValues} never reports empty entries.
 *
 * @param <T> the object type
 */
public interface Indexer<T> extends Store<T> {

    /** Objects that share at least one value of index {@code indexName} with {@code object}. */
    List<T> index(String indexName, T object);

    /** Keys of the objects stored under {@code indexedValue} in index {@code indexName}. */
    List<String> indexKeys(String indexName, String indexedValue);

    /** The values index {@code indexName} currently holds objects under. */
    List<String> listIndexFuncValues(String indexName);

    /** Objects stored under {@code indexedValue} in index {@code indexName}. */
    List<T> byIndex(String indexName, String indexedValue);

    /** The index functions by index name. */
    Map<String, IndexFunc<T>> indexers();

    /**
     * Adds indexes, also after objects were stored: the new indexes are built from the current content.
     *
     * @throws IllegalArgumentException an index of the same name exists
     */
    void addIndexers(Map<String, IndexFunc<T>> newIndexers);
}
