package io.kubeloop.informer.fifo;

import static io.kubeloop.informer.fifo.FifoFixtures.key;
import static io.kubeloop.informer.fifo.FifoFixtures.pod;
import static io.kubeloop.informer.fifo.FifoFixtures.pods;
import static io.kubeloop.informer.fifo.FifoFixtures.render;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.kubeloop.informer.cache.KeyException;
import io.kubeloop.informer.cache.KnownObjects;
import io.kubeloop.informer.fifo.FifoFixtures.Known;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/** Bad input and failing collaborators: key function, transformer, known objects; builder validation. */
class DeltaFIFOErrorsTest {

    private static Pod nameless() {
        return new PodBuilder()
                .withNewMetadata()
                .withNamespace("ns")
                .endMetadata()
                .build();
    }

    @Test
    void aWatchEventWithoutAKeyIsLoggedAtErrorAndSkipped() {
        DeltaFIFO<Pod> fifo =
                DeltaFIFO.<Pod>builder(FifoFixtures.KEY).name("pods").build();
        List<Consumer<Pod>> calls = List.of(fifo::add, fifo::update, fifo::delete);

        for (Consumer<Pod> call : calls) {
            String log = FifoFixtures.logged(() -> call.accept(nameless()));
            assertThat(log)
                    .contains("ERROR")
                    .contains("DeltaFIFO pods")
                    .contains("Pod ns/<no name>")
                    .contains("metadata.name is empty");
        }
        assertThat(fifo.isEmpty()).isTrue();
        assertThat(fifo.hasSynced())
                .as("the event still ends the wait for an initial list")
                .isTrue();
    }

    @Test
    void aReplaceWithAnObjectWithoutAKeyIsRejectedWholeAndChangesNothing() {
        Known known = Known.of("x@1");
        DeltaFIFO<Pod> fifo = DeltaFIFO.<Pod>builder(FifoFixtures.KEY)
                .knownObjects(known)
                .name("pods")
                .build();
        List<Pod> list = new ArrayList<>(pods("a@1 b@1"));
        list.add(nameless());

        assertThatThrownBy(() -> fifo.replace(list, "7"))
                .isInstanceOf(KeyException.class)
                .hasMessageContaining("DeltaFIFO pods")
                .hasMessageContaining("list item 2")
                .hasMessageContaining("Pod ns/<no name>");
        assertThat(fifo.isEmpty())
                .as("no REPLACED for a, b and no tombstone for x")
                .isTrue();
        assertThat(fifo.hasSynced()).isFalse();
    }

