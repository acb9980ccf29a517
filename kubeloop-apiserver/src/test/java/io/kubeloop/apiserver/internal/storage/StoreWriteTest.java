package io.kubeloop.apiserver.internal.storage;

import static io.kubeloop.apiserver.internal.storage.TestObjects.JSON;
import static io.kubeloop.apiserver.internal.storage.TestObjects.deployment;
import static io.kubeloop.apiserver.internal.storage.TestObjects.drainNow;
import static io.kubeloop.apiserver.internal.storage.TestObjects.inAnotherThread;
import static io.kubeloop.apiserver.internal.storage.TestObjects.node;
import static io.kubeloop.apiserver.internal.storage.TestObjects.object;
import static io.kubeloop.apiserver.internal.storage.TestObjects.pod;
import static io.kubeloop.apiserver.internal.storage.TestObjects.revision;
import static io.kubeloop.apiserver.internal.storage.TestObjects.rv;
import static io.kubeloop.apiserver.internal.storage.TestObjects.withLabel;
import static io.kubeloop.apiserver.internal.storage.TestObjects.withReplicas;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.node.ObjectNode;

/** Creates, updates, deletes and guaranteed updates: revisions, no-ops, conflicts, preconditions, ownership. */
class StoreWriteTest {

    private final Store store = Store.builder().build();

    @AfterEach
    void closeStore() {
        store.close();
    }

    // ------------------------------------------------------------------------------------------------
    // Revisions

    @Test
    void anEmptyStoreIsAtRevisionOneAndTheFirstWriteIsTwo() {
        assertThat(store.currentRevision()).isEqualTo(1);
        assertThat(rv(store.create(pod("ns", "a"), object(pod("ns", "a"))))).isEqualTo("2");
        assertThat(store.currentRevision()).isEqualTo(2);
    }

    @Test
    void revisionsStrictlyIncreaseByOneAcrossResourcesAndOperations() {
        record Step(String what, java.util.function.Supplier<ObjectNode> write) {}
        StorageKey p = pod("ns", "p");
        StorageKey d = deployment("ns", "d");
        StorageKey n = node("n");
        List<Step> steps = List.of(
                new Step("create pod", () -> store.create(p, object(p))),
                new Step("create deployment", () -> store.create(d, object(d))),
                new Step("create node", () -> store.create(n, object(n))),
                new Step("update pod", () -> store.update(p, withReplicas(store.get(p), 2), 0)),
                new Step(
                        "guaranteed update deployment",
                        () -> store.guaranteedUpdate(d, Preconditions.NONE, o -> withReplicas(o, 3))),
                new Step("delete node", () -> store.delete(n, Preconditions.NONE)),
                new Step("re-create node", () -> store.create(n, object(n))),
                new Step("delete pod", () -> store.delete(p, Preconditions.NONE)));
        long previous = store.currentRevision();
        for (Step step : steps) {
            ObjectNode result = step.write().get();
            assertThat(revision(result)).as(step.what()).isEqualTo(previous + 1);
            assertThat(store.currentRevision()).as(step.what()).isEqualTo(previous + 1);
            previous++;
        }
    }

    // ------------------------------------------------------------------------------------------------
    // Create

    @Test
    void createStoresACopyWithTheRevisionAndLeavesTheInputAlone() {
        StorageKey k = pod("ns", "a");
        ObjectNode input = object(k);
        ObjectNode stored = store.create(k, input);

        assertThat(input.get("metadata").has("resourceVersion")).isFalse();
        assertThat(stored).isNotSameAs(input);
        ObjectNode expected = input.deepCopy();
        ((ObjectNode) expected.get("metadata")).put("resourceVersion", "2");
        assertThat(stored).isEqualTo(expected);

        // The caller keeps its tree: changing it does not reach the store.
        ((ObjectNode) input.get("spec")).put("replicas", 99);
        ((ObjectNode) input.get("spec").get("containers").get(0)).put("image", "evil");
        assertThat(store.get(k).get("spec").get("replicas").intValue()).isEqualTo(1);
        assertThat(store.get(k)
                        .get("spec")
                        .get("containers")
                        .get(0)
                        .get("image")
                        .stringValue())
                .isEqualTo("nginx:1");
    }

