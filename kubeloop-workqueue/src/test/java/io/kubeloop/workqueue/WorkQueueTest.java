package io.kubeloop.workqueue;

import static io.kubeloop.testsupport.TestThreads.eventually;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import io.kubeloop.testsupport.TestThreads;
import io.kubeloop.testsupport.TestThreads.Call;
import io.kubeloop.testsupport.TestThreads.Kind;
import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/** The basic queue (client-go's {@code workqueue.Type}): order, deduplication, single flight, shutdown, drain. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class WorkQueueTest {

    private static WorkQueue<String> newQueue() {
        return WorkQueue.<String>builder().build();
    }

    // ---- single-threaded scenarios, as a table

    /**
     * Each scenario is a list of steps run on one thread against a fresh queue:
     * {@code add x}, {@code get x} (get must return x), {@code get null} (get must return null),
     * {@code done x}, {@code len n}, {@code shutdown}, {@code shuttingDown true|false}.
     * A {@code get} that would block fails the test through the class timeout.
     */
    static Stream<Arguments> scenarios() {
        return Stream.of(
                arguments(
                        "items are handed out in the order they were added",
                        "add a, add b, add c, get a, get b, get c, len 0"),
                arguments(
                        "an item added twice while waiting is handed out once",
                        "add a, add b, add a, len 2, get a, get b, len 0"),
                arguments(
                        "many adds of the same waiting item keep its first position",
                        "add a, add b, add a, add a, add b, add c, len 3, get a, get b, get c"),
                arguments("an item being processed is not queued again by an add", "add a, get a, add a, len 0"),
                arguments(
                        "an item added while being processed is queued again when it is done",
                        "add a, get a, add a, len 0, done a, len 1, get a, done a, len 0"),
                arguments(
                        "several adds while processing cause exactly one more processing",
                        "add a, get a, add a, add a, add a, done a, len 1, get a, done a, len 0"),
                arguments(
                        "an item re-queued by done goes to the back of the queue",
                        "add a, add b, get a, add a, done a, len 2, get b, get a"),
                arguments(
                        "an item done without a re-add is not queued again",
                        "add a, get a, done a, len 0, add b, get b"),
                arguments(
                        "len counts only waiting items, not those being processed",
                        "add a, add b, add c, len 3, get a, len 2, get b, len 1, add a, len 1"),
                arguments("an item can be added again after it is done", "add a, get a, done a, add a, len 1, get a"),
                arguments("done of an item never added has no effect", "add a, done z, len 1, get a, done a, len 0"),
                arguments(
                        "done of an item that is waiting but not processing has no effect",
                        "add a, add b, done a, len 2, get a, get b, len 0"),
                arguments(
                        "done called twice for one get has no effect the second time",
                        "add a, get a, done a, done a, len 0, add a, len 1, get a"),
                arguments(
                        "shutDown marks the queue as shutting down", "shuttingDown false, shutdown, shuttingDown true"),
                arguments(
                        "items queued before shutDown are still handed out, then get returns null",
                        "add a, add b, shutdown, len 2, get a, get b, get null, get null"),
                arguments("adds after shutDown are ignored", "add a, shutdown, add b, add c, len 1, get a, get null"),
                arguments(
                        "an add after shutDown of an item being processed does not re-queue it",
                        "add a, get a, shutdown, add a, done a, len 0, get null"),
                arguments(
                        "an item re-added before shutDown is still re-queued at done and handed out",
                        "add a, get a, add a, shutdown, done a, len 1, get a, done a, get null"),
                arguments("get on an empty queue that is shut down returns null at once", "shutdown, get null, len 0"),
                arguments(
                        "shutDown twice is harmless", "add a, shutdown, shutdown, shuttingDown true, get a, get null"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("scenarios")
    void aSingleThreadedScenarioGivesClientGosResults(String description, String steps) throws InterruptedException {
        WorkQueue<String> q = newQueue();
        List<String> executed = new ArrayList<>();
        for (String step : steps.split(",\\s*")) {
            String[] parts = step.trim().split("\\s+");
            String op = parts[0];
            String arg = parts.length > 1 ? parts[1] : null;
            switch (op) {
                case "add" -> q.add(arg);
                case "get" ->
                    assertThat(q.get()).as("after %s: %s", executed, step).isEqualTo("null".equals(arg) ? null : arg);
                case "done" -> q.done(arg);
                case "len" ->
                    assertThat(q.len()).as("after %s: %s", executed, step).isEqualTo(Integer.parseInt(arg));
                case "shutdown" -> q.shutDown();
                case "shuttingDown" ->
                    assertThat(q.shuttingDown())
                            .as("after %s: %s", executed, step)
                            .isEqualTo(Boolean.parseBoolean(arg));
                default -> throw new IllegalArgumentException("unknown step " + step);
            }
            executed.add(step);
        }
    }

    @Test
    void addingOrFinishingNullThrowsNullPointerException() {
        WorkQueue<String> q = newQueue();
        assertThatThrownBy(() -> q.add(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("item");
        assertThatThrownBy(() -> q.done(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("item");
        assertThat(q.len()).isZero();
    }

    @Test
    void itemsAreComparedByEqualsNotIdentity() throws InterruptedException {
        WorkQueue<String> q = newQueue();
        q.add(new String("ns/name"));
        q.add(new String("ns/name"));
        assertThat(q.len()).isEqualTo(1);
        String got = q.get();
        q.add(new String("ns/name"));
        assertThat(q.len()).isZero();
        q.done(new String("ns/name"));
        assertThat(q.len()).isEqualTo(1);
        assertThat(q.get()).isEqualTo(got);
    }

    /** A key type without interning, so that the queue's own references are the only ones left. */
    private record Key(String name) {}

    @Test
    void anItemIsNotRetainedByTheQueueAfterDone() throws InterruptedException {
        WorkQueue<Key> q = WorkQueue.<Key>builder().build();
        Key key = new Key("ns/name");
        WeakReference<Key> ref = new WeakReference<>(key);
        q.add(key);
        q.add(new Key("other"));
        q.done(q.get());
        key = null;
        eventually().until(() -> {
            System.gc();
            return ref.get() == null;
        });
        assertThat(q.len()).isEqualTo(1);
    }

    // ---- blocking get

    @ParameterizedTest
    @EnumSource(Kind.class)
    void getBlocksUntilAnItemIsAdded(Kind kind) throws Exception {
        WorkQueue<String> q = newQueue();
        Call<String> get = TestThreads.start(kind, q::get).awaitBlocked();
        q.add("a");
        assertThat(get.join()).isEqualTo("a");
        assertThat(q.len()).isZero();
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void anItemBeingProcessedIsNotHandedToASecondGetUntilItIsDone(Kind kind) throws Exception {
        WorkQueue<String> q = newQueue();
        q.add("a");
        assertThat(q.get()).isEqualTo("a");
        q.add("a");
        Call<String> second = TestThreads.start(kind, q::get).awaitBlocked();
        assertThat(q.len()).isZero();
        q.done("a");
        assertThat(second.join()).isEqualTo("a");
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void eachAddWakesOneBlockedGetAndEachItemGoesToExactlyOneGetter(Kind kind) throws Exception {
        WorkQueue<String> q = newQueue();
        List<Call<String>> getters = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            getters.add(TestThreads.start(kind, q::get).awaitBlocked());
        }
        for (String item : List.of("a", "b", "c", "d")) {
            q.add(item);
        }
        Set<String> got = new HashSet<>();
        for (Call<String> g : getters) {
            got.add(g.join());
        }
        assertThat(got).containsExactlyInAnyOrder("a", "b", "c", "d");
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void interruptingABlockedGetThrowsInterruptedExceptionAndLeavesTheQueueUsable(Kind kind) throws Exception {
        WorkQueue<String> q = newQueue();
        Call<String> get = TestThreads.start(kind, q::get).awaitBlocked();
        get.thread().interrupt();
        assertThatThrownBy(get::join)
                .isInstanceOf(ExecutionException.class)
                .cause()
                .isInstanceOf(InterruptedException.class);

        q.add("a");
        assertThat(TestThreads.start(kind, q::get).join()).isEqualTo("a");
    }

    // ---- shutdown

    @ParameterizedTest
    @EnumSource(Kind.class)
    void shutDownWakesEveryBlockedGetAndTheyReturnNull(Kind kind) throws Exception {
        WorkQueue<String> q = newQueue();
        List<Call<String>> getters = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            getters.add(TestThreads.start(kind, q::get).awaitBlocked());
        }
        q.shutDown();
        for (Call<String> g : getters) {
            assertThat(g.join()).isNull();
        }
        assertThat(q.shuttingDown()).isTrue();
    }

    @Test
    void shutDownWakesBlockedGettersOnPlatformAndVirtualThreadsTogether() throws Exception {
        WorkQueue<String> q = newQueue();
        List<Call<String>> getters = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            getters.add(TestThreads.start(i % 2 == 0 ? Kind.PLATFORM : Kind.VIRTUAL, q::get)
                    .awaitBlocked());
        }
        q.shutDown();
        for (Call<String> g : getters) {
            assertThat(g.join()).isNull();
        }
    }

    @Test
    void afterShutDownGettersReceiveTheQueuedItemsAndThenNull() throws Exception {
        WorkQueue<String> q = newQueue();
        q.add("a");
        q.add("b");
        q.shutDown();
        List<String> got = new ArrayList<>();
        for (String item; (item = q.get()) != null; ) {
            got.add(item);
            q.done(item);
            assertThat(got).hasSizeLessThanOrEqualTo(2);
        }
        assertThat(got).containsExactly("a", "b");
    }

    // ---- concurrency guarantee

    @ParameterizedTest
    @EnumSource(Kind.class)
    void anItemIsNeverProcessedByTwoWorkersAtOnceAndEveryAddIsFollowedByAProcessing(Kind kind) throws Exception {
        WorkQueue<String> q = newQueue();
        int keys = 20;
        int rounds = 50;
        // addVersion[k] is bumped just before each add of key k; a worker records the version it saw when it
        // started processing k. Every add must be followed by a processing that saw it.
        ConcurrentHashMap<String, AtomicInteger> addVersion = new ConcurrentHashMap<>();
        ConcurrentHashMap<String, AtomicInteger> seenVersion = new ConcurrentHashMap<>();
        ConcurrentHashMap<String, AtomicInteger> inFlight = new ConcurrentHashMap<>();
        AtomicInteger overlaps = new AtomicInteger();
        for (int k = 0; k < keys; k++) {
            addVersion.put("key-" + k, new AtomicInteger());
            seenVersion.put("key-" + k, new AtomicInteger());
            inFlight.put("key-" + k, new AtomicInteger());
        }
        List<Call<Void>> workers = new ArrayList<>();
        for (int w = 0; w < 4; w++) {
            workers.add(TestThreads.start(kind, () -> {
                for (String item; (item = q.get()) != null; ) {
                    if (inFlight.get(item).incrementAndGet() != 1) {
                        overlaps.incrementAndGet();
                    }
                    seenVersion.get(item).accumulateAndGet(addVersion.get(item).get(), Math::max);
                    Thread.yield();
                    inFlight.get(item).decrementAndGet();
                    q.done(item);
                }
                return null;
            }));
        }
        for (int r = 0; r < rounds; r++) {
            for (int k = 0; k < keys; k++) {
                addVersion.get("key-" + k).incrementAndGet();
                q.add("key-" + k);
            }
        }
        assertThat(q.shutDownWithDrain(Duration.ofSeconds(10))).isTrue();
        for (Call<Void> w : workers) {
            w.join();
        }
        assertThat(overlaps.get()).as("items processed by two workers at once").isZero();
        assertThat(seenVersion.values())
                .as("every key processed after its last add")
                .allSatisfy(v -> assertThat(v.get()).isEqualTo(rounds));
    }
}
