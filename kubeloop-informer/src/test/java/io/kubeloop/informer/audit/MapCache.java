package io.kubeloop.informer.audit;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.kubeloop.informer.cache.KnownObjects;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/** A hand-built cache for the auditor's tests: what an informer's store would hold, set by the test. */
final class MapCache implements KnownObjects<ConfigMap> {

    private final Map<String, ConfigMap> objects = new ConcurrentHashMap<>();

    void put(ConfigMap object) {
        objects.put(CacheAuditor.metaNamespaceKey(object), object);
    }

    void remove(String key) {
        objects.remove(key);
    }

    /** Holds exactly what {@code server} holds now. */
    void copy(ScriptedServer server) {
        objects.clear();
        objects.putAll(server.objects());
    }

    @Override
    public List<String> listKeys() {
        return List.copyOf(objects.keySet());
    }

    @Override
    public Optional<ConfigMap> getByKey(String key) {
        return Optional.ofNullable(objects.get(key));
    }
}
