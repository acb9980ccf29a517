package io.kubeloop.informer.fifo;

import static io.kubeloop.informer.fifo.FifoFixtures.key;
import static io.kubeloop.informer.fifo.FifoFixtures.pod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Pod;
import io.kubeloop.informer.cache.DeletedFinalStateUnknown;
import org.junit.jupiter.api.Test;

/** A Delta's typed accessors: the object of a live change, the tombstone of a deletion missed by the watch. */
class DeltaTest {

    @Test
    void aLiveObjectIsTypedAndIsNoTombstone() {
        Pod a = pod("a@1");
        Delta<Pod> d = Delta.of(DeltaType.UPDATED, a);
        Pod typed = d.object();
        assertThat(typed).isSameAs(a);
        assertThat(d.objectOrTombstone()).isSameAs(a);
        assertThat(d.isTombstone()).isFalse();
        assertThatThrownBy(d::tombstone)
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("this UPDATED delta carries an object, not a tombstone");
        assertThat(d).isEqualTo(Delta.of(DeltaType.UPDATED, a)).isNotEqualTo(Delta.of(DeltaType.SYNC, a));
    }

    @Test
    void aTombstoneIsADeletionWhoseObjectIsTheLastKnownState() {
        Pod last = pod("a@1");
        DeletedFinalStateUnknown<Pod> t = new DeletedFinalStateUnknown<>(key("a"), last);
        Delta<Pod> d = Delta.tombstone(t);
        assertThat(d.type()).isEqualTo(DeltaType.DELETED);
        assertThat(d.isTombstone()).isTrue();
        assertThat(d.tombstone()).isSameAs(t);
        assertThat(d.object()).isSameAs(last);
        assertThat(d.objectOrTombstone()).isSameAs(t);
        assertThat(Delta.tombstone(new DeletedFinalStateUnknown<Pod>(key("b"), null))
                        .object())
                .isNull();
    }

    @Test
    void badDeltasAreRejectedWithAClearMessage() {
        assertThatThrownBy(() -> Delta.of(DeltaType.DELETED, new DeletedFinalStateUnknown<>("ns/a", null)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("use Delta.tombstone");
        assertThatThrownBy(() -> Delta.of(null, pod("a@1")))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("type");
        assertThatThrownBy(() -> Delta.of(DeltaType.ADDED, null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("object");
        assertThatThrownBy(() -> Delta.tombstone(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void theFifoQueuesRelistTombstonesAsTypedTombstones() throws InterruptedException {
        FifoFixtures.Known known = FifoFixtures.Known.of("k@1");
        DeltaFIFO<Pod> fifo =
                DeltaFIFO.<Pod>builder(FifoFixtures.KEY).knownObjects(known).build();
        fifo.replace(java.util.List.of(), "5");
        java.util.List<Delta<Pod>> popped = fifo.pop((deltas, initial) -> {});
        assertThat(popped).singleElement().satisfies(d -> {
            assertThat(d.isTombstone()).isTrue();
            assertThat(d.tombstone().key()).isEqualTo(key("k"));
            assertThat(d.object().getMetadata().getResourceVersion()).isEqualTo("1");
        });
    }
}
