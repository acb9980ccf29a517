package io.kubeloop.apiserver.internal.storage;

import static io.kubeloop.apiserver.internal.storage.TestObjects.TIMEOUT;
import static io.kubeloop.apiserver.internal.storage.TestObjects.object;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.node.ObjectNode;

/**
 * Writers, watchers, listAndWatch consumers and paging readers at once, on platform and on virtual threads, with a
 * large history and with one small enough that compaction runs all the time. Every successful write is recorded
 * with its revision and resulting object; afterwards each reader's view is checked against those records:
 * revisions form one gap-free sequence, every watcher saw exactly the writes of its range after its start, once
 * each, in order; every listAndWatch's initial state plus its events equals the state at the revision it
 * reached; every paged list equals the state at its first page's revision.
 */
class StoreConcurrencyTest {

    private static final int WRITERS = 3;
    private static final int OPS_PER_WRITER = 1_500;
    private static final List<String> NAMESPACES = List.of("ns0", "ns1", "ns2");
    private static final int NAMES = 8;

    enum Kind {
        PLATFORM,
        VIRTUAL;

        Thread.Builder builder() {
            return this == PLATFORM ? Thread.ofPlatform().daemon(true) : Thread.ofVirtual();
        }
    }

    /** A successful write: the key, the event an unfiltered watcher sees, and the object it stored. */
    record Write(StorageKey key, StoreEvent.Type type, ObjectNode object) {}

    private final Map<Long, Write> writes = new ConcurrentHashMap<>();

    static Stream<Arguments> configurations() {
        return Stream.of(
                Arguments.of(Kind.PLATFORM, 1_000_000),
                Arguments.of(Kind.VIRTUAL, 1_000_000),
                Arguments.of(Kind.PLATFORM, 64),
                Arguments.of(Kind.VIRTUAL, 64));
    }

    @ParameterizedTest(name = "{0} threads, history limit {1}")
    @MethodSource("configurations")
    void everyReaderSeesExactlyTheWritesOfItsRange(Kind kind, int historyLimit) throws Exception {
        try (Store store = Store.builder().historyLimit(historyLimit).build()) {
            long start = store.currentRevision();
            AtomicBoolean writing = new AtomicBoolean(true);

            record WatchSpec(String group, String resource, String namespace) {}
            List<WatchSpec> specs = List.of(
                    new WatchSpec("", "pods", null),
                    new WatchSpec("", "pods", "ns1"),
                    new WatchSpec("apps", "deployments", null),
                    new WatchSpec("apps", "deployments", "ns2"));
            List<StoreWatch> watches = new ArrayList<>();
            List<CompletableFuture<List<StoreEvent>>> consumers = new ArrayList<>();
            for (WatchSpec s : specs) {
                StoreWatch w = store.watch(s.group(), s.resource(), s.namespace(), start, null, 1_000_000);
                watches.add(w);
                consumers.add(run(kind, () -> consume(w, writing, store)));
            }
            StoreWatch neverRead = store.watch("", "pods", null, start, null, 5);

            List<CompletableFuture<Void>> writers = new ArrayList<>();
            for (int i = 0; i < WRITERS; i++) {
                int id = i;
                writers.add(run(kind, () -> {
                    write(store, id);
                    return null;
                }));
            }
            List<CompletableFuture<List<ListAndWatchView>>> listAndWatchers = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                listAndWatchers.add(run(kind, () -> listAndWatchRepeatedly(store, writing)));
            }
            CompletableFuture<List<PagedView>> pager = run(kind, () -> pageRepeatedly(store, writing));

            for (CompletableFuture<Void> w : writers) {
                w.get(2 * TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            }
            writing.set(false);
            long end = store.currentRevision();

            // Revisions: one gap-free sequence, each a successful write.
            assertThat(writes.keySet()).hasSize((int) (end - start));
            assertThat(writes.keySet()).allSatisfy(r -> assertThat(r).isBetween(start + 1, end));

            for (int i = 0; i < specs.size(); i++) {
                WatchSpec s = specs.get(i);
                List<StoreEvent> events = consumers.get(i).get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
                List<String> expected = new ArrayList<>();
                for (long r = start + 1; r <= end; r++) {
                    Write w = writes.get(r);
                    if (w.key().group().equals(s.group())
                            && w.key().resource().equals(s.resource())
                            && (s.namespace() == null
                                    || s.namespace().equals(w.key().namespace()))) {
                        expected.add(w.type() + " " + w.key() + "@" + r);
                    }
                }
                assertThat(events.stream()
                                .map(e -> e.type() + " " + keyOf(s.group(), s.resource(), e.object()) + "@"
                                        + e.revision())
                                .toList())
                        .as("watch of %s", s)
                        .containsExactlyElementsOf(expected);
                assertThat(events).allSatisfy(e -> assertThat(e.object())
                        .isSameAs(writes.get(e.revision()).object()));
                assertThat(watches.get(i).endReason()).isNull();
            }
            assertThat(neverRead.endReason()).isEqualTo(StoreWatch.EndReason.OVERFLOWED);

            int checkedListAndWatches = 0;
            for (CompletableFuture<List<ListAndWatchView>> f : listAndWatchers) {
                for (ListAndWatchView view : f.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
                    assertThat(view.state())
                            .as("listAndWatch synced to %d", view.revision())
                            .isEqualTo(stateAt(view.revision(), "", "pods"));
                    checkedListAndWatches++;
                }
            }
            assertThat(checkedListAndWatches).isPositive();
            for (PagedView view : pager.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
                assertThat(view.state())
                        .as("paged list at %d", view.revision())
                        .isEqualTo(stateAt(view.revision(), "apps", "deployments"));
            }
            watches.forEach(StoreWatch::close);
        }
    }

