package io.kubeloop.cluster.internal.endpoints;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What a sync sees of its own writes while the cache lags, catches up or learns of someone else's change. */
class RecentWritesTest {

    private final RecentWrites<ConfigMap> writes = new RecentWrites<>();

    private static ConfigMap at(String name, long rv) {
        return new ConfigMapBuilder()
                .withNewMetadata()
                .withName(name)
                .withResourceVersion(Long.toString(rv))
                .endMetadata()
                .build();
    }

    @Test
    void aWriteIsSeenUntilTheCacheHasItOrSomethingNewer() {
        writes.written("svc", at("a", 10));
        assertThat(writes.merge("svc", List.of()))
                .extracting(c -> c.getMetadata().getResourceVersion())
                .containsExactly("10"); // created, not in the cache yet
        assertThat(writes.merge("svc", List.of(at("a", 5))))
                .extracting(c -> c.getMetadata().getResourceVersion())
                .containsExactly("10"); // the cache still has the older one
        assertThat(writes.isOwn("svc", at("a", 10))).isTrue();
        assertThat(writes.merge("svc", List.of(at("a", 12))))
                .extracting(c -> c.getMetadata().getResourceVersion())
                .containsExactly("12"); // someone wrote after us: theirs, and the entry is gone
        assertThat(writes.isOwn("svc", at("a", 10))).isFalse();
        assertThat(writes.merge("svc", List.of())).isEmpty();
    }

    @Test
    void aDeletionHidesTheObjectUntilTheCacheDropsIt() {
        writes.deleted("svc", at("b", 7));
        assertThat(writes.isOwnDeletion("svc", "b")).isTrue();
        assertThat(writes.merge("svc", List.of(at("b", 7), at("c", 3))))
                .extracting(c -> c.getMetadata().getName())
                .containsExactly("c");
        assertThat(writes.merge("svc", List.of(at("c", 3))))
                .extracting(c -> c.getMetadata().getName())
                .containsExactly("c");
        assertThat(writes.isOwnDeletion("svc", "b")).isFalse();
    }

    @Test
    void anObservedDeletionAtOrAfterTheWriteForgetsIt() {
        writes.written("svc", at("a", 10));
        writes.observeDeleted("svc", at("a", 8)); // an older incarnation's deletion
        assertThat(writes.resolve("svc", null)).isNotNull();
        writes.observeDeleted("svc", at("a", 11));
        assertThat(writes.resolve("svc", null)).isNull();
    }
}