    @Test
    void createOfAnExistingKeyIsAlreadyExists() {
        StorageKey k = deployment("ns", "web");
        store.create(k, object(k));
        long before = store.currentRevision();

        assertThatThrownBy(() -> store.create(k, object(k))).isInstanceOfSatisfying(AlreadyExistsException.class, e -> {
            assertThat(e).hasMessage("deployments.apps \"web\" already exists");
            assertThat(e.code()).isEqualTo(409);
            assertThat(e.reason()).isEqualTo("AlreadyExists");
            assertThat(e.key()).isEqualTo(k);
            assertThat(e.toStatus().toString())
                    .isEqualTo("{\"kind\":\"Status\",\"apiVersion\":\"v1\","
                            + "\"metadata\":{},\"status\":\"Failure\",\"message\":\"deployments.apps \\\"web\\\" "
                            + "already exists\",\"reason\":\"AlreadyExists\",\"details\":{\"name\":\"web\","
                            + "\"group\":\"apps\",\"kind\":\"deployments\"},\"code\":409}");
        });
        assertThat(store.currentRevision()).isEqualTo(before);
    }

    @Test
    void aDeletedKeyCanBeCreatedAgain() {
        StorageKey k = pod("ns", "a");
        store.create(k, object(k));
        store.delete(k, Preconditions.NONE);
        ObjectNode again = store.create(k, object(k, "gen=2"));
        assertThat(store.get(k)).isSameAs(again);
        assertThat(rv(again)).isEqualTo("4");
    }

    @Test
    void metadataMustBeAnObject() {
        ObjectNode bad = JSON.createObjectNode().put("metadata", "x");
        assertThatThrownBy(() -> store.create(pod("ns", "a"), bad)).isInstanceOf(IllegalArgumentException.class);
        assertThat(store.currentRevision()).isEqualTo(1);
    }

    @Test
    void anObjectWithoutMetadataGetsOneForItsResourceVersion() {
        ObjectNode stored = store.create(pod("ns", "a"), JSON.createObjectNode().put("kind", "Pod"));
        assertThat(stored.toString()).isEqualTo("{\"kind\":\"Pod\",\"metadata\":{\"resourceVersion\":\"2\"}}");
    }

    // ------------------------------------------------------------------------------------------------
    // Update

