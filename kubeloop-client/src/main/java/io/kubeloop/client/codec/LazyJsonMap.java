package io.kubeloop.client.codec;

import java.io.Serial;
import java.io.Serializable;
import java.util.AbstractMap;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * An ordinary, mutable {@code LinkedHashMap<String, Object>} that is parsed from its JSON text only when first
 * used: standard decoding's {@code fieldsV1} trees, which are decoded with every object but read almost never.
 * Until first use it costs its text; from then on it is exactly the map Jackson would have built (nested objects as
 * {@code LinkedHashMap}s, arrays as {@code ArrayList}s), and every operation, mutations included, goes to that map.
 *
 * <p>Thread-safe to materialize: several threads may read a shared object's map at once (an informer's cache);
 * the first parses under this map's lock, the others see the finished map. Mutating it from several threads is as
 * unsafe as for any LinkedHashMap. Serializable as a plain LinkedHashMap.
 */
final class LazyJsonMap extends AbstractMap<String, Object> implements Serializable {

    @Serial
    private static final long serialVersionUID = 1L;

    /** The JSON text of an object, until parsed; then null. Read and cleared only under this map's lock. */
    private transient byte[] json;

    private transient volatile Map<String, Object> parsed;

    LazyJsonMap(byte[] json) {
        this.json = json;
    }

    @SuppressWarnings("unchecked")
    private Map<String, Object> map() {
        Map<String, Object> m = parsed;
        if (m == null) {
            synchronized (this) {
                m = parsed;
                if (m == null) {
                    m = JsonText.PLAIN.readValue(json, LinkedHashMap.class);
                    parsed = m;
                    json = null;
                }
            }
        }
        return m;
    }

    @Serial
    private Object writeReplace() {
        return new LinkedHashMap<>(map());
    }

    @Override
    public int size() {
        return map().size();
    }

    @Override
    public boolean isEmpty() {
        return map().isEmpty();
    }

    @Override
    public boolean containsKey(Object key) {
        return map().containsKey(key);
    }

    @Override
    public boolean containsValue(Object value) {
        return map().containsValue(value);
    }

    @Override
    public Object get(Object key) {
        return map().get(key);
    }

    @Override
    public Object getOrDefault(Object key, Object defaultValue) {
        return map().getOrDefault(key, defaultValue);
    }

    @Override
    public Object put(String key, Object value) {
        return map().put(key, value);
    }

    @Override
    public Object remove(Object key) {
        return map().remove(key);
    }

    @Override
    public void putAll(Map<? extends String, ?> m) {
        map().putAll(m);
    }

    @Override
    public void clear() {
        map().clear();
    }

    @Override
    public Set<String> keySet() {
        return map().keySet();
    }

    @Override
    public Collection<Object> values() {
        return map().values();
    }

    @Override
    public Set<Map.Entry<String, Object>> entrySet() {
        return map().entrySet();
    }

    @Override
    public void forEach(BiConsumer<? super String, ? super Object> action) {
        map().forEach(action);
    }

    @Override
    public void replaceAll(BiFunction<? super String, ? super Object, ?> function) {
        map().replaceAll(function);
    }

    @Override
    public Object putIfAbsent(String key, Object value) {
        return map().putIfAbsent(key, value);
    }

    @Override
    public boolean remove(Object key, Object value) {
        return map().remove(key, value);
    }

    @Override
    public boolean replace(String key, Object oldValue, Object newValue) {
        return map().replace(key, oldValue, newValue);
    }

    @Override
    public Object replace(String key, Object value) {
        return map().replace(key, value);
    }

    @Override
    public Object computeIfAbsent(String key, Function<? super String, ?> mappingFunction) {
        return map().computeIfAbsent(key, mappingFunction);
    }

    @Override
    public Object computeIfPresent(String key, BiFunction<? super String, ? super Object, ?> remappingFunction) {
        return map().computeIfPresent(key, remappingFunction);
    }

    @Override
    public Object compute(String key, BiFunction<? super String, ? super Object, ?> remappingFunction) {
        return map().compute(key, remappingFunction);
    }

    @Override
    public Object merge(String key, Object value, BiFunction<? super Object, ? super Object, ?> remappingFunction) {
        return map().merge(key, value, remappingFunction);
    }

    @Override
    public boolean equals(Object o) {
        return o == this || map().equals(o);
    }

    @Override
    public int hashCode() {
        return map().hashCode();
    }

    @Override
    public String toString() {
        return map().toString();
    }
}
