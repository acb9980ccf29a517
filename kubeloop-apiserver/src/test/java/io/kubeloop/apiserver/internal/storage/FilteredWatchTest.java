package io.kubeloop.apiserver.internal.storage;

import static io.kubeloop.apiserver.internal.storage.TestObjects.drainNow;
import static io.kubeloop.apiserver.internal.storage.TestObjects.label;
import static io.kubeloop.apiserver.internal.storage.TestObjects.object;
import static io.kubeloop.apiserver.internal.storage.TestObjects.pod;
import static io.kubeloop.apiserver.internal.storage.TestObjects.rv;
import static io.kubeloop.apiserver.internal.storage.TestObjects.withLabel;
import static io.kubeloop.apiserver.internal.storage.TestObjects.withReplicas;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.node.ObjectNode;

/**
 * Filtered watches follow kube-apiserver's watch cache: starting to match is ADDED, stopping is DELETED (with the
 * previous, matching content and the new revision), matching before and after is MODIFIED, neither is nothing.
 * The same rules hold for events replayed from the history and for live ones.
 */
class FilteredWatchTest {

    private static final Predicate<ObjectNode> WEB = o -> "web".equals(label(o, "app"));
    private static final StorageKey K = pod("ns", "p");

    private final Store store = Store.builder().build();

    @AfterEach
    void closeStore() {
        store.close();
    }

    enum Op {
        CREATE,
        RELABEL,
        SCALE,
        DELETE
    }

    enum Expect {
        NOTHING,
        ADDED_NEW,
        MODIFIED_NEW,
        DELETED_PREVIOUS
    }

    enum Mode {
        LIVE,
        REPLAYED
    }

    static Stream<Arguments> transitions() {
        List<Arguments> rows = new ArrayList<>();
        Object[][] table = {
            // before,  operation,   after,   expected event for the app=web watcher
            {null, Op.CREATE, "web", Expect.ADDED_NEW},
            {null, Op.CREATE, "db", Expect.NOTHING},
            {"web", Op.SCALE, "web", Expect.MODIFIED_NEW},
            {"web", Op.RELABEL, "db", Expect.DELETED_PREVIOUS},
            {"db", Op.RELABEL, "web", Expect.ADDED_NEW},
            {"db", Op.SCALE, "db", Expect.NOTHING},
            {"web", Op.DELETE, null, Expect.DELETED_PREVIOUS},
            {"db", Op.DELETE, null, Expect.NOTHING},
        };
        for (Mode mode : Mode.values()) {
            for (Object[] row : table) {
                rows.add(Arguments.of(mode, row[0], row[1], row[2], row[3]));
            }
        }
        return rows.stream();
    }

    @ParameterizedTest(name = "{0}: {1} -{2}-> {3}: {4}")
    @MethodSource("transitions")
    void aFilteredWatcherSeesTransitionsAsKubeApiserverSendsThem(
            Mode mode, String before, Op op, String after, Expect expect) throws Exception {
        ObjectNode previous = before == null ? null : store.create(K, object(K, "app=" + before));
        long start = store.currentRevision();
        StoreWatch live = mode == Mode.LIVE ? store.watch("", "pods", "ns", start, WEB, 10) : null;

        ObjectNode result =
                switch (op) {
                    case CREATE -> store.create(K, object(K, "app=" + after));
                    case RELABEL -> store.update(K, withLabel(previous, "app", after), 0);
                    case SCALE -> store.update(K, withReplicas(previous, 5), 0);
                    case DELETE -> store.delete(K, Preconditions.NONE);
                };
        long revision = store.currentRevision();
        assertThat(revision).isEqualTo(start + 1);

        try (StoreWatch w = live != null ? live : store.watch("", "pods", "ns", start, WEB, 10);
                StoreWatch unfiltered = store.watch("", "pods", "ns", start, null, 10)) {
            List<StoreEvent> events = drainNow(w);
            switch (expect) {
                case NOTHING -> assertThat(events).isEmpty();
                case ADDED_NEW ->
                    assertThat(events).containsExactly(new StoreEvent(StoreEvent.Type.ADDED, result, revision));
                case MODIFIED_NEW ->
                    assertThat(events).containsExactly(new StoreEvent(StoreEvent.Type.MODIFIED, result, revision));
                case DELETED_PREVIOUS -> {
                    assertThat(events).hasSize(1);
                    StoreEvent e = events.getFirst();
                    assertThat(e.type()).isEqualTo(StoreEvent.Type.DELETED);
                    assertThat(e.revision()).isEqualTo(revision);
                    assertThat(rv(e.object())).isEqualTo(Long.toString(revision));
                    assertThat(label(e.object(), "app")).isEqualTo("web"); // the content that matched
                    ObjectNode expected = previous.deepCopy();
                    ((ObjectNode) expected.get("metadata")).put("resourceVersion", Long.toString(revision));
                    assertThat(e.object()).isEqualTo(expected);
                }
            }
            // Without a filter, the plain event.
            StoreEvent.Type plain =
                    switch (op) {
                        case CREATE -> StoreEvent.Type.ADDED;
                        case RELABEL, SCALE -> StoreEvent.Type.MODIFIED;
                        case DELETE -> StoreEvent.Type.DELETED;
                    };
            assertThat(drainNow(unfiltered)).containsExactly(new StoreEvent(plain, result, revision));
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("modes")
    void aLongLifeThroughAFilter(Mode mode) throws Exception {
        long start = store.currentRevision();
        StoreWatch live = mode == Mode.LIVE ? store.watch("", "pods", null, start, WEB, 100) : null;
        ObjectNode v = store.create(K, object(K, "app=db")); // nothing
        v = store.update(K, withLabel(v, "app", "web"), 0); // ADDED
        v = store.update(K, withReplicas(v, 2), 0); // MODIFIED
        v = store.update(K, withLabel(v, "app", "db"), 0); // DELETED
        v = store.update(K, withReplicas(v, 3), 0); // nothing
        v = store.update(K, withLabel(v, "app", "web"), 0); // ADDED
        store.delete(K, Preconditions.NONE); // DELETED
        store.create(K, object(K, "app=web")); // ADDED
        try (StoreWatch w = live != null ? live : store.watch("", "pods", null, start, WEB, 100)) {
            assertThat(drainNow(w))
                    .extracting(e -> e.type() + "@" + e.revision())
                    .containsExactly("ADDED@3", "MODIFIED@4", "DELETED@5", "ADDED@7", "DELETED@8", "ADDED@9");
        }
    }

    static Stream<Mode> modes() {
        return Stream.of(Mode.values());
    }
}
