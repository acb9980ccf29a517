package io.kubeloop.informer.fifo;

import static io.kubeloop.informer.fifo.FifoFixtures.pod;
import static io.kubeloop.informer.fifo.FifoFixtures.pods;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.kubeloop.informer.cache.DeletedFinalStateUnknown;
import io.kubeloop.informer.cache.Keys;
import io.kubeloop.informer.cache.KnownObjects;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The example of docs/deltafifo.md, as written there, runs and does what the page says. */
@Timeout(30)
class DeltaFIFODocExampleTest {

    @Test
    void theDocumentedConsumerEndsWithTheServersState() throws Exception {
        Map<String, Pod> cache = new ConcurrentHashMap<>(); // the consumer's state
        KnownObjects<Pod> known = new KnownObjects<>() {
            public List<String> listKeys() {
                return List.copyOf(cache.keySet());
            }

            public Optional<Pod> getByKey(String key) {
                return Optional.ofNullable(cache.get(key));
            }
        };
        DeltaFIFO<Pod> fifo = DeltaFIFO.<Pod>builder(Keys.DELETION_HANDLING)
                .knownObjects(known)
                .coalesceUpdates(true)
                .name("pods")
                .build();

        fifo.replace(pods("a@1 b@1 c@1"), "1");
        fifo.update(pod("a@2"));
        fifo.delete(pod("b@1"));
        fifo.add(pod("d@3"));
        fifo.close(); // so that the loop below ends once drained

        List<Delta<Pod>> popped;
        do {
            popped = fifo.pop((deltas, isInInitialList) -> {
                for (Delta<Pod> d : deltas) {
                    String key = Keys.DELETION_HANDLING.keyOf(d.objectOrTombstone()); // a tombstone's own key
                    if (d.type() == DeltaType.DELETED) {
                        cache.remove(key); // d.isTombstone(): missed by the watch
                    } else {
                        cache.put(key, d.object()); // typed: a Pod
                    }
                }
            });
        } while (popped != null);

        assertThat(cache.keySet()).containsExactlyInAnyOrder("ns/a", "ns/c", "ns/d");
        assertThat(cache.get("ns/a").getMetadata().getResourceVersion()).isEqualTo("2");
        assertThat(fifo.hasSynced()).isTrue();

        // a relist after the watch was down: c was deleted meanwhile and arrives as a tombstone
        DeltaFIFO<Pod> relisted = DeltaFIFO.<Pod>builder(Keys.DELETION_HANDLING)
                .knownObjects(known)
                .build();
        relisted.replace(pods("a@2 d@3"), "9");
        assertThat(relisted.getByKey("ns/c").orElseThrow().get(0).tombstone())
                .isEqualTo(new DeletedFinalStateUnknown<>("ns/c", cache.get("ns/c")));
    }
}
