package io.kubeloop.apiserver.internal.storage;

import static io.kubeloop.apiserver.internal.storage.TestObjects.async;
import static io.kubeloop.apiserver.internal.storage.TestObjects.deployment;
import static io.kubeloop.apiserver.internal.storage.TestObjects.describe;
import static io.kubeloop.apiserver.internal.storage.TestObjects.drainNow;
import static io.kubeloop.apiserver.internal.storage.TestObjects.eventually;
import static io.kubeloop.apiserver.internal.storage.TestObjects.label;
import static io.kubeloop.apiserver.internal.storage.TestObjects.node;
import static io.kubeloop.apiserver.internal.storage.TestObjects.object;
import static io.kubeloop.apiserver.internal.storage.TestObjects.pod;
import static io.kubeloop.apiserver.internal.storage.TestObjects.withReplicas;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kubeloop.clock.FakeClock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.ObjectNode;

/** Watches: start points, ranges, exactly-once order, blocking on the clock, overflow, close, bookmarks. */
class StoreWatchTest {

    private final FakeClock clock = new FakeClock();
    private final Store store = Store.builder().clock(clock).build();

    @AfterEach
    void closeStore() {
        store.close();
    }

    private ObjectNode create(StorageKey k, String... labels) {
        return store.create(k, object(k, labels));
    }

    private ObjectNode scale(StorageKey k, int replicas) {
        return store.update(k, withReplicas(store.get(k), replicas), 0);
    }

    // ------------------------------------------------------------------------------------------------
    // Start point and range

    @Test
    void aWatchDeliversEveryChangeOfItsRangeAfterItsRevisionExactlyOnceInOrder() throws Exception {
        create(pod("a", "p1")); // 2
        create(pod("b", "p2")); // 3
        create(deployment("a", "d")); // 4
        scale(pod("a", "p1"), 2); // 5
        create(node("n")); // 6
        store.delete(pod("b", "p2"), Preconditions.NONE); // 7
        create(pod("a", "p3")); // 8

        try (StoreWatch all = store.watch("", "pods", null, 3, null, 100);
                StoreWatch inA = store.watch("", "pods", "a", 3, null, 100);
                StoreWatch nodes = store.watch("", "nodes", "", 0, null, 100);
                StoreWatch deployments = store.watch("apps", "deployments", null, 1, null, 100)) {
            assertThat(describe(drainNow(all))).containsExactly("MODIFIED p1@5", "DELETED p2@7", "ADDED p3@8");
            assertThat(describe(drainNow(inA))).containsExactly("MODIFIED p1@5", "ADDED p3@8");
            assertThat(describe(drainNow(nodes))).containsExactly("ADDED n@6");
            assertThat(describe(drainNow(deployments))).containsExactly("ADDED d@4");

            // Then live, after the history, with nothing repeated.
            scale(pod("a", "p3"), 3); // 9
            create(pod("b", "p4")); // 10
            scale(deployment("a", "d"), 5); // 11
            assertThat(describe(drainNow(all))).containsExactly("MODIFIED p3@9", "ADDED p4@10");
            assertThat(describe(drainNow(inA))).containsExactly("MODIFIED p3@9");
            assertThat(describe(drainNow(nodes))).isEmpty();
            assertThat(describe(drainNow(deployments))).containsExactly("MODIFIED d@11");
        }
    }

    @Test
    void eventsCarryTheStoredObjects() throws Exception {
        try (StoreWatch w = store.watch("", "pods", null, store.currentRevision(), null, 10)) {
            ObjectNode created = create(pod("a", "p"));
            ObjectNode updated = scale(pod("a", "p"), 2);
            ObjectNode deleted = store.delete(pod("a", "p"), Preconditions.NONE);
            assertThat(drainNow(w))
                    .containsExactly(
                            new StoreEvent(StoreEvent.Type.ADDED, created, 2),
                            new StoreEvent(StoreEvent.Type.MODIFIED, updated, 3),
                            new StoreEvent(StoreEvent.Type.DELETED, deleted, 4));
            assertThat(drainNow(w).stream().map(StoreEvent::object)).isEmpty();
        }
    }

    @Test
    void aWatchFromAFutureRevisionWaitsForIt() throws Exception {
        create(pod("a", "p"));
        long future = store.currentRevision() + 2;
        try (StoreWatch w = store.watch("", "pods", null, future, null, 10)) {
            assertThat(w.endReason()).isNull();
            assertThat(w.bookmarkRevision()).hasValue(future);
            scale(pod("a", "p"), 2); // future - 1
            scale(pod("a", "p"), 3); // future
            assertThat(drainNow(w)).isEmpty();
            scale(pod("a", "p"), 4); // future + 1
            assertThat(describe(drainNow(w))).containsExactly("MODIFIED p@" + (future + 1));
        }
    }

