package io.kubeloop.informer.fifo;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.kubeloop.informer.cache.DeletedFinalStateUnknown;
import io.kubeloop.informer.cache.KeyException;
import io.kubeloop.informer.cache.KeyFunc;
import io.kubeloop.informer.cache.KnownObjects;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/**
 * Pods written {@code name@rv} (namespace {@code ns}), a namespace/name key function, a known-objects map, and a
 * one-line rendering of a FIFO's content: {@code "a:ADDED(a@1),UPDATED(a@2) | b:DELETED(~b@1)"} in pop order,
 * where {@code ~} marks a tombstone and {@code ~a@-} a tombstone without an object.
 */
final class FifoFixtures {

    static final String NS = "ns";

    /** namespace/name, or name for cluster-scoped objects; tombstones are keyed by the FIFO itself. */
    static final KeyFunc KEY = o -> {
        if (o instanceof DeletedFinalStateUnknown<?> t) {
            return t.key();
        }
        HasMetadata h = (HasMetadata) o;
        if (h.getMetadata() == null || h.getMetadata().getName() == null) {
            throw new KeyException(h.getKind() + " has no name");
        }
        String ns = h.getMetadata().getNamespace();
        return ns == null || ns.isEmpty() ? h.getMetadata().getName() : ns + "/" + h.getMetadata().getName();
    };

    private FifoFixtures() {}

    /** A pod from {@code name@rv}. */
    static Pod pod(String nameAtRv) {
        String[] parts = nameAtRv.split("@", 2);
        return new PodBuilder()
                .withNewMetadata()
                .withNamespace(NS)
                .withName(parts[0])
                .withResourceVersion(parts.length > 1 ? parts[1] : "1")
                .endMetadata()
                .build();
    }

    static List<Pod> pods(String spaceSeparated) {
        List<Pod> out = new ArrayList<>();
        for (String s : spaceSeparated.trim().split("\\s+")) {
            if (!s.isEmpty()) {
                out.add(pod(s));
            }
        }
        return out;
    }

    static String key(String name) {
        return NS + "/" + name;
    }

    static String render(Object o) {
        if (o instanceof DeletedFinalStateUnknown<?> t) {
            return "~" + (t.object() == null ? t.key().substring(NS.length() + 1) + "@-" : render(t.object()));
        }
        Pod p = (Pod) o;
        return p.getMetadata().getName() + "@" + p.getMetadata().getResourceVersion();
    }

    static String render(List<? extends Delta<?>> deltas) {
        return deltas.stream().map(d -> d.type() + "(" + render(d.object()) + ")").collect(Collectors.joining(","));
    }

    /** Every queued key with its deltas, in pop order. */
    static String render(DeltaFIFO<Pod> fifo) {
        List<String> parts = new ArrayList<>();
        for (String k : fifo.listKeys()) {
            parts.add(k.substring(NS.length() + 1) + ":" + render(fifo.getByKey(k).orElseThrow()));
        }
        return String.join(" | ", parts);
    }

    /** Known objects in insertion order, so tombstone order is deterministic. Single-threaded use only. */
    static final class Known implements KnownObjects<Pod> {
        final Map<String, Pod> map = new LinkedHashMap<>();

        static Known of(String spaceSeparated) {
            Known k = new Known();
            pods(spaceSeparated).forEach(k::put);
            return k;
        }

        void put(Pod p) {
            map.put(KEY.keyOf(p), p);
        }

        void remove(String key) {
            map.remove(key);
        }

        @Override
        public List<String> listKeys() {
            return new ArrayList<>(map.keySet());
        }

        @Override
        public Optional<Pod> getByKey(String key) {
            return Optional.ofNullable(map.get(key));
        }
    }

    /** A consumer's cache as an informer keeps it: deltas applied oldest first, tombstones remove the key. */
    static final class Cache implements KnownObjects<Pod> {
        final Map<String, Pod> map = new ConcurrentHashMap<>();

        void apply(List<Delta<Pod>> deltas) {
            for (Delta<Pod> d : deltas) {
                String k = KEY.keyOf(d.object());
                if (d.type() == DeltaType.DELETED) {
                    map.remove(k);
                } else {
                    map.put(k, (Pod) d.object());
                }
            }
        }

        @Override
        public List<String> listKeys() {
            return new ArrayList<>(map.keySet());
        }

        @Override
        public Optional<Pod> getByKey(String key) {
            return Optional.ofNullable(map.get(key));
        }
    }
}
