package io.kubeloop.apiserver.internal.storage;

import static io.kubeloop.apiserver.internal.storage.TestObjects.async;
import static io.kubeloop.apiserver.internal.storage.TestObjects.describe;
import static io.kubeloop.apiserver.internal.storage.TestObjects.drainNow;
import static io.kubeloop.apiserver.internal.storage.TestObjects.inAnotherThread;
import static io.kubeloop.apiserver.internal.storage.TestObjects.names;
import static io.kubeloop.apiserver.internal.storage.TestObjects.object;
import static io.kubeloop.apiserver.internal.storage.TestObjects.pod;
import static io.kubeloop.apiserver.internal.storage.TestObjects.rv;
import static io.kubeloop.apiserver.internal.storage.TestObjects.withReplicas;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.ObjectNode;

/** Compaction: 410 for lists, continue tokens and watches, with kube-apiserver's messages; the history bound. */
class StoreCompactionTest {

    private Store store = Store.builder().build();

    @AfterEach
    void closeStore() {
        store.close();
    }

    /** Pods a (updated at 4), b (deleted at 5), c (created at 6); revisions 2..6. */
    private void buildHistory() {
        store.create(pod("ns", "a"), object(pod("ns", "a"))); // 2
        store.create(pod("ns", "b"), object(pod("ns", "b"))); // 3
        store.update(pod("ns", "a"), withReplicas(store.get(pod("ns", "a")), 2), 0); // 4
        store.delete(pod("ns", "b"), Preconditions.NONE); // 5
        store.create(pod("ns", "c"), object(pod("ns", "c"))); // 6
    }

    @Test
    void aListBelowTheCompactedRevisionIsExpired() {
        buildHistory();
        store.compact(4);
        assertThat(store.compactedRevision()).isEqualTo(4);

        assertThatThrownBy(() -> store.list("", "pods", "ns", 3, null, 0, null))
                .isInstanceOfSatisfying(ExpiredException.class, e -> {
                    assertThat(e).hasMessage("The resourceVersion for the provided list is too old.");
                    assertThat(e.code()).isEqualTo(410);
                    assertThat(e.requestedRevision()).isEqualTo(3);
                    assertThat(e.oldestRevision()).isEqualTo(4);
                    assertThat(e.toStatus().toString())
                            .isEqualTo("{\"kind\":\"Status\",\"apiVersion\":\"v1\","
                                    + "\"metadata\":{},\"status\":\"Failure\",\"message\":\"The resourceVersion for the "
                                    + "provided list is too old.\",\"reason\":\"Expired\",\"code\":410}");
                });
        // At and after the compacted revision, lists still see their snapshots.
        assertThat(names(store.list("", "pods", "ns", 4, null, 0, null).items()))
                .containsExactly("a", "b");
        assertThat(rv(store.list("", "pods", "ns", 4, null, 0, null).items().getFirst()))
                .isEqualTo("4");
        assertThat(names(store.list("", "pods", "ns", 5, null, 0, null).items()))
                .containsExactly("a");
        assertThat(names(store.list("", "pods", "ns", 0, null, 0, null).items()))
                .containsExactly("a", "c");
    }

    @Test
    void aContinueKeyBelowTheCompactedRevisionIsExpiredWithTheContinueMessage() {
        buildHistory();
        ListResult first = store.list("", "pods", "ns", 0, null, 1, null);
        store.update(pod("ns", "c"), withReplicas(store.get(pod("ns", "c")), 5), 0);
        store.compact(store.currentRevision());

        assertThatThrownBy(() -> store.list("", "pods", "ns", first.revision(), null, 1, first.continueKey()))
                .isInstanceOf(ExpiredException.class)
                .hasMessage("The provided continue parameter is too old to display a consistent list result. "
                        + "You can start a new list without the continue parameter.");
    }

    @Test
    void aWatchBelowTheCompactedRevisionYieldsOneExpiredErrorAndEnds() throws Exception {
        buildHistory();
        store.compact(5);
        try (StoreWatch w = store.watch("", "pods", null, 3, null, 10)) {
            List<StoreEvent> events = drainNow(w);
            assertThat(events).hasSize(1);
            StoreEvent error = events.getFirst();
            assertThat(error.type()).isEqualTo(StoreEvent.Type.ERROR);
            assertThat(error.object().toString())
                    .isEqualTo("{\"kind\":\"Status\",\"apiVersion\":\"v1\","
                            + "\"metadata\":{},\"status\":\"Failure\",\"message\":\"too old resource version: 3 (5)\","
                            + "\"reason\":\"Expired\",\"code\":410}");
            assertThat(w.isDone()).isTrue();
            assertThat(w.endReason()).isEqualTo(StoreWatch.EndReason.EXPIRED);
            assertThat(w.bookmarkRevision()).isEmpty();
        }
        // From the compacted revision itself the history is complete.
        try (StoreWatch w = store.watch("", "pods", null, 5, null, 10)) {
            assertThat(describe(drainNow(w))).containsExactly("ADDED c@6");
        }
    }

