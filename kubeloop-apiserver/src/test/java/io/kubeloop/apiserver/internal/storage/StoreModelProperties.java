package io.kubeloop.apiserver.internal.storage;

import static io.kubeloop.apiserver.internal.storage.TestObjects.drainNow;
import static io.kubeloop.apiserver.internal.storage.TestObjects.label;
import static io.kubeloop.apiserver.internal.storage.TestObjects.object;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import tools.jackson.databind.node.ObjectNode;

/**
 * The store against a naive model that keeps a full copy of the state at every revision: random sequences of
 * creates, updates (plain, conditional, stale, no-op), guaranteed updates, deletes with preconditions,
 * compactions, lists at old, current and future revisions (paged, filtered), and watches from past revisions
 * (filtered or not). Two watches opened at the start follow the whole run and must see exactly the model's
 * changes. The history limit is small, so automatic compaction is exercised too.
 */
class StoreModelProperties {

    private static final List<StorageKey> KEYS = List.of(
            TestObjects.pod("a", "x"),
            TestObjects.pod("a", "y"),
            TestObjects.pod("b", "x"),
            TestObjects.pod("b", "z"),
            TestObjects.deployment("a", "x"),
            TestObjects.node("n"));
    private static final List<String> NAMESPACES = java.util.Arrays.asList(null, "a", "b");
    private static final List<String> APPS = List.of("web", "db");
    private static final Predicate<ObjectNode> WEB = o -> "web".equals(label(o, "app"));

    // ------------------------------------------------------------------------------------------------
    // Operations

    sealed interface Op {}

    record Create(int key, int app) implements Op {}

    /** mode: 0 unconditional, 1 current revision, 2 stale revision. */
    record Update(int key, int app, int mode) implements Op {}

    record Guaranteed(int key, int app) implements Op {}

    /** mode: 0 none, 1 right uid, 2 wrong uid, 3 right resourceVersion, 4 wrong resourceVersion. */
    record Delete(int key, int mode) implements Op {}

    record Compact(int back) implements Op {}

    /** back: 0 current, -1 one revision in the future, else that many revisions back. */
    record ListAt(int back, int namespace, int limit, boolean filtered) implements Op {}

    record WatchFrom(int back, int namespace, boolean filtered) implements Op {}

    record Get(int key) implements Op {}

