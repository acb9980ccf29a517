package io.kubeloop.informer.cache;

import java.util.List;
import java.util.Optional;

/**
 * The objects a DeltaFIFO's consumer already knows (in an informer: the indexer), which Replace and Resync consult
 * to emit tombstones and Sync deltas (client-go's {@code KeyListerGetter}).
 *
 * @param <T> the object type
 */
public interface KnownObjects<T> {
    List<String> listKeys();

    Optional<T> getByKey(String key);
}
