package io.kubeloop.apiserver.internal.storage;

import static io.kubeloop.apiserver.internal.storage.TestObjects.deployment;
import static io.kubeloop.apiserver.internal.storage.TestObjects.label;
import static io.kubeloop.apiserver.internal.storage.TestObjects.names;
import static io.kubeloop.apiserver.internal.storage.TestObjects.node;
import static io.kubeloop.apiserver.internal.storage.TestObjects.object;
import static io.kubeloop.apiserver.internal.storage.TestObjects.pod;
import static io.kubeloop.apiserver.internal.storage.TestObjects.rv;
import static io.kubeloop.apiserver.internal.storage.TestObjects.withReplicas;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.node.ObjectNode;

/** Lists: key ranges, MVCC snapshots at old revisions, paging with continue keys, filters, revision errors. */
class StoreListTest {

    private final Store store = Store.builder().build();

    @AfterEach
    void closeStore() {
        store.close();
    }

    private ObjectNode create(StorageKey k, String... labels) {
        return store.create(k, object(k, labels));
    }

    /** "name@rv" of every item. */
    private static List<String> nameAtRv(ListResult r) {
        return r.items().stream().map(o -> TestObjects.name(o) + "@" + rv(o)).toList();
    }

    // ------------------------------------------------------------------------------------------------
    // Ranges and order

    @Test
    void aListIsOneResourceInKeyOrder() {
        create(pod("b", "x"));
        create(pod("a", "y"));
        create(pod("a", "x"));
        create(pod("a2", "z")); // a namespace whose name extends "a"
        create(new StorageKey("", "podsx", "a", "w")); // a resource whose name extends "pods"
        create(new StorageKey("", "pod", "a", "v"));
        create(deployment("a", "x")); // same resource name space, other group
        create(node("n1"));

        assertThat(store.list("", "pods", null, 0, null, 0, null).items())
                .extracting(o -> o.get("metadata").get("namespace").stringValue() + "/" + TestObjects.name(o))
                .containsExactly("a/x", "a/y", "a2/z", "b/x");
        assertThat(names(store.list("", "pods", "a", 0, null, 0, null).items())).containsExactly("x", "y");
        assertThat(names(store.list("", "pods", "c", 0, null, 0, null).items())).isEmpty();
        assertThat(names(store.list("apps", "deployments", null, 0, null, 0, null)
                        .items()))
                .containsExactly("x");
        assertThat(names(store.list("", "nodes", "", 0, null, 0, null).items())).containsExactly("n1");
        assertThat(names(store.list("", "nodes", null, 0, null, 0, null).items()))
                .containsExactly("n1");
    }

    @Test
    void aListReportsTheRevisionItWasTakenAt() {
        create(pod("a", "x"));
        create(deployment("a", "x"));
        ListResult r = store.list("", "pods", null, 0, null, 0, null);
        assertThat(r.revision()).isEqualTo(3).isEqualTo(store.currentRevision());
        assertThat(r.hasMore()).isFalse();
        assertThat(r.continueKey()).isNull();
        assertThat(r.remainingCount()).isZero();
        assertThat(store.list("", "pods", null, 0, null, 0, null).items().getFirst())
                .isSameAs(store.get(pod("a", "x")));
    }

    // ------------------------------------------------------------------------------------------------
    // MVCC

    static Stream<Arguments> history() {
        // The history built by buildHistory(): revision -> pods at that revision.
        return Stream.of(
                Arguments.of(1L, List.of()),
                Arguments.of(2L, List.of("a@2")),
                Arguments.of(3L, List.of("a@2", "b@3")),
                Arguments.of(4L, List.of("a@4", "b@3")),
                Arguments.of(5L, List.of("a@4", "b@3")), // a deployment was written at 5
                Arguments.of(6L, List.of("a@4")),
                Arguments.of(7L, List.of("a@4", "c@7")),
                Arguments.of(8L, List.of("a@4", "b@8", "c@7")),
                Arguments.of(9L, List.of("b@8", "c@7")),
                Arguments.of(10L, List.of("b@8", "c@10")));
    }

    private void buildHistory() {
        StorageKey a = pod("ns", "a");
        StorageKey b = pod("ns", "b");
        StorageKey c = pod("ns", "c");
        create(a); // 2
        create(b); // 3
        store.update(a, withReplicas(store.get(a), 2), 0); // 4
        create(deployment("ns", "d")); // 5
        store.delete(b, Preconditions.NONE); // 6
        create(c); // 7
        create(b, "again=yes"); // 8
        store.delete(a, Preconditions.NONE); // 9
        store.update(c, withReplicas(store.get(c), 3), 0); // 10
    }

