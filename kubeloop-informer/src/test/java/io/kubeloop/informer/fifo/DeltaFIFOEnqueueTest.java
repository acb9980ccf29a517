package io.kubeloop.informer.fifo;

import static io.kubeloop.informer.fifo.FifoFixtures.pod;
import static io.kubeloop.informer.fifo.FifoFixtures.pods;
import static io.kubeloop.informer.fifo.FifoFixtures.render;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import io.fabric8.kubernetes.api.model.Pod;
import io.kubeloop.informer.fifo.FifoFixtures.Known;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What the FIFO holds after a sequence of Reflector calls (reference §4.3-§4.6 and the coalescing rule), as a
 * table: the consumer's known objects ({@code null}: none), whether updates coalesce, the calls, and the
 * rendered content in pop order (see {@link FifoFixtures}).
 */
class DeltaFIFOEnqueueTest {

    private static final boolean COALESCE = true;
    private static final boolean EXACT = false;

    static Stream<Arguments> scenarios() {
        return Stream.of(
                // name, known, coalesce, calls, expected content
                arguments("add queues ADDED", null, COALESCE, "add a@1", "a:ADDED(a@1)"),
                arguments("update queues UPDATED", null, COALESCE, "update a@2", "a:UPDATED(a@2)"),
                arguments(
                        "keys pop in first-enqueue order; later deltas never move a key",
                        null,
                        COALESCE,
                        "add a@1; add b@1; update a@2; add c@1; update b@2",
                        "a:ADDED(a@1),UPDATED(a@2) | b:ADDED(b@1),UPDATED(b@2) | c:ADDED(c@1)"),

                // coalescing of UPDATED/SYNC
                arguments(
                        "exact: every update is kept",
                        null,
                        EXACT,
                        "add a@1; update a@2; update a@3; update a@4",
                        "a:ADDED(a@1),UPDATED(a@2),UPDATED(a@3),UPDATED(a@4)"),
                arguments(
                        "coalesce: consecutive updates keep only the newest",
                        null,
                        COALESCE,
                        "add a@1; update a@2; update a@3; update a@4",
                        "a:ADDED(a@1),UPDATED(a@4)"),
                arguments(
                        "coalesce: SYNC then UPDATED is UPDATED with the newest object",
                        "a@1",
                        COALESCE,
                        "resync; update a@2",
                        "a:UPDATED(a@2)"),
                arguments(
                        "exact: SYNC then UPDATED both kept",
                        "a@1",
                        EXACT,
                        "resync; update a@2",
                        "a:SYNC(a@1),UPDATED(a@2)"),
                arguments(
                        "coalesce never merges into ADDED, REPLACED or DELETED",
                        "a@1",
                        COALESCE,
                        "replace a@2; update a@3; delete a@4; update a@5; update a@6",
                        "a:REPLACED(a@2),UPDATED(a@3),DELETED(a@4),UPDATED(a@6)"),
                arguments(
                        "coalesce: REPLACED is never merged away",
                        null,
                        COALESCE,
                        "update a@2; replace a@3; update a@4",
                        "a:UPDATED(a@2),REPLACED(a@3),UPDATED(a@4)"),

                // consecutive DELETED deduplicated, keeping the more informative one
                arguments(
                        "DELETED(obj) then DELETED(obj): the older stays",
                        null,
                        COALESCE,
                        "add a@1; delete a@2; delete a@3",
                        "a:ADDED(a@1),DELETED(a@2)"),
                arguments(
                        "DELETED(obj) then a relist's tombstone: the real object stays",
                        null,
                        COALESCE,
                        "add a@1; delete a@2; replace",
                        "a:ADDED(a@1),DELETED(a@2)"),
                arguments(
                        "tombstone then DELETED(obj): the real object replaces the tombstone",
                        "a@1",
                        COALESCE,
                        "replace; delete a@2",
                        "a:DELETED(a@2)"),
                arguments(
                        "tombstone then tombstone: one, of the last known state",
                        "a@1",
                        COALESCE,
                        "replace; replace",
                        "a:DELETED(~a@1)"),
                arguments(
                        "DELETED not consecutive: both kept",
                        null,
                        COALESCE,
                        "add a@1; delete a@1; add a@2; delete a@2",
                        "a:ADDED(a@1),DELETED(a@1),ADDED(a@2),DELETED(a@2)"),

                // delete of unknown keys
                arguments("delete of a key neither known nor queued is ignored", "b@1", COALESCE, "delete a@1", ""),
                arguments(
                        "without known objects, delete of an unqueued key is ignored",
                        null,
                        COALESCE,
                        "delete a@1",
                        ""),
                arguments("delete of a known key is queued", "a@1", COALESCE, "delete a@2", "a:DELETED(a@2)"),
                arguments(
                        "delete of a queued key is queued (no known objects)",
                        null,
                        COALESCE,
                        "add a@1; delete a@1",
                        "a:ADDED(a@1),DELETED(a@1)"),
                arguments(
                        "delete of a queued but unknown key is queued",
                        "b@1",
                        COALESCE,
                        "add a@1; delete a@1",
                        "a:ADDED(a@1),DELETED(a@1)"),

                // Replace
                arguments(
                        "replace emits REPLACED for every object, in list order",
                        null,
                        COALESCE,
                        "replace b@1 a@1 c@1",
                        "b:REPLACED(b@1) | a:REPLACED(a@1) | c:REPLACED(c@1)"),
                arguments(
                        "replace with a duplicate key accumulates both",
                        null,
                        COALESCE,
                        "replace a@1 a@2",
                        "a:REPLACED(a@1),REPLACED(a@2)"),
                arguments("replace with an empty list and nothing known or queued", null, COALESCE, "replace", ""),
                arguments(
                        "replace with an empty list tombstones every known key",
                        "a@1 b@1",
                        COALESCE,
                        "replace",
                        "a:DELETED(~a@1) | b:DELETED(~b@1)"),
                arguments(
                        "known objects deleted while the watch was down become tombstones",
                        "a@1 b@1 c@1",
                        COALESCE,
                        "replace b@2",
                        "b:REPLACED(b@2) | a:DELETED(~a@1) | c:DELETED(~c@1)"),
                arguments(
                        "a queued-only key missing from the relist is tombstoned (no ghost, #115658)",
                        null,
                        COALESCE,
                        "add a@1; replace b@1",
                        "a:ADDED(a@1),DELETED(~a@1) | b:REPLACED(b@1)"),
                arguments(
                        "queued-only tombstone also with known objects, carrying the newest queued state",
                        "b@1",
                        COALESCE,
                        "add a@1; update a@2; replace b@1",
                        "a:ADDED(a@1),UPDATED(a@2),DELETED(~a@2) | b:REPLACED(b@1)"),
                arguments(
                        "a known key with queued deltas gets one tombstone, of the newest queued state",
                        "a@1",
                        COALESCE,
                        "update a@2; replace",
                        "a:UPDATED(a@2),DELETED(~a@2)"),
                arguments(
                        "a queued tombstone is unwrapped, not nested, by the next relist",
                        "a@1",
                        EXACT,
                        "replace; update a@2; replace",
                        "a:DELETED(~a@1),UPDATED(a@2),DELETED(~a@2)"),
                arguments(
                        "delete then re-add of a key during a relist: the REPLACED follows the DELETED (#83810)",
                        "a@1",
                        COALESCE,
                        "delete a@1; replace a@5",
                        "a:DELETED(a@1),REPLACED(a@5)"),
                arguments(
                        "a key deleted by the watch and missing from the relist is deleted once",
                        "a@1",
                        COALESCE,
                        "delete a@1; replace",
                        "a:DELETED(a@1)"),
                arguments(
                        "a listed key is never tombstoned",
                        "a@1",
                        COALESCE,
                        "update a@2; replace a@3",
                        "a:UPDATED(a@2),REPLACED(a@3)"),

                // Resync
                arguments(
                        "resync queues SYNC for every known key",
                        "a@1 b@1",
                        COALESCE,
                        "resync",
                        "a:SYNC(a@1) | b:SYNC(b@1)"),
                arguments(
                        "resync while deltas are queued skips those keys (no stale SYNC)",
                        "a@1 b@1",
                        EXACT,
                        "update a@2; resync",
                        "a:UPDATED(a@2) | b:SYNC(b@1)"),
                arguments(
                        "resync without known objects does nothing", null, COALESCE, "add a@1; resync", "a:ADDED(a@1)"),
                arguments(
                        "resync after a relist tombstone does not resurrect the key",
                        "a@1",
                        COALESCE,
                        "replace; resync",
                        "a:DELETED(~a@1)"),
                // An object that changed into something undecodable: dropped like a relist's missing object.
                arguments(
                        "undecodable of a known object enqueues a tombstone with the known state",
                        "a@1 b@1",
                        COALESCE,
                        "undecodable a",
                        "a:DELETED(~a@1)"),
                arguments(
                        "undecodable of a queued object carries its newest queued state",
                        null,
                        EXACT,
                        "add a@1; update a@2; undecodable a",
                        "a:ADDED(a@1),UPDATED(a@2),DELETED(~a@2)"),
                arguments(
                        "undecodable of an object neither queued nor known is ignored",
                        "b@1",
                        COALESCE,
                        "undecodable a",
                        ""),
                arguments(
                        "undecodable after a delete keeps the delete (it knows more)",
                        "a@1",
                        COALESCE,
                        "delete a@2; undecodable a",
                        "a:DELETED(a@2)"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("scenarios")
    void fifoHoldsExpectedDeltas(String name, String known, boolean coalesce, String calls, String expected) {
        DeltaFIFO.Builder<Pod> builder =
                DeltaFIFO.<Pod>builder(FifoFixtures.KEY).coalesceUpdates(coalesce);
        if (known != null) {
            builder.knownObjects(Known.of(known));
        }
        DeltaFIFO<Pod> fifo = builder.build();

        for (String call : calls.split(";")) {
            apply(fifo, call.trim());
        }

        assertThat(render(fifo)).isEqualTo(expected);
        assertThat(fifo.size()).isEqualTo(expected.isEmpty() ? 0 : expected.split(" \\| ").length);
        assertThat(fifo.isEmpty()).isEqualTo(expected.isEmpty());
    }

    /**
     * {@code add a@1}, {@code update a@2}, {@code delete a@3}, {@code replace a@1 b@1}, {@code resync},
     * {@code undecodable a}.
     */
    static void apply(DeltaFIFO<Pod> fifo, String call) {
        String[] words = call.split("\\s+", 2);
        String args = words.length > 1 ? words[1] : "";
        switch (words[0]) {
            case "add" -> fifo.add(pod(args));
            case "update" -> fifo.update(pod(args));
            case "delete" -> fifo.delete(pod(args));
            case "replace" -> fifo.replace(pods(args), "100");
            case "resync" -> fifo.resync();
            case "undecodable" -> fifo.removeUndecodable(FifoFixtures.NS, args);
            default -> throw new IllegalArgumentException("unknown call in scenario: " + call);
        }
    }
}