    @Test
    void compactionLeavesTheCurrentStateAlone() {
        buildHistory();
        ObjectNode a = store.get(pod("ns", "a"));
        store.compact(store.currentRevision());
        assertThat(store.get(pod("ns", "a"))).isSameAs(a);
        assertThat(names(store.list("", "pods", "ns", 0, null, 0, null).items()))
                .containsExactly("a", "c");
        assertThatThrownBy(() -> store.get(pod("ns", "b"))).isInstanceOf(NotFoundException.class);
        // A compacted-away deleted key can be created again, and its history starts afresh.
        ObjectNode b = store.create(pod("ns", "b"), object(pod("ns", "b")));
        assertThat(names(store.list("", "pods", "ns", 0, null, 0, null).items()))
                .containsExactly("a", "b", "c");
        assertThat(names(store.list("", "pods", "ns", store.currentRevision() - 1, null, 0, null)
                        .items()))
                .containsExactly("a", "c");
        assertThat(rv(b)).isEqualTo("7");
    }

    @Test
    void compactionNeverMovesBackwardsNorPastTheCurrentRevision() {
        buildHistory();
        store.compact(4);
        store.compact(2);
        assertThat(store.compactedRevision()).isEqualTo(4);
        assertThatThrownBy(() -> store.compact(store.currentRevision() + 1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(store.compactedRevision()).isEqualTo(4);
    }

    @Test
    void theHistoryLimitCompactsAutomatically() throws Exception {
        store = Store.builder().historyLimit(3).build();
        StorageKey k = pod("ns", "a");
        assertThat(store.compactedRevision()).isZero();
        store.create(k, object(k)); // 2
        assertThat(store.compactedRevision()).isZero();
        for (int i = 2; i <= 10; i++) {
            store.update(k, withReplicas(store.get(k), i), 0); // 3..11
        }
        assertThat(store.currentRevision()).isEqualTo(11);
        assertThat(store.compactedRevision()).isEqualTo(8);
        assertThat(((MvccStore) store).historySize()).isEqualTo(3);

        try (StoreWatch ok = store.watch("", "pods", null, 8, null, 10);
                StoreWatch expired = store.watch("", "pods", null, 7, null, 10)) {
            assertThat(drainNow(ok)).extracting(StoreEvent::revision).containsExactly(9L, 10L, 11L);
            assertThat(describe(drainNow(expired))).containsExactly("ERROR too old resource version: 7 (8)");
        }
        assertThat(store.list("", "pods", null, 8, null, 0, null)
                        .items()
                        .getFirst()
                        .get("spec")
                        .get("replicas")
                        .intValue())
                .isEqualTo(7);
        assertThatThrownBy(() -> store.list("", "pods", null, 7, null, 0, null)).isInstanceOf(ExpiredException.class);
    }

    @Test
    void aListInProgressKeepsItsSnapshotWhileCompactionPassesIt() {
        store = Store.builder().historyLimit(2).build();
        for (int i = 0; i < 5; i++) {
            store.create(pod("ns", "p" + i), object(pod("ns", "p" + i)));
        }
        long snapshot = store.currentRevision();
        AtomicBoolean overtaken = new AtomicBoolean();
        // The filter runs during the list, without locks: on its first call, another thread rewrites and deletes
        // every pod, so that compaction passes the list's revision many times over.
        Predicate<ObjectNode> filter = o -> {
            if (overtaken.compareAndSet(false, true)) {
                inAnotherThread(() -> {
                    for (int i = 0; i < 5; i++) {
                        StorageKey k = pod("ns", "p" + i);
                        store.update(k, withReplicas(store.get(k), 100), 0);
                        store.delete(k, Preconditions.NONE);
                    }
                });
                assertThat(store.compactedRevision()).isGreaterThan(snapshot);
            }
            return true;
        };
        ListResult r = store.list("", "pods", "ns", snapshot, filter, 0, null);

        assertThat(r.revision()).isEqualTo(snapshot);
        assertThat(names(r.items())).containsExactly("p0", "p1", "p2", "p3", "p4");
        assertThat(r.items())
                .allSatisfy(o ->
                        assertThat(o.get("spec").get("replicas").intValue()).isEqualTo(1));
        assertThatThrownBy(() -> store.list("", "pods", "ns", snapshot, null, 0, null))
                .isInstanceOf(ExpiredException.class);
        // Once the list is done, the next write trims what it held back.
        store.create(pod("ns", "q"), object(pod("ns", "q")));
        assertThat(((MvccStore) store).historySize()).isLessThanOrEqualTo(2);
        assertThat(names(store.list("", "pods", "ns", 0, null, 0, null).items()))
                .containsExactly("q");
    }

    @Test
    void aListAtTheCurrentRevisionNeverExpiresEvenWithATinyHistory() throws Exception {
        store = Store.builder().historyLimit(1).build();
        StorageKey k = pod("ns", "hot");
        store.create(k, object(k));
        CompletableFuture<Void> writer = async(() -> {
            for (int i = 0; i < 20_000; i++) {
                store.update(k, withReplicas(store.get(k), i), 0);
            }
            return null;
        });
        int lists = 0;
        while (!writer.isDone() && lists < 1_000_000) {
            ListResult r = store.list("", "pods", "ns", 0, null, 0, null);
            assertThat(names(r.items())).containsExactly("hot");
            assertThat(store.get(k)).isNotNull();
            lists++;
        }
        writer.get();
        assertThat(lists).isPositive();
    }
}