    // ------------------------------------------------------------------------------------------------
    // Blocking on the clock

    @Test
    void nextWaitsOnTheStoresClockAndReturnsNullAtTheDeadline() throws Exception {
        try (StoreWatch w = store.watch("", "pods", null, store.currentRevision(), null, 10)) {
            CompletableFuture<StoreEvent> next = async(() -> next(w, Duration.ofSeconds(30)));
            eventually().until(clock::hasWaiters);
            clock.step(Duration.ofSeconds(29));
            assertThat(next).isNotDone();
            clock.step(Duration.ofSeconds(1));
            assertThat(next.get(10, TimeUnit.SECONDS)).isNull();
            assertThat(w.isDone()).isFalse();
        }
    }

    @Test
    void aWriteWakesAWaitingConsumer() throws Exception {
        try (StoreWatch w = store.watch("", "pods", null, store.currentRevision(), null, 10)) {
            CompletableFuture<StoreEvent> next = async(() -> next(w, Duration.ofHours(1)));
            eventually().until(clock::hasWaiters);
            create(pod("a", "p"));
            assertThat(describe(next.get(10, TimeUnit.SECONDS))).isEqualTo("ADDED p@2");
        }
    }

    @Test
    void closingTheWatchOrTheStoreWakesAWaitingConsumer() throws Exception {
        StoreWatch closed = store.watch("", "pods", null, 1, null, 10);
        StoreWatch byStore = store.watch("", "pods", null, 1, null, 10);
        CompletableFuture<StoreEvent> first = async(() -> next(closed, Duration.ofDays(999_999)));
        CompletableFuture<StoreEvent> second = async(() -> next(byStore, Duration.ofHours(1)));
        eventually().until(() -> clock.waiterCount() == 1); // the unbounded wait does not register with the clock

        closed.close();
        assertThat(first.get(10, TimeUnit.SECONDS)).isNull();
        assertThat(closed.isDone()).isTrue();
        assertThat(closed.endReason()).isEqualTo(StoreWatch.EndReason.CLOSED);

        store.close();
        assertThat(second.get(10, TimeUnit.SECONDS)).isNull();
        assertThat(byStore.endReason()).isEqualTo(StoreWatch.EndReason.STORE_CLOSED);
        assertThat(byStore.isDone()).isTrue();
        assertThat(byStore.next(Duration.ofHours(1))).isNull(); // no wait once ended
    }

    @Test
    void closeDropsPendingEventsAndTheStoreGoesOn() throws Exception {
        StoreWatch w = store.watch("", "pods", null, 1, null, 10);
        create(pod("a", "p1"));
        w.close();
        w.close();
        assertThat(w.next(Duration.ZERO)).isNull();
        assertThat(w.isDone()).isTrue();
        create(pod("a", "p2"));
        try (StoreWatch other = store.watch("", "pods", null, 1, null, 10)) {
            assertThat(describe(drainNow(other))).containsExactly("ADDED p1@2", "ADDED p2@3");
        }
    }

    // ------------------------------------------------------------------------------------------------
    // Slow watchers

    @Test
    void aWatcherThatOverflowsIsTerminatedWhileOthersAndWritersContinue() throws Exception {
        try (StoreWatch slow = store.watch("", "pods", null, 1, null, 2);
                StoreWatch fast = store.watch("", "pods", null, 1, null, 100);
                StoreWatch unrelated = store.watch("", "pods", "other", 1, null, 1)) {
            create(pod("a", "p1"));
            create(pod("a", "p2"));
            assertThat(slow.endReason()).isNull();
            create(pod("a", "p3")); // one more than slow's buffer
            assertThat(slow.endReason()).isEqualTo(StoreWatch.EndReason.OVERFLOWED);
            assertThat(slow.next(Duration.ZERO)).isNull();
            assertThat(slow.isDone()).isTrue();
            assertThat(slow.bookmarkRevision()).isEmpty();

            for (int i = 4; i <= 50; i++) {
                create(pod("a", "p" + i));
            }
            assertThat(drainNow(fast))
                    .hasSize(50)
                    .extracting(StoreEvent::revision)
                    .isSorted()
                    .doesNotHaveDuplicates();
            assertThat(unrelated.endReason()).isNull(); // a watcher's buffer holds only its own range
        }
    }

    @Test
    void aConsumerThatKeepsUpNeverOverflowsASmallBuffer() throws Exception {
        try (StoreWatch w = store.watch("", "pods", null, 1, null, 1)) {
            for (int i = 0; i < 100; i++) {
                create(pod("a", "p" + i));
                assertThat(w.next(Duration.ZERO)).isNotNull();
            }
            assertThat(w.endReason()).isNull();
        }
    }