    @ParameterizedTest(name = "at revision {0}: {1}")
    @MethodSource("history")
    void aListAtAnOldRevisionSeesExactlyTheObjectsOfThatRevision(long revision, List<String> expected) {
        buildHistory();
        ListResult r = store.list("", "pods", "ns", revision, null, 0, null);
        assertThat(r.revision()).isEqualTo(revision);
        assertThat(nameAtRv(r)).containsExactlyElementsOf(expected);
        // The objects are the stored versions themselves, not copies.
        if (revision == 4) {
            assertThat(r.items().getFirst().get("spec").get("replicas").intValue())
                    .isEqualTo(2);
        }
    }

    @Test
    void aListAtAFutureRevisionIsTooLarge() {
        create(pod("a", "x"));
        assertThatThrownBy(() -> store.list("", "pods", null, 3, null, 0, null))
                .isInstanceOfSatisfying(TooLargeResourceVersionException.class, e -> {
                    assertThat(e).hasMessage("Too large resource version: 3, current: 2");
                    assertThat(e.code()).isEqualTo(504);
                    assertThat(e.requestedRevision()).isEqualTo(3);
                    assertThat(e.currentRevision()).isEqualTo(2);
                    assertThat(e.toStatus().toString())
                            .isEqualTo("{\"kind\":\"Status\",\"apiVersion\":\"v1\","
                                    + "\"metadata\":{},\"status\":\"Failure\",\"message\":\"Timeout: Too large resource "
                                    + "version: 3, current: 2\",\"reason\":\"Timeout\",\"details\":{\"causes\":[{\"reason\":"
                                    + "\"ResourceVersionTooLarge\",\"message\":\"Too large resource version\"}],"
                                    + "\"retryAfterSeconds\":1},\"code\":504}");
                });
    }

    // ------------------------------------------------------------------------------------------------
    // Paging

    @Test
    void pagesFollowTheContinueKeyAndCountWhatRemains() {
        for (int i = 0; i < 10; i++) {
            create(pod(i < 5 ? "a" : "b", "p" + i));
        }
        List<String> seen = new ArrayList<>();
        List<Long> remaining = new ArrayList<>();
        String continueKey = null;
        long revision = 0;
        for (int page = 0; page < 10; page++) {
            ListResult r = store.list("", "pods", null, revision, null, 3, continueKey);
            revision = r.revision();
            seen.addAll(names(r.items()));
            remaining.add(r.remainingCount());
            assertThat(r.items()).hasSizeLessThanOrEqualTo(3);
            if (!r.hasMore()) {
                assertThat(r.continueKey()).isNull();
                break;
            }
            continueKey = r.continueKey();
        }
        assertThat(seen).containsExactly("p0", "p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8", "p9");
        assertThat(remaining).containsExactly(7L, 4L, 1L, 0L);
    }

    @Test
    void aPageThatEndsExactlyAtTheLastItemHasNoMore() {
        create(pod("a", "p1"));
        create(pod("a", "p2"));
        ListResult r = store.list("", "pods", "a", 0, null, 2, null);
        assertThat(r.hasMore()).isFalse();
        assertThat(r.continueKey()).isNull();
        assertThat(r.remainingCount()).isZero();
    }

    @Test
    void pagingKeepsTheFirstPagesSnapshotWhileWritesContinue() {
        for (int i = 0; i < 9; i++) {
            create(pod("ns", "p" + i));
        }
        ListResult first = store.list("", "pods", "ns", 0, null, 3, null);
        long snapshot = first.revision();
        List<ObjectNode> expected =
                store.list("", "pods", "ns", snapshot, null, 0, null).items();

        // Writes between the pages: before, inside and after the rest of the range.
        store.delete(pod("ns", "p4"), Preconditions.NONE);
        create(pod("ns", "p35")); // sorts between p3 and p4
        store.update(pod("ns", "p7"), withReplicas(store.get(pod("ns", "p7")), 9), 0);
        create(pod("ns", "p99"));
        store.delete(pod("ns", "p0"), Preconditions.NONE);

        List<ObjectNode> all = new ArrayList<>(first.items());
        String continueKey = first.continueKey();
        for (int page = 0; page < 10 && continueKey != null; page++) {
            ListResult r = store.list("", "pods", "ns", snapshot, null, 3, continueKey);
            assertThat(r.revision()).isEqualTo(snapshot);
            all.addAll(r.items());
            continueKey = r.continueKey();
        }
        assertThat(all).containsExactlyElementsOf(expected);
        assertThat(names(all)).containsExactly("p0", "p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8");
        // A fresh list sees the writes.
        assertThat(names(store.list("", "pods", "ns", 0, null, 0, null).items()))
                .containsExactly("p1", "p2", "p3", "p35", "p5", "p6", "p7", "p8", "p99");
    }

