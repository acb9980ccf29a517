package io.kubeloop.informer.cache;

import static io.kubeloop.informer.cache.Fixtures.pod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.kubeloop.clock.FakeClock;
import io.kubeloop.model.selector.LabelSelector;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The cache mutation detector (reference §6.10): with its own detector and a fake clock, so the mutations these
 * tests make on purpose never reach the global detector that checks the suite after each test.
 */
class MutationDetectorTest {

    private final FakeClock clock = new FakeClock();
    private final MutationDetector detector = new MutationDetector(
            clock,
            Duration.ofSeconds(1),
            Duration.ofMinutes(2),
            Thread.ofPlatform()
                    .name("test-cache-mutation-detector")
                    .daemon(true)
                    .factory());

    @AfterEach
    void closeDetector() {
        detector.close();
    }

    private <T> Indexer<T> watched(Map<String, IndexFunc<T>> indexers) {
        return detector.watch(new ThreadSafeIndexer<>(Keys.DELETION_HANDLING, indexers), Keys.DELETION_HANDLING);
    }

    private Indexer<Pod> pods() {
        return watched(Map.of(Indexers.NAMESPACE_INDEX, Indexers.namespaceIndex(), "byNode", Fixtures::byNode));
    }

    /** Steps the fake clock by one period once the detector's thread waits on it, and waits for the round. */
    private void tick(Duration step) {
        await().atMost(Duration.ofSeconds(30)).until(clock::hasWaiters);
        clock.step(step);
        // The round is done when the thread waits again.
        await().atMost(Duration.ofSeconds(30)).until(clock::hasWaiters);
    }

    @Test
    void periodicCheckFindsAMutationAndNamesTheObject() {
        Indexer<Pod> indexer = pods();
        indexer.add(pod("default", "web-0", "n1"));
        Pod cached = indexer.getByKey("default/web-0").orElseThrow();
        cached.getMetadata().getLabels().put("touched", "yes");

        tick(Duration.ofSeconds(1));

        assertThat(detector.pending()).singleElement().satisfies(m -> {
            assertThat(m.object()).isEqualTo("Pod default/web-0 (resourceVersion 1)");
            assertThat(m.differences()).containsExactly("/metadata/labels/touched: absent -> \"yes\"");
        });
        assertThatThrownBy(detector::checkNow)
                .isInstanceOf(CacheMutationException.class)
                .hasMessageContaining("cached object mutated: Pod default/web-0 (resourceVersion 1) was changed after "
                        + "it was stored in the cache; changes: /metadata/labels/touched: absent -> \"yes\"")
                .hasMessageContaining("must never be mutated")
                .satisfies(e -> assertThat(((CacheMutationException) e).objects())
                        .containsExactly("Pod default/web-0 (resourceVersion 1)"));
        // Reported once: the next check is clean, and later rounds do not report it again.
        assertThatCode(detector::checkNow).doesNotThrowAnyException();
        tick(Duration.ofSeconds(1));
        assertThat(detector.pending()).isEmpty();
    }

    @Test
    void checkNowFindsAMutationWithoutWaitingForTheClock() {
        Indexer<Pod> indexer = pods();
        indexer.add(pod("ns", "a", "n1"));
        indexer.byIndex("byNode", "n1").get(0).getSpec().setNodeName("n2");

        assertThatThrownBy(detector::checkNow)
                .isInstanceOf(CacheMutationException.class)
                .hasMessageContaining("Pod ns/a (resourceVersion 1)")
                .hasMessageContaining("/spec/nodeName: \"n1\" -> \"n2\"");
    }