    @Test
    void theReplayedHistoryDoesNotCountAgainstTheBuffer() throws Exception {
        for (int i = 0; i < 20; i++) {
            create(pod("a", "p" + i));
        }
        try (StoreWatch w = store.watch("", "pods", null, 1, null, 2)) {
            create(pod("a", "live1"));
            create(pod("a", "live2"));
            assertThat(drainNow(w)).hasSize(22);
            assertThat(w.endReason()).isNull();
        }
    }

    // ------------------------------------------------------------------------------------------------
    // Bookmarks

    @Test
    void bookmarksNeverPrecedeATakenEventNorSkipAPendingOne() throws Exception {
        create(pod("a", "p1")); // 2
        try (StoreWatch w = store.watch("", "pods", "a", 1, null, 10)) {
            // The replayed event at 2 is pending: only 1 is safe.
            assertThat(w.bookmarkRevision()).hasValue(1);
            assertThat(describe(w.next(Duration.ZERO))).isEqualTo("ADDED p1@2");
            assertThat(w.bookmarkRevision()).hasValue(2);

            create(deployment("a", "d")); // 3: another resource
            create(pod("other", "x")); // 4: another namespace
            assertThat(w.bookmarkRevision()).hasValue(4);

            create(pod("a", "p2")); // 5: pending
            create(node("n")); // 6
            assertThat(w.bookmarkRevision()).hasValue(4);
            assertThat(describe(w.next(Duration.ZERO))).isEqualTo("ADDED p2@5");
            assertThat(w.bookmarkRevision()).hasValue(6);
        }
    }

    // ------------------------------------------------------------------------------------------------
    // listAndWatch

    @Test
    void listAndWatchSendsTheStateThenABookmarkThenTheChanges() throws Exception {
        create(pod("b", "p2")); // 2
        create(pod("a", "p1")); // 3
        create(pod("a", "p3"), "app=web"); // 4
        scale(pod("b", "p2"), 2); // 5
        create(deployment("a", "d")); // 6
        try (StoreWatch w = store.listAndWatch("", "pods", null, null, 10)) {
            assertThat(w.bookmarkRevision()).isEmpty();
            scale(pod("a", "p1"), 7); // 7
            assertThat(describe(drainNow(w)))
                    .containsExactly("ADDED p1@3", "ADDED p3@4", "ADDED p2@5", "BOOKMARK@6", "MODIFIED p1@7");
            assertThat(w.bookmarkRevision()).hasValue(7);
        }
        try (StoreWatch web = store.listAndWatch("", "pods", "a", o -> "web".equals(label(o, "app")), 10)) {
            assertThat(describe(drainNow(web))).containsExactly("ADDED p3@4", "BOOKMARK@7");
        }
    }

    @Test
    void listAndWatchOfAnEmptyRangeSendsOnlyTheBookmark() throws Exception {
        try (StoreWatch w = store.listAndWatch("", "pods", null, null, 10)) {
            assertThat(describe(drainNow(w))).containsExactly("BOOKMARK@1");
        }
    }

    @Test
    void aFilterThatThrowsEndsOnlyItsOwnWatchWithAnInternalError() throws Exception {
        try (StoreWatch bad = store.watch(
                        "",
                        "pods",
                        null,
                        1,
                        o -> {
                            throw new IllegalStateException("boom");
                        },
                        10);
                StoreWatch good = store.watch("", "pods", null, 1, null, 10)) {
            create(pod("a", "p"));
            List<StoreEvent> events = drainNow(bad);
            assertThat(events).hasSize(1);
            assertThat(events.getFirst().type()).isEqualTo(StoreEvent.Type.ERROR);
            assertThat(events.getFirst().object().get("code").intValue()).isEqualTo(500);
            assertThat(events.getFirst().object().get("message").stringValue()).contains("boom");
            assertThat(bad.endReason()).isEqualTo(StoreWatch.EndReason.FILTER_FAILED);
            assertThat(bad.isDone()).isTrue();
            assertThat(describe(drainNow(good))).containsExactly("ADDED p@2");
        }
    }

    @Test
    void watchArgumentsAreChecked() {
        assertThatThrownBy(() -> store.watch("", "pods", null, 1, null, 0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> store.watch("", "pods", null, -1, null, 1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> store.listAndWatch("", "pods", null, null, 0))
                .isInstanceOf(IllegalArgumentException.class);
    }

    private static StoreEvent next(StoreWatch w, Duration timeout) {
        try {
            return w.next(timeout);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