    @Test
    void continueKeysWorkAcrossNamespacesAndForClusterScopedObjects() {
        create(pod("a", "z"));
        create(pod("b", "a"));
        ListResult first = store.list("", "pods", null, 0, null, 1, null);
        assertThat(names(store.list("", "pods", null, first.revision(), null, 1, first.continueKey())
                        .items()))
                .containsExactly("a");

        create(node("n1"));
        create(node("n2"));
        ListResult nodes = store.list("", "nodes", null, 0, null, 1, null);
        assertThat(names(store.list("", "nodes", null, nodes.revision(), null, 1, nodes.continueKey())
                        .items()))
                .containsExactly("n2");
    }

    @Test
    void namesWithColonsPageCorrectly() {
        for (String name : List.of("system:a", "system:controller:b", "system:controller:c", "view")) {
            create(StorageKey.clusterScoped("rbac.authorization.k8s.io", "clusterroles", name));
        }
        List<String> seen = new ArrayList<>();
        List<Long> remaining = new ArrayList<>();
        String continueKey = null;
        long revision = 0;
        for (int page = 0; page < 10; page++) {
            ListResult r =
                    store.list("rbac.authorization.k8s.io", "clusterroles", null, revision, null, 1, continueKey);
            revision = r.revision();
            seen.addAll(names(r.items()));
            remaining.add(r.remainingCount());
            continueKey = r.continueKey();
            if (continueKey == null) {
                break;
            }
        }
        assertThat(seen).containsExactly("system:a", "system:controller:b", "system:controller:c", "view");
        assertThat(remaining).containsExactly(3L, 2L, 1L, 0L);
    }

    @Test
    void aContinueKeyOfAFilteredListStillGivesExactCountsWithoutTheFilter() {
        for (int i = 0; i < 6; i++) {
            create(pod("ns", "p" + i), "app=" + (i % 2 == 0 ? "web" : "db"));
        }
        ListResult filtered = store.list("", "pods", "ns", 0, o -> "web".equals(label(o, "app")), 1, null);
        assertThat(filtered.remainingCount()).isEqualTo(-1);
        ListResult rest = store.list("", "pods", "ns", filtered.revision(), null, 2, filtered.continueKey());
        assertThat(names(rest.items())).containsExactly("p1", "p2");
        assertThat(rest.remainingCount()).isEqualTo(3);
        ListResult last = store.list("", "pods", "ns", rest.revision(), null, 3, rest.continueKey());
        assertThat(names(last.items())).containsExactly("p3", "p4", "p5");
        assertThat(last.hasMore()).isFalse();
        assertThat(last.remainingCount()).isZero();
    }

    static Stream<Arguments> filteredPages() {
        // 6 pods p0..p5, the even ones labelled app=web; filter app=web.
        return Stream.of(
                Arguments.of(0, List.of("p0", "p2", "p4"), false),
                Arguments.of(1, List.of("p0"), true),
                Arguments.of(2, List.of("p0", "p2"), true),
                Arguments.of(3, List.of("p0", "p2", "p4"), false),
                Arguments.of(4, List.of("p0", "p2", "p4"), false));
    }

    @ParameterizedTest(name = "limit {0}: {1}, more={2}")
    @MethodSource("filteredPages")
    void aFilteredListLimitsMatchingItemsAndKnowsNoRemainingCount(int limit, List<String> expected, boolean more) {
        for (int i = 0; i < 6; i++) {
            create(pod("ns", "p" + i), "app=" + (i % 2 == 0 ? "web" : "db"));
        }
        Predicate<ObjectNode> web = o -> "web".equals(label(o, "app"));
        ListResult r = store.list("", "pods", "ns", 0, web, limit, null);
        assertThat(names(r.items())).containsExactlyElementsOf(expected);
        assertThat(r.hasMore()).isEqualTo(more);
        assertThat(r.remainingCount()).isEqualTo(more ? -1 : 0);
        if (more) {
            ListResult rest = store.list("", "pods", "ns", r.revision(), web, 0, r.continueKey());
            assertThat(names(rest.items()))
                    .doesNotContainAnyElementsOf(expected)
                    .contains("p4");
        }
    }

    static Stream<Arguments> badArguments() {
        return Stream.of(
                Arguments.of("negative limit", "ns", -1, null),
                Arguments.of("continue key without a count", "ns", 1, "ns/p1"),
                Arguments.of("continue key without a slash", "ns", 1, "3:p1"),
                Arguments.of("continue key with a bad count", "ns", 1, "x:ns/p1"),
                Arguments.of("continue key with a negative count", "ns", 1, "-2:ns/p1"),
                Arguments.of("continue key of another namespace", "ns", 1, "0:other/p1"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badArguments")
    void badArgumentsAreRejected(String name, String namespace, int limit, String continueKey) {
        create(pod("ns", "p1"));
        assertThatThrownBy(() -> store.list("", "pods", namespace, 0, null, limit, continueKey))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