    static Stream<Arguments> updatePreconditions() {
        // expected revision relative to the object's current revision -> outcome
        return Stream.of(
                Arguments.of("unconditional (0)", Long.MIN_VALUE, true),
                Arguments.of("current revision", 0L, true),
                Arguments.of("stale revision", -1L, false),
                Arguments.of("future revision", +5L, false));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("updatePreconditions")
    void updateChecksTheExpectedRevision(String name, long offset, boolean succeeds) {
        StorageKey k = pod("ns", "a");
        store.create(k, object(k));
        ObjectNode current = store.update(k, withReplicas(store.get(k), 2), 0);
        long expected = offset == Long.MIN_VALUE ? 0 : revision(current) + offset;

        if (succeeds) {
            ObjectNode updated = store.update(k, withReplicas(current, 3), expected);
            assertThat(revision(updated)).isEqualTo(revision(current) + 1);
            assertThat(store.get(k)).isSameAs(updated);
        } else {
            assertThatThrownBy(() -> store.update(k, withReplicas(current, 3), expected))
                    .isInstanceOfSatisfying(ConflictException.class, e -> {
                        assertThat(e)
                                .hasMessage("Operation cannot be fulfilled on pods \"a\": the object has been "
                                        + "modified; please apply your changes to the latest version and try again");
                        assertThat(e.code()).isEqualTo(409);
                        assertThat(e.reason()).isEqualTo("Conflict");
                    });
            assertThat(store.get(k)).isSameAs(current);
        }
    }

    @Test
    void updateOfAMissingKeyIsNotFound() {
        StorageKey k = deployment("ns", "gone");
        assertThatThrownBy(() -> store.update(k, object(k), 0)).isInstanceOfSatisfying(NotFoundException.class, e -> {
            assertThat(e).hasMessage("deployments.apps \"gone\" not found");
            assertThat(e.code()).isEqualTo(404);
            assertThat(e.toStatus().toString())
                    .isEqualTo("{\"kind\":\"Status\",\"apiVersion\":\"v1\","
                            + "\"metadata\":{},\"status\":\"Failure\",\"message\":\"deployments.apps \\\"gone\\\" "
                            + "not found\",\"reason\":\"NotFound\",\"details\":{\"name\":\"gone\",\"group\":\"apps\","
                            + "\"kind\":\"deployments\"},\"code\":404}");
        });
        store.create(k, object(k));
        store.delete(k, Preconditions.NONE);
        assertThatThrownBy(() -> store.update(k, object(k), 0)).isInstanceOf(NotFoundException.class);
    }

    static Stream<Arguments> noOpWrites() {
        return Stream.of(
                Arguments.of("the stored object itself", (Consumer<ObjectNode>) o -> {}),
                Arguments.of("a different resourceVersion", (Consumer<ObjectNode>)
                        o -> ((ObjectNode) o.get("metadata")).put("resourceVersion", "1")),
                Arguments.of("no resourceVersion", (Consumer<ObjectNode>)
                        o -> ((ObjectNode) o.get("metadata")).remove("resourceVersion")),
                Arguments.of("fields in another order", (Consumer<ObjectNode>) o -> {
                    var spec = o.remove("spec");
                    o.set("spec", spec);
                }));
    }

    @ParameterizedTest(name = "update with {0} is a no-op")
    @MethodSource("noOpWrites")
    void anUpdateEqualToTheStoredObjectIsANoOp(String name, Consumer<ObjectNode> change) throws Exception {
        StorageKey k = pod("ns", "a");
        ObjectNode stored = store.create(k, object(k, "app=web"));
        long revision = store.currentRevision();
        try (StoreWatch watch = store.watch("", "pods", null, revision, null, 10)) {
            ObjectNode input = stored.deepCopy();
            change.accept(input);

            assertThat(store.update(k, input, 0)).isSameAs(stored);
            assertThat(store.update(k, input, revision)).isSameAs(stored);
            assertThat(store.guaranteedUpdate(k, Preconditions.NONE, o -> {
                        change.accept(o);
                        return o;
                    }))
                    .isSameAs(stored);

            assertThat(store.currentRevision()).isEqualTo(revision);
            assertThat(drainNow(watch)).isEmpty();
            store.update(k, withReplicas(stored, 5), 0);
            assertThat(drainNow(watch)).extracting(StoreEvent::revision).containsExactly(revision + 1);
        }
    }

    @Test
    void aNoOpWithAStaleRevisionIsStillAConflict() {
        StorageKey k = pod("ns", "a");
        ObjectNode first = store.create(k, object(k));
        ObjectNode second = store.update(k, withReplicas(first, 2), 0);
        assertThatThrownBy(() -> store.update(k, second.deepCopy(), revision(first)))
                .isInstanceOf(ConflictException.class);
    }

    @Test
    void anUpdateSharesEveryUnchangedSubtreeWithThePreviousVersion() {
        StorageKey k = pod("ns", "a");
        ObjectNode v1 = store.create(k, object(k, "app=web"));
        ObjectNode v2 = store.update(k, withLabel(v1, "tier", "front"), 0);

        assertThat(v2.get("spec")).isSameAs(v1.get("spec"));
        assertThat(v2.get("metadata").get("uid")).isSameAs(v1.get("metadata").get("uid"));
        assertThat(v2.get("metadata").get("labels"))
                .isNotSameAs(v1.get("metadata").get("labels"));
        assertThat(v2.get("metadata").get("labels").get("app"))
                .isSameAs(v1.get("metadata").get("labels").get("app"));
        // The old version is untouched.
        assertThat(rv(v1)).isEqualTo("2");
        assertThat(v1.get("metadata").get("labels").has("tier")).isFalse();

        ObjectNode v3 = store.update(k, withReplicas(v2, 7), 0);
        assertThat(v3.get("metadata").get("labels")).isSameAs(v2.get("metadata").get("labels"));
        assertThat(v3.get("spec").get("containers")).isSameAs(v2.get("spec").get("containers"));
    }

    // ------------------------------------------------------------------------------------------------
    // Delete

    static Stream<Arguments> deletePreconditions() {
        String uidMismatch = "Operation cannot be fulfilled on pods \"a\": Precondition failed: UID in precondition: "
                + "other, UID in object meta: uid-a";
        String rvMismatch = "Operation cannot be fulfilled on pods \"a\": Precondition failed: ResourceVersion in "
                + "precondition: 2, ResourceVersion in object meta: 3";
        return Stream.of(
                Arguments.of(Preconditions.NONE, null),
                Arguments.of(Preconditions.uid("uid-a"), null),
                Arguments.of(Preconditions.resourceVersion("3"), null),
                Arguments.of(new Preconditions("uid-a", "3"), null),
                Arguments.of(Preconditions.uid("other"), uidMismatch),
                Arguments.of(Preconditions.resourceVersion("2"), rvMismatch),
                Arguments.of(new Preconditions("other", "2"), uidMismatch), // the UID is checked first
                Arguments.of(new Preconditions("uid-a", "2"), rvMismatch));
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @MethodSource("deletePreconditions")
    void deleteChecksPreconditions(Preconditions preconditions, String conflict) {
        StorageKey k = pod("ns", "a");
        ObjectNode first = store.create(k, object(k));
        ObjectNode current = store.update(k, withReplicas(first, 2), 0); // revision 3

        if (conflict == null) {
            ObjectNode last = store.delete(k, preconditions);
            assertThat(rv(last)).isEqualTo("4");
            assertThatThrownBy(() -> store.get(k)).isInstanceOf(NotFoundException.class);
        } else {
            assertThatThrownBy(() -> store.delete(k, preconditions))
                    .isInstanceOf(ConflictException.class)
                    .hasMessage(conflict);
            assertThat(store.get(k)).isSameAs(current);
            assertThat(store.currentRevision()).isEqualTo(3);
        }
    }

    @Test
    void deleteReturnsTheLastStateWithTheDeletesRevision() throws Exception {
        StorageKey k = pod("ns", "a");
        ObjectNode stored = store.create(k, object(k, "app=web"));
        try (StoreWatch watch = store.watch("", "pods", "ns", store.currentRevision(), null, 10)) {
            ObjectNode last = store.delete(k, Preconditions.NONE);

            ObjectNode expected = stored.deepCopy();
            ((ObjectNode) expected.get("metadata")).put("resourceVersion", "3");
            assertThat(last).isEqualTo(expected);
            assertThat(last.get("spec")).isSameAs(stored.get("spec"));
            assertThat(rv(stored)).isEqualTo("2");
            assertThat(drainNow(watch)).containsExactly(new StoreEvent(StoreEvent.Type.DELETED, last, 3));
        }
        assertThatThrownBy(() -> store.delete(k, Preconditions.NONE))
                .isInstanceOf(NotFoundException.class)
                .hasMessage("pods \"a\" not found");
    }

    // ------------------------------------------------------------------------------------------------
    // Guaranteed update

    @Test
    void guaranteedUpdateGivesTheFunctionAPrivateCopy() {
        StorageKey k = pod("ns", "a");
        ObjectNode stored = store.create(k, object(k));
        ObjectNode updated = store.guaranteedUpdate(k, Preconditions.NONE, o -> {
            assertThat(o).isEqualTo(stored).isNotSameAs(stored);
            ((ObjectNode) o.get("spec")).put("replicas", 4);
            return o;
        });
        assertThat(updated.get("spec").get("replicas").intValue()).isEqualTo(4);
        assertThat(stored.get("spec").get("replicas").intValue()).isEqualTo(1);
        assertThat(rv(updated)).isEqualTo("3");
    }

    @Test
    void guaranteedUpdateChecksPreconditionsAndExistence() {
        StorageKey k = pod("ns", "a");
        assertThatThrownBy(() -> store.guaranteedUpdate(k, Preconditions.NONE, o -> o))
                .isInstanceOf(NotFoundException.class);
        store.create(k, object(k));
        assertThatThrownBy(() -> store.guaranteedUpdate(k, Preconditions.uid("x"), o -> withReplicas(o, 2)))
                .isInstanceOf(ConflictException.class)
                .hasMessageContaining("Precondition failed: UID in precondition: x, UID in object meta: uid-a");
        assertThat(store.currentRevision()).isEqualTo(2);
    }

    @Test
    void aFailingFunctionWritesNothing() {
        StorageKey k = pod("ns", "a");
        store.create(k, object(k));
        assertThatThrownBy(() -> store.guaranteedUpdate(k, Preconditions.NONE, o -> {
                    throw ConflictException.objectModified(k);
                }))
                .isInstanceOf(ConflictException.class);
        assertThatThrownBy(() -> store.guaranteedUpdate(k, Preconditions.NONE, o -> null))
                .isInstanceOf(NullPointerException.class);
        assertThat(store.currentRevision()).isEqualTo(2);
    }

    @Test
    void guaranteedUpdateRetriesOnTheNewerObjectWhenItLosesARace() {
        StorageKey k = pod("ns", "a");
        store.create(k, object(k));
        AtomicInteger calls = new AtomicInteger();
        List<Integer> seenReplicas = new ArrayList<>();
        // Each of the optimistic attempts is overtaken by a write from another thread; the last attempt runs
        // under the write lock and must not be (the racing write would wait for it).
        ObjectNode result = store.guaranteedUpdate(k, Preconditions.NONE, o -> {
            int call = calls.incrementAndGet();
            seenReplicas.add(o.get("spec").get("replicas").intValue());
            if (call <= MvccStore.OPTIMISTIC_ATTEMPTS) {
                inAnotherThread(() -> store.update(k, withReplicas(store.get(k), 10 * call), 0));
            }
            o.withObjectProperty("metadata").withObjectProperty("labels").put("patched", "yes");
            return o;
        });
        assertThat(calls.get()).isEqualTo(MvccStore.OPTIMISTIC_ATTEMPTS + 1);
        assertThat(seenReplicas).containsExactly(1, 10, 20, 30);
        assertThat(result.get("spec").get("replicas").intValue()).isEqualTo(30);
        assertThat(result.get("metadata").get("labels").get("patched").stringValue())
                .isEqualTo("yes");
        assertThat(store.get(k)).isSameAs(result);
    }

    @Test
    void guaranteedUpdateSucceedsOnASecondAttempt() {
        StorageKey k = pod("ns", "a");
        store.create(k, object(k));
        AtomicInteger calls = new AtomicInteger();
        ObjectNode result = store.guaranteedUpdate(k, Preconditions.NONE, o -> {
            if (calls.incrementAndGet() == 1) {
                inAnotherThread(() -> store.update(k, withReplicas(store.get(k), 2), 0));
            }
            return withLabel(o, "x", "y");
        });
        assertThat(calls.get()).isEqualTo(2);
        assertThat(result.get("spec").get("replicas").intValue()).isEqualTo(2);
        assertThat(rv(result)).isEqualTo("4");
    }

    // ------------------------------------------------------------------------------------------------
    // Lifecycle

    @Test
    void aClosedStoreRefusesEveryOperation() {
        StorageKey k = pod("ns", "a");
        store.create(k, object(k));
        store.close();
        List<Runnable> operations = List.of(
                () -> store.create(pod("ns", "b"), object(pod("ns", "b"))),
                () -> store.update(k, object(k), 0),
                () -> store.delete(k, Preconditions.NONE),
                () -> store.guaranteedUpdate(k, Preconditions.NONE, o -> o),
                () -> store.get(k),
                () -> store.list("", "pods", null, 0, null, 0, null),
                () -> store.watch("", "pods", null, 1, null, 1),
                () -> store.listAndWatch("", "pods", null, null, 1),
                () -> store.compact(1));
        for (Runnable op : operations) {
            assertThatThrownBy(op::run)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessage("the store is closed");
        }
        store.close(); // idempotent
    }
}
