package io.kubeloop.informer.cache;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Factories for stores and indexers, and the namespace index every informer carries.
 *
 * <pre>{@code
 * Indexer<Pod> pods = Indexers.newIndexer(Keys.DELETION_HANDLING, Map.of(
 *         Indexers.NAMESPACE_INDEX, Indexers.namespaceIndex(),
 *         "byNode", pod -> pod.getSpec().getNodeName() == null ? List.of() : List.of(pod.getSpec().getNodeName())));
 * pods.add(pod);
 * List<Pod> onNode = pods.byIndex("byNode", "node-1");
 * }</pre>
 *
 * <p>The stores are thread-safe; readers never wait for writers. When the cache mutation detector is on
 * ({@link CacheMutationDetector#isEnabled()}), the stores made here also watch their objects for mutation.
 */
public final class Indexers {

    /** The name of the namespace index ({@code cache.NamespaceIndex}), which informers always add. */
    public static final String NAMESPACE_INDEX = "namespace";

    private Indexers() {}

    /**
     * client-go's {@code MetaNamespaceIndexFunc}: one value, the object's namespace ({@code ""} for a
     * cluster-scoped object).
     *
     * @throws IllegalArgumentException (failing the write, naming index and key) when the object has no metadata
     */
    public static <T extends HasMetadata> IndexFunc<T> namespaceIndex() {
        return object -> {
            ObjectMeta metadata = object.getMetadata();
            if (metadata == null) {
                throw new IllegalArgumentException(Keys.kindOf(object) + " has no metadata");
            }
            String namespace = metadata.getNamespace();
            return List.of(namespace == null ? "" : namespace);
        };
    }

    /**
     * A thread-safe store keyed by {@code keyFunc}, with the given indexes (more can be added later with
     * {@link Indexer#addIndexers}).
     *
     * @throws IllegalArgumentException an index name is empty or an index function is null
     */
    public static <T> Indexer<T> newIndexer(KeyFunc keyFunc, Map<String, IndexFunc<T>> indexers) {
        Objects.requireNonNull(keyFunc, "keyFunc");
        Objects.requireNonNull(indexers, "indexers");
        ThreadSafeIndexer<T> indexer = new ThreadSafeIndexer<>(keyFunc, indexers);
        return CacheMutationDetector.isEnabled() ? MutationDetector.global().watch(indexer, keyFunc) : indexer;
    }

    /** A thread-safe store keyed by {@code keyFunc}, without indexes. */
    public static <T> Store<T> newStore(KeyFunc keyFunc) {
        return newIndexer(keyFunc, Map.of());
    }
}
