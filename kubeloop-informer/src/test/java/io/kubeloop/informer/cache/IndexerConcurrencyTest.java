package io.kubeloop.informer.cache;

import static io.kubeloop.informer.cache.Fixtures.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Hunts races between readers and writers: readers run flat out while writers update, delete and replace, and
 * check after every read that no index is ever seen half-updated. Every loop is bounded: writers do a fixed
 * number of operations, readers stop when the writers are done (or after a fixed number of reads).
 */
class IndexerConcurrencyTest {

    private static final int STABLE = 200;
    private static final int MOVERS = 50;
    private static final List<String> NODES = List.of("n1", "n2", "n3", "n4");
    private static final int MAX_READS = 2_000_000;

    /**
     * The store itself, not through {@link Indexers}: under the suite's mutation detector, {@code Indexers} wraps
     * it in a detecting store that serialises every written object, which would make these loops slow without
     * changing what they test (reads go straight to this store either way).
     */
    private static Indexer<Pod> indexer() {
        return new ThreadSafeIndexer<>(
                Keys.DELETION_HANDLING,
                Map.of(Indexers.NAMESPACE_INDEX, Indexers.namespaceIndex(), "byNode", Fixtures::byNode));
    }

    private static List<Pod> stable() {
        List<Pod> pods = new ArrayList<>();
        for (int i = 0; i < STABLE; i++) {
            pods.add(pod("stable", "s-" + i, "n0"));
        }
        return pods;
    }