    private static String keyOf(String group, String resource, ObjectNode o) {
        return new StorageKey(
                        group,
                        resource,
                        o.get("metadata").get("namespace").stringValue(),
                        o.get("metadata").get("name").stringValue())
                .toString();
    }

    /** Random creates, updates (plain, conditional, guaranteed) and deletes; every update changes the object. */
    private void write(Store store, int id) {
        SplittableRandom random = new SplittableRandom(id);
        for (int i = 0; i < OPS_PER_WRITER; i++) {
            StorageKey key = new StorageKey(
                    random.nextBoolean() ? "" : "apps",
                    random.nextBoolean() ? "pods" : "deployments",
                    NAMESPACES.get(random.nextInt(NAMESPACES.size())),
                    "n" + random.nextInt(NAMES));
            String stamp = id + "-" + i;
            try {
                switch (random.nextInt(5)) {
                    case 0, 1 -> record(key, StoreEvent.Type.ADDED, store.create(key, object(key)));
                    case 2 -> {
                        ObjectNode current = store.get(key);
                        ObjectNode next = current.deepCopy();
                        next.put("stamp", stamp);
                        record(
                                key,
                                StoreEvent.Type.MODIFIED,
                                store.update(key, next, random.nextBoolean() ? 0 : TestObjects.revision(current)));
                    }
                    case 3 ->
                        record(
                                key,
                                StoreEvent.Type.MODIFIED,
                                store.guaranteedUpdate(key, Preconditions.NONE, o -> o.put("stamp", stamp)));
                    default -> record(key, StoreEvent.Type.DELETED, store.delete(key, Preconditions.NONE));
                }
            } catch (NotFoundException | AlreadyExistsException | ConflictException expected) {
                // lost a race with another writer: nothing written
            }
        }
    }

    private void record(StorageKey key, StoreEvent.Type type, ObjectNode result) {
        Write previous = writes.putIfAbsent(TestObjects.revision(result), new Write(key, type, result));
        assertThat(previous).as("two writes with one revision").isNull();
    }

    /** Takes events until writing has stopped and a bookmark shows everything up to the end was taken. */
    private static List<StoreEvent> consume(StoreWatch w, AtomicBoolean writing, Store store)
            throws InterruptedException {
        List<StoreEvent> events = new ArrayList<>();
        long deadline = System.nanoTime() + 4 * TIMEOUT.toNanos();
        while (System.nanoTime() - deadline < 0) {
            StoreEvent e = w.next(Duration.ofMillis(20));
            if (e != null) {
                events.add(e);
            } else if (!writing.get() && w.bookmarkRevision().orElse(0) >= store.currentRevision()) {
                return events;
            }
        }
        throw new AssertionError("watch did not catch up: " + events.size() + " events, " + w.endReason());
    }

