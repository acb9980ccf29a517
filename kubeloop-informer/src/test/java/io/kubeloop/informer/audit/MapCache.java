package io.kubeloop.informer.audit;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.kubeloop.informer.cache.Indexers;
import io.kubeloop.informer.cache.Keys;
import io.kubeloop.informer.cache.KnownObjects;
import io.kubeloop.informer.cache.Store;
import java.util.List;
import java.util.Optional;

/**
 * A hand-filled cache for the auditor's tests: the informer's own {@link Store}, written by the test instead of an
 * informer.
 */
final class MapCache implements KnownObjects<ConfigMap> {

    private final Store<ConfigMap> store = Indexers.newStore(Keys.META_NAMESPACE);

    void put(ConfigMap object) {
        store.update(object);
    }

    void remove(String key) {
        store.getByKey(key).ifPresent(store::delete);
    }

    /** Holds exactly what {@code server} holds now. */
    void copy(ScriptedServer server) {
        store.replace(List.copyOf(server.objects().values()), "");
    }

    @Override
    public List<String> listKeys() {
        return store.listKeys();
    }

    @Override
    public Optional<ConfigMap> getByKey(String key) {
        return store.getByKey(key);
    }
}