    @Provide
    Arbitrary<List<Op>> ops() {
        Arbitrary<Integer> key = Arbitraries.integers().between(0, KEYS.size() - 1);
        Arbitrary<Integer> app = Arbitraries.integers().between(0, APPS.size() - 1);
        Arbitrary<Integer> ns = Arbitraries.integers().between(0, NAMESPACES.size() - 1);
        Arbitrary<Op> op = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(4, Combinators.combine(key, app).as(Create::new)),
                net.jqwik.api.Tuple.of(
                        5,
                        Combinators.combine(key, app, Arbitraries.integers().between(0, 2))
                                .as(Update::new)),
                net.jqwik.api.Tuple.of(2, Combinators.combine(key, app).as(Guaranteed::new)),
                net.jqwik.api.Tuple.of(
                        3,
                        Combinators.combine(key, Arbitraries.integers().between(0, 4))
                                .as(Delete::new)),
                net.jqwik.api.Tuple.of(1, Arbitraries.integers().between(0, 6).map(Compact::new)),
                net.jqwik.api.Tuple.of(
                        3,
                        Combinators.combine(
                                        Arbitraries.integers().between(-1, 12),
                                        ns,
                                        Arbitraries.integers().between(0, 3),
                                        Arbitraries.of(true, false))
                                .as(ListAt::new)),
                net.jqwik.api.Tuple.of(
                        2,
                        Combinators.combine(Arbitraries.integers().between(0, 14), ns, Arbitraries.of(true, false))
                                .as(WatchFrom::new)),
                net.jqwik.api.Tuple.of(1, key.map(Get::new)));
        return op.list().ofMinSize(1).ofMaxSize(60);
    }

    // ------------------------------------------------------------------------------------------------
    // The model

    /** An object in the model: its content without resourceVersion, and its revision. */
    record Obj(ObjectNode content, long revision) {}

    static final class Model {
        /** Index = revision; revisions 0 and 1 are the empty store. */
        final List<Map<StorageKey, Obj>> states = new ArrayList<>(List.of(new TreeMap<>(), new TreeMap<>()));
        /** The key each revision wrote. */
        final Map<Long, StorageKey> changed = new HashMap<>();

        final int historyLimit;
        long compacted;

        Model(int historyLimit) {
            this.historyLimit = historyLimit;
        }

        long current() {
            return states.size() - 1;
        }

        Map<StorageKey, Obj> now() {
            return states.getLast();
        }

        /** Records a write to {@code key} ({@code content} null for a delete); returns its revision. */
        long write(StorageKey key, ObjectNode content) {
            long revision = current() + 1;
            Map<StorageKey, Obj> next = new TreeMap<>(now());
            if (content == null) {
                next.remove(key);
            } else {
                next.put(key, new Obj(content, revision));
            }
            states.add(next);
            changed.put(revision, key);
            if (revision - compacted > historyLimit) {
                compacted = revision - historyLimit;
            }
            return revision;
        }

        /** The events a watcher of (pods, namespace, filter) sees for revisions in (from, current]. */
        List<String> events(long from, String namespace, Predicate<ObjectNode> filter) {
            List<String> events = new ArrayList<>();
            for (long r = from + 1; r <= current(); r++) {
                StorageKey k = changed.get(r); // null for the initial revision, which no write made
                if (k == null
                        || !k.resource().equals("pods")
                        || (namespace != null && !namespace.equals(k.namespace()))) {
                    continue;
                }
                Obj before = states.get((int) r - 1).get(k);
                Obj after = states.get((int) r).get(k);
                boolean oldPasses = before != null && (filter == null || filter.test(before.content()));
                boolean newPasses = after != null && (filter == null || filter.test(after.content()));
                if (newPasses) {
                    events.add((oldPasses ? "MODIFIED " : "ADDED ") + describe(k, after.content(), r));
                } else if (oldPasses) {
                    events.add("DELETED " + describe(k, before.content(), r));
                }
            }
            return events;
        }
    }

    static String describe(StorageKey k, ObjectNode content, long revision) {
        return k + " " + content + "@" + revision;
    }

    /** An event as the model describes it, checking that the object carries the event's revision. */
    static String describe(StoreEvent e) {
        if (e.type() == StoreEvent.Type.ERROR) {
            return "ERROR " + e.object().get("message").stringValue();
        }
        ObjectNode o = e.object();
        assertThat(TestObjects.revision(o)).isEqualTo(e.revision());
        StorageKey k =
                new StorageKey("", "pods", o.get("metadata").get("namespace").stringValue(), TestObjects.name(o));
        return e.type() + " " + describe(k, content(o), e.revision());
    }

    static ObjectNode content(ObjectNode stored) {
        ObjectNode c = stored.deepCopy();
        ((ObjectNode) c.get("metadata")).remove("resourceVersion");
        return c;
    }

    // ------------------------------------------------------------------------------------------------
    // The property

    @Property(tries = 300)
    void theStoreBehavesLikeTheModel(@ForAll("ops") List<Op> ops, @ForAll @IntRange(min = 1, max = 12) int historyLimit)
            throws Exception {
        Model model = new Model(historyLimit);
        try (Store store = Store.builder().historyLimit(historyLimit).build();
                StoreWatch all = store.watch("", "pods", null, 1, null, 10_000);
                StoreWatch webInA = store.watch("", "pods", "a", 1, WEB, 10_000)) {
            for (Op op : ops) {
                apply(store, model, op);
                assertThat(store.currentRevision()).as("after %s", op).isEqualTo(model.current());
                assertThat(store.compactedRevision()).as("after %s", op).isEqualTo(model.compacted);
            }
            assertThat(drainNow(all).stream()
                            .map(StoreModelProperties::describe)
                            .toList())
                    .isEqualTo(model.events(1, null, null));
            assertThat(drainNow(webInA).stream()
                            .map(StoreModelProperties::describe)
                            .toList())
                    .isEqualTo(model.events(1, "a", WEB));
        }
    }

    private static void apply(Store store, Model model, Op op) throws Exception {
        switch (op) {
            case Create c -> {
                StorageKey k = KEYS.get(c.key());
                ObjectNode content = object(k, "app=" + APPS.get(c.app()));
                if (model.now().containsKey(k)) {
                    assertThatThrownBy(() -> store.create(k, content)).isInstanceOf(AlreadyExistsException.class);
                } else {
                    ObjectNode stored = store.create(k, content);
                    assertThat(TestObjects.revision(stored)).isEqualTo(model.write(k, content));
                }
            }
            case Update u -> {
                StorageKey k = KEYS.get(u.key());
                ObjectNode content = object(k, "app=" + APPS.get(u.app()));
                Obj current = model.now().get(k);
                long expected = current == null || u.mode() == 0
                        ? 0
                        : u.mode() == 1 ? current.revision() : current.revision() - 1;
                if (current == null) {
                    assertThatThrownBy(() -> store.update(k, content, expected)).isInstanceOf(NotFoundException.class);
                } else if (u.mode() == 2) {
                    assertThatThrownBy(() -> store.update(k, content, expected)).isInstanceOf(ConflictException.class);
                } else {
                    checkUpdate(model, k, current, content, store.update(k, content, expected));
                }
            }
            case Guaranteed g -> {
                StorageKey k = KEYS.get(g.key());
                Obj current = model.now().get(k);
                String app = APPS.get(g.app());
                if (current == null) {
                    assertThatThrownBy(() -> store.guaranteedUpdate(k, Preconditions.NONE, o -> o))
                            .isInstanceOf(NotFoundException.class);
                } else {
                    ObjectNode content = current.content().deepCopy();
                    ((ObjectNode) content.get("metadata").get("labels")).put("app", app);
                    checkUpdate(model, k, current, content, store.guaranteedUpdate(k, Preconditions.NONE, o -> {
                        ((ObjectNode) o.get("metadata").get("labels")).put("app", app);
                        return o;
                    }));
                }
            }
            case Delete d -> {
                StorageKey k = KEYS.get(d.key());
                Obj current = model.now().get(k);
                String rv = current == null ? "1" : Long.toString(current.revision());
                Preconditions p =
                        switch (d.mode()) {
                            case 1 -> Preconditions.uid("uid-" + k.name());
                            case 2 -> Preconditions.uid("someone-else");
                            case 3 -> Preconditions.resourceVersion(rv);
                            case 4 -> Preconditions.resourceVersion(rv + "0");
                            default -> Preconditions.NONE;
                        };
                if (current == null) {
                    assertThatThrownBy(() -> store.delete(k, p)).isInstanceOf(NotFoundException.class);
                } else if (d.mode() == 2 || d.mode() == 4) {
                    assertThatThrownBy(() -> store.delete(k, p)).isInstanceOf(ConflictException.class);
                } else {
                    ObjectNode last = store.delete(k, p);
                    assertThat(content(last)).isEqualTo(current.content());
                    assertThat(TestObjects.revision(last)).isEqualTo(model.write(k, null));
                }
            }
            case Compact c -> {
                long target = Math.max(0, model.current() - c.back());
                store.compact(target);
                model.compacted = Math.max(model.compacted, target);
            }
            case ListAt l -> checkList(store, model, l);
            case WatchFrom w -> {
                long from = Math.max(0, model.current() - w.back());
                String ns = NAMESPACES.get(w.namespace());
                Predicate<ObjectNode> filter = w.filtered() ? WEB : null;
                try (StoreWatch watch = store.watch("", "pods", ns, from, filter, 10_000)) {
                    List<String> events = drainNow(watch).stream()
                            .map(StoreModelProperties::describe)
                            .toList();
                    if (from < model.compacted) {
                        assertThat(events)
                                .containsExactly(
                                        "ERROR too old resource version: " + from + " (" + model.compacted + ")");
                        assertThat(watch.isDone()).isTrue();
                    } else {
                        assertThat(events).isEqualTo(model.events(from, ns, filter));
                        assertThat(watch.bookmarkRevision()).hasValue(model.current());
                    }
                }
            }
            case Get g -> {
                StorageKey k = KEYS.get(g.key());
                Obj current = model.now().get(k);
                if (current == null) {
                    assertThatThrownBy(() -> store.get(k)).isInstanceOf(NotFoundException.class);
                } else {
                    ObjectNode stored = store.get(k);
                    assertThat(content(stored)).isEqualTo(current.content());
                    assertThat(TestObjects.revision(stored)).isEqualTo(current.revision());
                }
            }
        }
    }

    private static void checkUpdate(Model model, StorageKey k, Obj current, ObjectNode content, ObjectNode stored) {
        if (content.equals(current.content())) {
            assertThat(TestObjects.revision(stored)).as("no-op").isEqualTo(current.revision());
        } else {
            assertThat(TestObjects.revision(stored)).isEqualTo(model.write(k, content));
        }
        assertThat(content(stored)).isEqualTo(content);
    }

    private static void checkList(Store store, Model model, ListAt l) {
        String ns = NAMESPACES.get(l.namespace());
        Predicate<ObjectNode> filter = l.filtered() ? WEB : null;
        long revision =
                l.back() == 0 ? 0 : l.back() < 0 ? model.current() + 1 : Math.max(1, model.current() - l.back());
        if (revision > model.current()) {
            assertThatThrownBy(() -> store.list("", "pods", ns, revision, filter, l.limit(), null))
                    .isInstanceOf(TooLargeResourceVersionException.class);
            return;
        }
        if (revision != 0 && revision < model.compacted) {
            assertThatThrownBy(() -> store.list("", "pods", ns, revision, filter, l.limit(), null))
                    .isInstanceOf(ExpiredException.class)
                    .hasMessage(ExpiredException.LIST_MESSAGE);
            return;
        }
        long at = revision == 0 ? model.current() : revision;
        List<String> expected = new ArrayList<>();
        for (Map.Entry<StorageKey, Obj> e : model.states.get((int) at).entrySet()) {
            StorageKey k = e.getKey();
            if (k.resource().equals("pods")
                    && (ns == null || ns.equals(k.namespace()))
                    && (filter == null || filter.test(e.getValue().content()))) {
                expected.add(describe(k, e.getValue().content(), e.getValue().revision()));
            }
        }
        List<String> actual = new ArrayList<>();
        String continueKey = null;
        long listRevision = revision;
        for (int page = 0; page <= expected.size() + 1; page++) {
            ListResult r = store.list("", "pods", ns, listRevision, filter, l.limit(), continueKey);
            assertThat(r.revision()).isEqualTo(at);
            listRevision = r.revision();
            for (ObjectNode o : r.items()) {
                StorageKey k = new StorageKey(
                        "", "pods", o.get("metadata").get("namespace").stringValue(), TestObjects.name(o));
                actual.add(describe(k, content(o), TestObjects.revision(o)));
            }
            if (filter == null) {
                assertThat(r.remainingCount()).isEqualTo(expected.size() - actual.size());
            }
            continueKey = r.continueKey();
            if (!r.hasMore()) {
                break;
            }
            assertThat(r.items()).hasSize(l.limit());
        }
        assertThat(continueKey).isNull();
        assertThat(actual).isEqualTo(expected);
    }

    @Property(tries = 50)
    void aStoreWithoutCompactionListsEveryRevision(@ForAll("ops") @Size(max = 30) List<Op> ops) throws Exception {
        Model model = new Model(Integer.MAX_VALUE);
        try (Store store = Store.builder().historyLimit(Integer.MAX_VALUE).build()) {
            for (Op op : ops) {
                if (!(op instanceof Compact)) {
                    apply(store, model, op);
                }
            }
            for (long r = 1; r <= model.current(); r++) {
                checkList(store, model, new ListAt((int) (model.current() - r), 0, 0, false));
            }
        }
    }
}