    @Test
    void theNextWriteOfAMutatedObjectThrowsAfterApplyingTheWrite() {
        Indexer<Pod> indexer = pods();
        indexer.add(pod("ns", "a", "n1"));
        indexer.getByKey("ns/a").orElseThrow().getMetadata().setResourceVersion("999");

        Pod fresh = new PodBuilder(pod("ns", "a", "n2"))
                .editMetadata()
                .withResourceVersion("2")
                .endMetadata()
                .build();
        assertThatThrownBy(() -> indexer.update(fresh))
                .isInstanceOf(CacheMutationException.class)
                .hasMessageContaining("Pod ns/a (resourceVersion 1)")
                .hasMessageContaining("/metadata/resourceVersion: \"1\" -> \"999\"");
        // The write was applied, and the index follows the stored values, not the mutated object.
        assertThat(indexer.getByKey("ns/a")).containsSame(fresh);
        assertThat(indexer.listIndexFuncValues("byNode")).containsExactly("n2");
        // The suite's check also hears of it (once), even if the writer swallowed the exception.
        assertThatThrownBy(detector::checkNow).isInstanceOf(CacheMutationException.class);
        assertThatCode(detector::checkNow).doesNotThrowAnyException();
        assertThatCode(() -> indexer.update(fresh)).doesNotThrowAnyException();
    }

    @Test
    void deleteAndReplaceOfMutatedObjectsThrow() {
        Indexer<Pod> indexer = pods();
        indexer.add(pod("ns", "a", "n1"));
        indexer.add(pod("ns", "b", "n1"));
        indexer.add(pod("ns", "c", "n1"));
        indexer.getByKey("ns/a").orElseThrow().getMetadata().setNamespace("other");
        assertThatThrownBy(() -> indexer.delete(pod("ns", "a")))
                .isInstanceOf(CacheMutationException.class)
                .hasMessageContaining("Pod ns/a (resourceVersion 1)")
                .hasMessageContaining("/metadata/namespace: \"ns\" -> \"other\"");
        assertThat(indexer.listKeys()).containsExactlyInAnyOrder("ns/b", "ns/c");

        indexer.getByKey("ns/b").orElseThrow().getMetadata().getLabels().put("x", "1");
        indexer.getByKey("ns/c").orElseThrow().getMetadata().getLabels().put("y", "2");
        assertThatThrownBy(() -> indexer.replace(List.of(pod("ns", "d")), "5"))
                .isInstanceOf(CacheMutationException.class)
                .hasMessageContaining("2 cached objects mutated")
                .satisfies(e -> assertThat(((CacheMutationException) e).objects())
                        .containsExactlyInAnyOrder("Pod ns/b (resourceVersion 1)", "Pod ns/c (resourceVersion 1)"));
        assertThat(indexer.listKeys()).containsExactly("ns/d");
        // Every mutation also reaches the next check, once.
        assertThatThrownBy(detector::checkNow)
                .isInstanceOf(CacheMutationException.class)
                .satisfies(e -> assertThat(((CacheMutationException) e).objects())
                        .containsExactlyInAnyOrder(
                                "Pod ns/a (resourceVersion 1)",
                                "Pod ns/b (resourceVersion 1)",
                                "Pod ns/c (resourceVersion 1)"));
        assertThatCode(detector::checkNow).doesNotThrowAnyException();
    }