    @Test
    void nullObjectsAreRejected() {
        DeltaFIFO<Pod> fifo = DeltaFIFO.<Pod>builder(FifoFixtures.KEY).build();
        List<Pod> withNull = new ArrayList<>(pods("a@1"));
        withNull.add(null);

        assertThatThrownBy(() -> fifo.add(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> fifo.delete(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> fifo.replace(null, "1")).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> fifo.replace(withNull, "1"))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("item 1 is null");
        assertThatThrownBy(() -> fifo.pop(null)).isInstanceOf(NullPointerException.class);
        assertThat(fifo.isEmpty()).isTrue();
    }

    @Test
    void builderRejectsBadSettings() {
        assertThatThrownBy(() -> DeltaFIFO.builder(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("keyFunc");
        assertThatThrownBy(() -> DeltaFIFO.builder(FifoFixtures.KEY).name(" "))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("name");
        assertThatThrownBy(() -> DeltaFIFO.builder(FifoFixtures.KEY).clock(null))
                .isInstanceOf(NullPointerException.class);
    }

    // ------------------------------------------------------------------------------------------ transformer

    private static final UnaryOperator<Pod> MARK = p -> new PodBuilder(p)
            .editMetadata()
            .addToLabels("transformed", "yes")
            .endMetadata()
            .build();

    private static boolean marked(Object o) {
        return o instanceof Pod p
                && p.getMetadata().getLabels() != null
                && "yes".equals(p.getMetadata().getLabels().get("transformed"));
    }

    @Test
    void theTransformerSeesEveryIncomingObjectButNeverTombstonesOrResyncs() throws InterruptedException {
        DeltaFIFO<Pod> fifo = DeltaFIFO.<Pod>builder(FifoFixtures.KEY)
                .knownObjects(Known.of("k@1"))
                .transformer(MARK)
                .coalesceUpdates(false)
                .build();

        fifo.add(pod("a@1"));
        fifo.update(pod("a@2"));
        fifo.delete(pod("a@3"));
        fifo.replace(pods("b@1"), "5");

        assertThat(render(fifo))
                .isEqualTo("a:ADDED(a@1),UPDATED(a@2),DELETED(a@3) | b:REPLACED(b@1) | k:DELETED(~k@1)");
        assertThat(fifo.getByKey(key("a")).orElseThrow()).allMatch(d -> marked(d.object()));
        assertThat(fifo.getByKey(key("b")).orElseThrow()).allMatch(d -> marked(d.object()));
        Delta<Pod> tombstone = fifo.getByKey(key("k")).orElseThrow().get(0);
        assertThat(tombstone.tombstone().object())
                .as("a known object's tombstone carries it as known: not transformed again")
                .matches(o -> !marked(o));

        while (!fifo.isEmpty()) {
            fifo.pop((d, i) -> {});
        }
        fifo.resync(); // the static known objects still hold k@1

        assertThat(render(fifo)).isEqualTo("k:SYNC(k@1)");
        assertThat(fifo.getByKey(key("k")).orElseThrow().get(0).object()).matches(o -> !marked(o));
    }

    @Test
    void aTransformerFailureDropsAWatchEventLoudlyAndRejectsAReplaceWhole() {
        UnaryOperator<Pod> failOnB = p -> {
            if (p.getMetadata().getName().equals("b")) {
                throw new IllegalArgumentException("cannot shrink b");
            }
            return p;
        };
        DeltaFIFO<Pod> fifo = DeltaFIFO.<Pod>builder(FifoFixtures.KEY)
                .transformer(failOnB)
                .name("pods")
                .build();

        String log = FifoFixtures.logged(() -> fifo.add(pod("b@1")));
        assertThat(log).contains("ERROR").contains("Pod ns/b").contains("cannot shrink b");
        assertThatThrownBy(() -> fifo.replace(pods("a@1 b@1"), "3"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("list item 1")
                .hasRootCauseMessage("cannot shrink b");
        assertThat(fifo.isEmpty()).isTrue();
    }

    // ------------------------------------------------------------------------------------------ known objects

    /** Lists {@code a} but fails every lookup. */
    private static final KnownObjects<Pod> BROKEN = new KnownObjects<>() {
        @Override
        public List<String> listKeys() {
            return List.of(key("a"));
        }

        @Override
        public Optional<Pod> getByKey(String key) {
            throw new IllegalStateException("index corrupt");
        }
    };

    @Test
    void aFailedKnownLookupMeansMayExistForDeleteAndNoObjectForATombstone() {
        DeltaFIFO<Pod> fifo =
                DeltaFIFO.<Pod>builder(FifoFixtures.KEY).knownObjects(BROKEN).build();

        FifoFixtures.logged(() -> fifo.delete(pod("z@1")));
        assertThat(render(fifo)).isEqualTo("z:DELETED(z@1)");

        DeltaFIFO<Pod> relisted =
                DeltaFIFO.<Pod>builder(FifoFixtures.KEY).knownObjects(BROKEN).build();
        FifoFixtures.logged(() -> relisted.replace(List.of(), "2"));
        assertThat(render(relisted)).isEqualTo("a:DELETED(~a@-)");

        DeltaFIFO<Pod> resynced =
                DeltaFIFO.<Pod>builder(FifoFixtures.KEY).knownObjects(BROKEN).build();
        FifoFixtures.logged(resynced::resync);
        assertThat(resynced.isEmpty())
                .as("a key that cannot be looked up is not resynced")
                .isTrue();
    }

    @Test
    void aKnownKeyThatVanishesIsNotResynced() {
        KnownObjects<Pod> listsGhost = new KnownObjects<>() {
            @Override
            public List<String> listKeys() {
                return List.of(key("ghost"), key("real"));
            }

            @Override
            public Optional<Pod> getByKey(String key) {
                return key.equals(key("real")) ? Optional.of(pod("real@4")) : Optional.empty();
            }
        };
        DeltaFIFO<Pod> fifo = DeltaFIFO.<Pod>builder(FifoFixtures.KEY)
                .knownObjects(listsGhost)
                .build();

        fifo.resync();

        assertThat(render(fifo)).isEqualTo("real:SYNC(real@4)");
    }
}