    /** A listAndWatch's view of all pods, synced to {@code revision}. */
    record ListAndWatchView(long revision, Map<String, ObjectNode> state) {}

    /** Opens listAndWatches while the writers run; each follows the stream up to a later revision. */
    private static List<ListAndWatchView> listAndWatchRepeatedly(Store store, AtomicBoolean writing)
            throws InterruptedException {
        List<ListAndWatchView> views = new ArrayList<>();
        for (int round = 0; round < 1_000 && (writing.get() || views.isEmpty()); round++) {
            try (StoreWatch w = store.listAndWatch("", "pods", null, null, 1_000_000)) {
                Map<String, ObjectNode> state = new TreeMap<>();
                long synced = -1;
                long target = Long.MAX_VALUE;
                for (int step = 0; step < 1_000_000; step++) {
                    StoreEvent e = w.next(TIMEOUT);
                    assertThat(e).as("listAndWatch ended: %s", w.endReason()).isNotNull();
                    if (e.type() == StoreEvent.Type.BOOKMARK) {
                        synced = e.revision();
                        target = store.currentRevision(); // follow the stream at least this far
                    } else {
                        assertThat(e.revision()).isGreaterThan(synced == -1 ? 0 : synced);
                        if (synced != -1) {
                            synced = e.revision();
                        }
                        String k = keyOf("", "pods", e.object());
                        if (e.type() == StoreEvent.Type.DELETED) {
                            assertThat(state.remove(k)).isNotNull();
                        } else {
                            assertThat(state.put(k, e.object()) == null).isEqualTo(e.type() == StoreEvent.Type.ADDED);
                        }
                    }
                    if (synced >= target) {
                        break;
                    }
                    if (synced != -1 && w.bookmarkRevision().orElse(-1) >= target) {
                        synced = w.bookmarkRevision().getAsLong();
                        // Everything up to the bookmark was taken: the state is synced to it.
                        break;
                    }
                }
                views.add(new ListAndWatchView(synced, state));
            }
        }
        return views;
    }

    /** A paged list of all deployments, and the revision of its first page. */
    record PagedView(long revision, Map<String, ObjectNode> state) {}

    private static List<PagedView> pageRepeatedly(Store store, AtomicBoolean writing) {
        List<PagedView> views = new ArrayList<>();
        for (int round = 0; round < 10_000 && writing.get(); round++) {
            Map<String, ObjectNode> state = new TreeMap<>();
            String continueKey = null;
            long revision = 0;
            try {
                for (int page = 0; page < 100; page++) {
                    ListResult r = store.list("apps", "deployments", null, revision, null, 2, continueKey);
                    revision = r.revision();
                    r.items().forEach(o -> state.put(keyOf("apps", "deployments", o), o));
                    continueKey = r.continueKey();
                    if (continueKey == null) {
                        views.add(new PagedView(revision, state));
                        break;
                    }
                }
            } catch (ExpiredException compacted) {
                assertThat(compacted.getMessage()).isEqualTo(ExpiredException.CONTINUE_MESSAGE);
            }
        }
        return views;
    }

    /** The objects of one resource at {@code revision}, from the records of the writes. */
    private Map<String, ObjectNode> stateAt(long revision, String group, String resource) {
        Map<String, ObjectNode> state = new TreeMap<>();
        for (long r = 1; r <= revision; r++) {
            Write w = writes.get(r);
            if (w == null
                    || !w.key().group().equals(group)
                    || !w.key().resource().equals(resource)) {
                continue;
            }
            if (w.type() == StoreEvent.Type.DELETED) {
                state.remove(w.key().toString());
            } else {
                state.put(w.key().toString(), w.object());
            }
        }
        return state;
    }

    private static <V> CompletableFuture<V> run(Kind kind, Callable<V> body) {
        CompletableFuture<V> result = new CompletableFuture<>();
        kind.builder().start(() -> {
            try {
                result.complete(body.call());
            } catch (Throwable e) {
                result.completeExceptionally(e);
            }
        });
        return result;
    }
}
