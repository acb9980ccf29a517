package io.kubeloop.informer.fifo;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.kubeloop.informer.cache.DeletedFinalStateUnknown;
import io.kubeloop.informer.cache.KeyFunc;
import io.kubeloop.informer.cache.Keys;
import io.kubeloop.informer.cache.KnownObjects;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
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

    /** The informer's key function: namespace/name, a tombstone's own key. */
    static final KeyFunc KEY = Keys.DELETION_HANDLING;

    private FifoFixtures() {}

    /**
     * Runs {@code action} and returns what slf4j-simple logged meanwhile: it writes to System.err, looked up at
     * each line, so swapping the stream captures it. Test classes run one at a time (surefire's default).
     */
    static String logged(Runnable action) {
        PrintStream original = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            action.run();
        } finally {
            System.setErr(original);
        }
        return captured.toString(StandardCharsets.UTF_8);
    }

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
        return deltas.stream()
                .map(d -> d.type() + "(" + render(d.objectOrTombstone()) + ")")
                .collect(Collectors.joining(","));
    }

    /** Every queued key with its deltas, in pop order. */
    static String render(DeltaFIFO<Pod> fifo) {
        List<String> parts = new ArrayList<>();
        for (String k : fifo.listKeys()) {
            parts.add(
                    k.substring(NS.length() + 1) + ":" + render(fifo.getByKey(k).orElseThrow()));
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
                String k = KEY.keyOf(d.objectOrTombstone());
                if (d.type() == DeltaType.DELETED) {
                    map.remove(k);
                } else {
                    map.put(k, d.object());
                }
            }
        }

        /** Sorted, so two calls over the same content agree (the property test replays them on a model). */
        @Override
        public List<String> listKeys() {
            return map.keySet().stream().sorted().toList();
        }

        @Override
        public Optional<Pod> getByKey(String key) {
            return Optional.ofNullable(map.get(key));
        }
    }
}