    @Test
    void noFalsePositivesWithoutMutation() {
        Indexer<Pod> indexer = pods();
        List<Pod> pods = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            pods.add(new PodBuilder(pod("ns" + i % 3, "p" + i, "n" + i % 4, Map.of("app", "a" + i % 2)))
                    .editSpec()
                    .addToContainers(new ContainerBuilder()
                            .withName("c")
                            .withImage("img:" + i)
                            .addToArgs("--x", "--y")
                            .build())
                    .endSpec()
                    .withNewStatus()
                    .withPhase("Running")
                    .endStatus()
                    .build());
        }
        indexer.replace(pods, "10");
        for (Pod p : pods.subList(0, 10)) {
            indexer.update(new PodBuilder(p)
                    .editMetadata()
                    .withResourceVersion("11")
                    .endMetadata()
                    .build());
        }
        indexer.delete(pods.get(20));
        // Every kind of read, as handlers and listers do.
        Lister<Pod> lister = Lister.of(indexer);
        lister.list(LabelSelector.parse("app=a1"));
        lister.namespace("ns1").list();
        indexer.byIndex("byNode", "n1");
        indexer.index("byNode", pods.get(3));
        indexer.addIndexers(Map.of("byLabel", Fixtures::byLabel));
        for (int round = 0; round < 3; round++) {
            tick(Duration.ofSeconds(1));
        }
        assertThat(detector.pending()).isEmpty();
        assertThatCode(detector::checkNow).doesNotThrowAnyException();
        assertThatCode(() -> indexer.replace(pods, "12")).doesNotThrowAnyException();
    }

    @Test
    void copiesAreDroppedWithTheirObjects() {
        Indexer<Pod> indexer = pods();
        Pod deleted = pod("ns", "deleted", "n1");
        Pod replacedByUpdate = pod("ns", "updated", "n1");
        Pod replacedByReplace = pod("ns", "replaced", "n1");
        indexer.add(deleted);
        indexer.add(replacedByUpdate);
        indexer.add(replacedByReplace);
        indexer.delete(deleted);
        indexer.update(pod("ns", "updated", "n2"));
        indexer.replace(List.of(pod("ns", "updated", "n2"), pod("ns", "replaced", "n3")), "3");

        // None of these objects is in the cache any more: changing them is no one else's business.
        deleted.getMetadata().getLabels().put("x", "1");
        replacedByUpdate.getMetadata().getLabels().put("x", "1");
        replacedByReplace.getMetadata().getLabels().put("x", "1");
        tick(Duration.ofSeconds(1));
        assertThatCode(detector::checkNow).doesNotThrowAnyException();
        assertThat(((DetectingIndexer<Pod>) indexer).watched()).isEqualTo(2);
    }

    @Test
    void copiesAreDroppedAfterTheRetention() {
        Indexer<Pod> indexer = pods();
        indexer.add(pod("ns", "old", "n1"));
        tick(Duration.ofSeconds(60));
        indexer.add(pod("ns", "young", "n1"));
        tick(Duration.ofSeconds(61));
        // "old" is past its 2 minutes; "young" is not.
        assertThat(((DetectingIndexer<Pod>) indexer).watched()).isEqualTo(1);
        indexer.getByKey("ns/old").orElseThrow().getMetadata().getLabels().put("late", "1");
        indexer.getByKey("ns/young").orElseThrow().getMetadata().getLabels().put("late", "1");
        assertThatThrownBy(detector::checkNow)
                .isInstanceOf(CacheMutationException.class)
                .satisfies(e -> assertThat(((CacheMutationException) e).objects())
                        .containsExactly("Pod ns/young (resourceVersion 1)"));
    }

    @Test
    void secretValuesStayOutOfTheReport() {
        Indexer<Secret> secrets = watched(Map.of());
        secrets.add(new SecretBuilder()
                .withNewMetadata()
                .withNamespace("ns")
                .withName("creds")
                .withResourceVersion("4")
                .endMetadata()
                .addToData("password", "c2VjcmV0")
                .build());
        secrets.getByKey("ns/creds").orElseThrow().getData().put("password", "bmV3LXNlY3JldA==");

        assertThatThrownBy(detector::checkNow)
                .isInstanceOf(CacheMutationException.class)
                .hasMessageContaining("Secret ns/creds (resourceVersion 4)")
                .hasMessageContaining("/data/password: changed")
                .hasMessageNotContaining("c2VjcmV0")
                .hasMessageNotContaining("bmV3LXNlY3JldA==");
    }

    @Test
    void theDifferenceExcerptIsBounded() {
        Indexer<Pod> indexer = pods();
        indexer.add(pod("ns", "a", "n1"));
        Map<String, String> labels =
                indexer.getByKey("ns/a").orElseThrow().getMetadata().getLabels();
        for (int i = 0; i < 20; i++) {
            labels.put("l" + i, "x".repeat(200));
        }
        assertThatThrownBy(detector::checkNow)
                .isInstanceOf(CacheMutationException.class)
                .satisfies(e -> {
                    String message = e.getMessage();
                    assertThat(message).contains("... and 15 more").doesNotContain("x".repeat(81));
                    assertThat(message.length()).isLessThan(1500);
                });
    }

    @Test
    void theDetectorThreadIsNamed() {
        pods();
        assertThat(Thread.getAllStackTraces().keySet())
                .extracting(Thread::getName)
                .contains("test-cache-mutation-detector");
    }

    // ------------------------------------------------------------------------------------------------
    // The switch, and the global detector behind Indexers

    @ParameterizedTest(name = "\"{0}\" -> {1}")
    @CsvSource({"true, true", "TRUE, true", "' true ', true", "false, false", "yes, false", "1, false", "'', false"})
    void systemPropertySwitch(String value, boolean enabled) {
        String before = System.getProperty(CacheMutationDetector.SYSTEM_PROPERTY);
        try {
            System.setProperty(CacheMutationDetector.SYSTEM_PROPERTY, value);
            assertThat(CacheMutationDetector.isEnabled()).isEqualTo(enabled);
            Indexer<Pod> indexer = Indexers.newIndexer(Keys.META_NAMESPACE, Map.of());
            assertThat(indexer).isInstanceOf(enabled ? DetectingIndexer.class : ThreadSafeIndexer.class);
        } finally {
            restore(before);
        }
    }

    @Test
    void globalDetectorThroughIndexers() {
        String before = System.getProperty(CacheMutationDetector.SYSTEM_PROPERTY);
        try {
            System.setProperty(CacheMutationDetector.SYSTEM_PROPERTY, "true");
            Store<Pod> store = Indexers.newStore(Keys.META_NAMESPACE);
            store.add(pod("global", "p", "n1"));
            store.getByKey("global/p").orElseThrow().getMetadata().getLabels().put("x", "1");
            assertThatThrownBy(CacheMutationDetector::checkNow)
                    .isInstanceOf(CacheMutationException.class)
                    .hasMessageContaining("Pod global/p (resourceVersion 1)");
            assertThat(Thread.getAllStackTraces().keySet())
                    .extracting(Thread::getName)
                    .contains(CacheMutationDetector.THREAD_NAME);
            // The write of the mutated object still throws (reported to checkNow already, so the check stays clean).
            assertThatThrownBy(() -> store.delete(pod("global", "p"))).isInstanceOf(CacheMutationException.class);
            assertThatCode(CacheMutationDetector::checkNow).doesNotThrowAnyException();
            assertThat(store.list()).isEmpty();
        } finally {
            restore(before);
        }
    }

    @Test
    void theSuiteRunsWithTheDetectorAndChecksAfterEachTest() throws Exception {
        // surefire's systemPropertyVariables in kubeloop-informer/pom.xml
        assertThat(System.getProperty(CacheMutationDetector.SYSTEM_PROPERTY)).isEqualTo("true");
        // the extension is found by JUnit's autodetection
        assertThat(java.util.ServiceLoader.load(org.junit.jupiter.api.extension.Extension.class).stream()
                        .map(provider -> provider.type().getName()))
                .contains(CacheMutationCheckExtension.class.getName());
        java.util.Properties junit = new java.util.Properties();
        try (var in = getClass().getResourceAsStream("/junit-platform.properties")) {
            junit.load(in);
        }
        assertThat(junit.getProperty("junit.jupiter.extensions.autodetection.enabled"))
                .isEqualTo("true");

        // and it fails a test that mutated a cached object, once
        Store<Pod> store = Indexers.newStore(Keys.META_NAMESPACE);
        store.add(pod("suite", "p", "n1"));
        store.getByKey("suite/p").orElseThrow().getSpec().setNodeName("elsewhere");
        CacheMutationCheckExtension extension = new CacheMutationCheckExtension();
        assertThatThrownBy(() -> extension.afterEach(null))
                .isInstanceOf(CacheMutationException.class)
                .hasMessageContaining("Pod suite/p (resourceVersion 1)")
                .hasMessageContaining("/spec/nodeName: \"n1\" -> \"elsewhere\"");
        assertThatCode(() -> extension.afterEach(null)).doesNotThrowAnyException();
    }

    private static void restore(String before) {
        if (before == null) {
            System.clearProperty(CacheMutationDetector.SYSTEM_PROPERTY);
        } else {
            System.setProperty(CacheMutationDetector.SYSTEM_PROPERTY, before);
        }
    }
}
