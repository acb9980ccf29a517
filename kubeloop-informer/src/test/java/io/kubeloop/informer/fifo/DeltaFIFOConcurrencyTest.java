package io.kubeloop.informer.fifo;

import static io.kubeloop.informer.fifo.FifoFixtures.key;
import static io.kubeloop.informer.fifo.FifoFixtures.pod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.kubeloop.informer.fifo.FifoFixtures.Cache;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * One producer (a Reflector's calls: watch events, some lost, relists, resyncs) against one consumer (an
 * informer's process loop updating the cache the FIFO consults), on two threads, for a bounded number of changes.
 * Every final state must reach the consumer.
 */
@Timeout(120)
class DeltaFIFOConcurrencyTest {

    private static final int KEYS = 50;
    private static final int CHANGES = 20_000;

    @ParameterizedTest(name = "coalesceUpdates={0}")
    @ValueSource(booleans = {true, false})
    void everyFinalStateReachesTheConsumer(boolean coalesce) throws Exception {
        Cache cache = new Cache();
        DeltaFIFO<Pod> fifo = DeltaFIFO.<Pod>builder(FifoFixtures.KEY)
                .knownObjects(cache)
                .coalesceUpdates(coalesce)
                .name("stress")
                .build();
        AtomicInteger pops = new AtomicInteger();
        List<String> violations = new CopyOnWriteArrayList<>();
        AtomicReference<Throwable> consumerFailure = new AtomicReference<>();
        Thread consumer = Thread.ofVirtual().name("stress-consumer").start(() -> {
            try {
                while (fifo.pop((deltas, initial) -> {
                            cache.apply(deltas);
                            for (int i = 1; i < deltas.size(); i++) {
                                DeltaType older = deltas.get(i - 1).type();
                                DeltaType newer = deltas.get(i).type();
                                if (older == DeltaType.DELETED && newer == DeltaType.DELETED) {
                                    violations.add("two DELETED in a row: " + FifoFixtures.render(deltas));
                                }
                                if (coalesce && isUpdateOrSync(older) && isUpdateOrSync(newer)) {
                                    violations.add("uncoalesced updates: " + FifoFixtures.render(deltas));
                                }
                            }
                        })
                        != null) {
                    pops.incrementAndGet();
                }
            } catch (Throwable t) {
                consumerFailure.set(t);
            }
        });

        Map<String, Pod> server = new TreeMap<>();
        CompletableFuture<Void> producer = CompletableFuture.runAsync(
                () -> {
                    Random random = new Random(42);
                    int rv = 0;
                    fifo.replace(List.of(), "0");
                    for (int i = 0; i < CHANGES; i++) {
                        String name = "p" + random.nextInt(KEYS);
                        boolean lost = random.nextInt(20) == 0; // the watch was down for this one
                        if (random.nextInt(4) == 0) {
                            Pod last = server.remove(key(name));
                            if (last != null && !lost) {
                                fifo.delete(last);
                            }
                        } else {
                            boolean exists = server.containsKey(key(name));
                            Pod p = pod(name + "@" + ++rv);
                            server.put(key(name), p);
                            if (!lost) {
                                if (exists) {
                                    fifo.update(p);
                                } else {
                                    fifo.add(p);
                                }
                            }
                        }
                        if (i % 1000 == 999) {
                            fifo.replace(new ArrayList<>(server.values()), String.valueOf(rv));
                        }
                        if (i % 700 == 0) {
                            fifo.resync();
                        }
                    }
                    fifo.replace(new ArrayList<>(server.values()), String.valueOf(rv)); // recovers what was lost
                },
                runnable -> Thread.ofPlatform().name("stress-producer").start(runnable));

        producer.get(60, TimeUnit.SECONDS);
        fifo.close();
        consumer.join(60_000);

        assertThat(consumer.isAlive()).isFalse();
        assertThat(consumerFailure.get()).isNull();
        assertThat(fifo.isEmpty()).isTrue();
        assertThat(fifo.hasSynced()).isTrue();
        assertThat(new TreeMap<>(cache.map)).isEqualTo(server);
        assertThat(pops.get()).isPositive();
        assertThat(violations).isEmpty();
    }

    private static boolean isUpdateOrSync(DeltaType type) {
        return type == DeltaType.UPDATED || type == DeltaType.SYNC;
    }

    @Test
    void severalBlockedConsumersAreAllWokenByClose() throws Exception {
        DeltaFIFO<Pod> fifo = DeltaFIFO.<Pod>builder(FifoFixtures.KEY).build();
        List<Thread> consumers = new ArrayList<>();
        AtomicInteger nulls = new AtomicInteger();
        for (int i = 0; i < 4; i++) {
            consumers.add(Thread.ofVirtual().name("consumer-" + i).start(() -> {
                try {
                    if (fifo.pop((d, initial) -> {}) == null) {
                        nulls.incrementAndGet();
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }));
        }
        await().atMost(Duration.ofSeconds(10))
                .until(() -> consumers.stream().allMatch(t -> t.getState() == Thread.State.WAITING));

        fifo.close();

        for (Thread t : consumers) {
            t.join(10_000);
            assertThat(t.isAlive()).isFalse();
        }
        assertThat(nulls.get()).isEqualTo(4);
    }
}