    @Test
    void readersNeverSeeAHalfUpdatedIndexDuringWritesAndReplaces() throws Exception {
        Indexer<Pod> indexer = indexer();
        List<Pod> stable = stable();
        indexer.replace(stable, "1");
        Set<Pod> stableSet = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        stableSet.addAll(stable);

        ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
        AtomicBoolean writersDone = new AtomicBoolean();
        AtomicInteger reads = new AtomicInteger();
        CountDownLatch start = new CountDownLatch(1);
        // Writers start once both readers have read once, so reads and writes overlap however the threads run.
        CountDownLatch readersRunning = new CountDownLatch(2);
        ExecutorService pool = Executors.newFixedThreadPool(
                4, Thread.ofPlatform().name("race-", 0).factory());
        try {
            List<CompletableFuture<Void>> writers = new ArrayList<>();
            for (int w = 0; w < 2; w++) {
                int seed = w;
                writers.add(CompletableFuture.runAsync(() -> write(indexer, stable, seed, readersRunning), pool));
            }
            List<CompletableFuture<Void>> readers = new ArrayList<>();
            for (int r = 0; r < 2; r++) {
                readers.add(CompletableFuture.runAsync(
                        () -> read(indexer, stableSet, start, readersRunning, writersDone, reads, violations), pool));
            }
            start.countDown();
            CompletableFuture.allOf(writers.toArray(CompletableFuture[]::new)).get(120, TimeUnit.SECONDS);
            writersDone.set(true);
            CompletableFuture.allOf(readers.toArray(CompletableFuture[]::new)).get(120, TimeUnit.SECONDS);
        } finally {
            pool.shutdownNow();
            assertThat(pool.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(violations).as("violations seen by readers").isEmpty();
        assertThat(reads.get()).as("reads").isGreaterThan(2);
        // Quiescent: the indexes agree exactly with the objects.
        for (String node : NODES) {
            for (Pod p : indexer.byIndex("byNode", node)) {
                assertThat(p.getSpec().getNodeName()).isEqualTo(node);
            }
        }
        int indexed = 0;
        for (String value : indexer.listIndexFuncValues("byNode")) {
            indexed += indexer.indexKeys("byNode", value).size();
        }
        long scheduled = indexer.list().stream()
                .filter(p -> p.getSpec().getNodeName() != null)
                .count();
        assertThat(indexed).isEqualTo((int) scheduled);
    }

    private static void write(Indexer<Pod> indexer, List<Pod> stable, int seed, CountDownLatch start) {
        SplittableRandom random = new SplittableRandom(seed);
        await(start);
        for (int op = 0; op < 5_000; op++) {
            String name = "m-" + random.nextInt(MOVERS);
            int dice = random.nextInt(100);
            if (dice < 70) {
                // A fresh instance each time: stored objects are never mutated.
                String node = random.nextInt(10) == 0 ? null : NODES.get(random.nextInt(NODES.size()));
                indexer.update(pod("movers", name, node));
            } else if (dice < 98) {
                indexer.delete(pod("movers", name));
            } else {
                List<Pod> content = new ArrayList<>(stable);
                for (int i = 0; i < MOVERS; i += 1 + random.nextInt(3)) {
                    content.add(pod("movers", "m-" + i, NODES.get(random.nextInt(NODES.size()))));
                }
                indexer.replace(content, Integer.toString(op));
            }
        }
    }

    private static void read(
            Indexer<Pod> indexer,
            Set<Pod> stable,
            CountDownLatch start,
            CountDownLatch readersRunning,
            AtomicBoolean writersDone,
            AtomicInteger reads,
            ConcurrentLinkedQueue<String> violations) {
        await(start);
        for (int i = 0; i < MAX_READS && !writersDone.get() && violations.size() < 20; i++) {
            if (i == 1) {
                readersRunning.countDown();
            }
            reads.incrementAndGet();
            String node = NODES.get(i % NODES.size());
            List<Pod> onNode = indexer.byIndex("byNode", node);
            Set<String> seen = new HashSet<>();
            for (Pod p : onNode) {
                if (!node.equals(p.getSpec().getNodeName())) {
                    violations.add("byIndex(" + node + ") returned a pod on "
                            + p.getSpec().getNodeName());
                }
                if (!seen.add(p.getMetadata().getName())) {
                    violations.add(
                            "byIndex(" + node + ") returned " + p.getMetadata().getName() + " twice");
                }
            }
            List<String> keys = indexer.indexKeys("byNode", node);
            if (new HashSet<>(keys).size() != keys.size()) {
                violations.add("indexKeys(" + node + ") has duplicates: " + keys);
            }
            for (String key : keys) {
                if (!key.startsWith("movers/")) {
                    violations.add("indexKeys(" + node + ") has " + key);
                }
            }
            // Objects that no write changes are always there, whatever runs concurrently, replaces included.
            List<Pod> n0 = indexer.byIndex("byNode", "n0");
            if (n0.size() != STABLE || !stable.containsAll(n0)) {
                violations.add("byIndex(n0) has " + n0.size() + " pods, not the " + STABLE + " stable ones");
            }
            if (indexer.byIndex(Indexers.NAMESPACE_INDEX, "stable").size() != STABLE) {
                violations.add("the namespace index lost stable pods");
            }
            if (indexer.getByKey("stable/s-" + (i % STABLE)).isEmpty()) {
                violations.add("getByKey lost stable/s-" + (i % STABLE));
            }
            for (String value : indexer.listIndexFuncValues("byNode")) {
                if (!value.equals("n0") && !NODES.contains(value)) {
                    violations.add("listIndexFuncValues has " + value);
                }
            }
            if (!indexer.listIndexFuncValues("byNode").contains("n0")) {
                violations.add("listIndexFuncValues lost n0");
            }
        }
    }

    @Test
    void replaceIsAtomicForReaders() throws Exception {
        Indexer<Pod> indexer = indexer();
        List<Pod> a = new ArrayList<>();
        List<Pod> b = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            a.add(pod("gen-a", "p-" + i, "x"));
            b.add(pod("gen-b", "p-" + i, "y"));
        }
        indexer.replace(a, "1");
        ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
        AtomicBoolean done = new AtomicBoolean();
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(
                3, Thread.ofPlatform().name("replace-race-", 0).factory());
        try {
            CompletableFuture<Void> writer = CompletableFuture.runAsync(
                    () -> {
                        await(start);
                        for (int i = 0; i < 200; i++) {
                            indexer.replace(i % 2 == 0 ? b : a, Integer.toString(i));
                        }
                    },
                    pool);
            List<CompletableFuture<Void>> readers = new ArrayList<>();
            for (int r = 0; r < 2; r++) {
                readers.add(CompletableFuture.runAsync(
                        () -> {
                            await(start);
                            for (int i = 0; i < MAX_READS && !done.get() && violations.size() < 20; i++) {
                                List<Pod> all = indexer.list();
                                long genA = all.stream()
                                        .filter(p ->
                                                p.getMetadata().getNamespace().equals("gen-a"))
                                        .count();
                                if (all.size() != 500 || (genA != 0 && genA != 500)) {
                                    violations.add("list() saw " + all.size() + " pods, " + genA + " of generation a");
                                }
                                int x = indexer.byIndex("byNode", "x").size();
                                int y = indexer.indexKeys("byNode", "y").size();
                                if (x != 0 && x != 500 || y != 0 && y != 500) {
                                    violations.add("an index saw a partial replace: x=" + x + " y=" + y);
                                }
                            }
                        },
                        pool));
            }
            start.countDown();
            writer.get(120, TimeUnit.SECONDS);
            done.set(true);
            CompletableFuture.allOf(readers.toArray(CompletableFuture[]::new)).get(120, TimeUnit.SECONDS);
        } finally {
            pool.shutdownNow();
            assertThat(pool.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(violations).isEmpty();
    }

    /**
     * A write blocked in the middle (its index function waits on a latch while the writer holds the write lock)
     * does not block readers: they complete, and see the state before the write.
     */
    @Test
    void readersDoNotWaitForAWriteInProgress() throws Exception {
        CountDownLatch inWrite = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Indexer<Pod> indexer = Indexers.newIndexer(
                Keys.META_NAMESPACE,
                Map.<String, IndexFunc<Pod>>of(Indexers.NAMESPACE_INDEX, Indexers.namespaceIndex(), "blocking", p -> {
                    if (p.getMetadata().getName().equals("slow")) {
                        inWrite.countDown();
                        await(release);
                    }
                    return List.of("v");
                }));
        indexer.add(pod("ns", "a"));
        ExecutorService pool = Executors.newFixedThreadPool(
                2, Thread.ofPlatform().name("blocked-write-", 0).factory());
        try {
            CompletableFuture<Void> single = CompletableFuture.runAsync(() -> indexer.add(pod("ns", "slow")), pool);
            assertThat(inWrite.await(30, TimeUnit.SECONDS)).isTrue();
            CompletableFuture<List<String>> reads = CompletableFuture.supplyAsync(
                    () -> {
                        List<String> seen = new ArrayList<>(indexer.listKeys());
                        seen.addAll(indexer.indexKeys("blocking", "v"));
                        indexer.list();
                        indexer.getByKey("ns/a").orElseThrow();
                        indexer.byIndex(Indexers.NAMESPACE_INDEX, "ns");
                        indexer.listIndexFuncValues("blocking");
                        indexer.indexers();
                        return seen;
                    },
                    pool);
            assertThat(reads.get(30, TimeUnit.SECONDS)).containsExactly("ns/a", "ns/a");
            release.countDown();
            single.get(30, TimeUnit.SECONDS);
            assertThat(indexer.indexKeys("blocking", "v")).containsExactly("ns/a", "ns/slow");
        } finally {
            release.countDown();
            pool.shutdownNow();
            assertThat(pool.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("latch not released within 60 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
