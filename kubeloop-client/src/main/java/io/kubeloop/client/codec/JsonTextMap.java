package io.kubeloop.client.codec;

import java.util.AbstractMap;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * A read-only map kept as the compact JSON text (UTF-8) of an object, parsed again on each read: a managedFields
 * {@code fieldsV1} tree costs its text (one byte per character for the usual ASCII) instead of a map node per
 * field, which for a pod's status tree is several kilobytes. Trees are written (serialized) and compared rarely
 * and read almost never, so the parse on access is the right trade for a cache.
 *
 * <p>Invariant: {@code json} is the exact JSON text of an object; {@link #entrySet()} yields its members in order,
 * with nested objects as maps, so the map serializes to the same JSON and is {@code equals} to the parsed tree.
 */
final class JsonTextMap extends AbstractMap<String, Object> {

    private final byte[] json;

    JsonTextMap(byte[] json) {
        this.json = json;
    }

    @Override
    @SuppressWarnings("unchecked")
    public Set<Map.Entry<String, Object>> entrySet() {
        Map<String, Object> parsed = JsonText.PLAIN.readValue(json, LinkedHashMap.class);
        return Collections.unmodifiableMap(parsed).entrySet();
    }
}
