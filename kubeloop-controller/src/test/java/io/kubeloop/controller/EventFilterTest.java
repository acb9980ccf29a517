package io.kubeloop.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The ready-made filters and their combinations, event by event (controller-runtime's predicates, §4.5). */
class EventFilterTest {

    private static ConfigMap cm(String rv, Long generation, Map<String, String> labels, Map<String, String> ann) {
        return new ConfigMapBuilder()
                .withNewMetadata()
                .withName("c")
                .withNamespace("ns")
                .withResourceVersion(rv)
                .withGeneration(generation)
                .withLabels(labels)
                .withAnnotations(ann)
                .endMetadata()
                .build();
    }

    private static ConfigMap cm(String rv) {
        return cm(rv, 1L, Map.of(), Map.of());
    }

    @Test
    void theDefaultsPassEverything() {
        EventFilter<ConfigMap> all = new EventFilter<>() {};
        assertThat(all.create(cm("1"), true)).isTrue();
        assertThat(all.update(cm("1"), cm("1"))).isTrue();
        assertThat(all.delete(cm("1"), true)).isTrue();
    }

    @Test
    void generationChangedPassesOnlyUpdatesWithANewGeneration() {
        EventFilter<HasMetadata> f = EventFilter.generationChanged();
        assertThat(f.update(cm("1", 1L, null, null), cm("2", 1L, null, null))).isFalse(); // status-only
        assertThat(f.update(cm("1", 1L, null, null), cm("2", 2L, null, null))).isTrue();
        assertThat(f.create(cm("1"), false)).isTrue();
        assertThat(f.delete(cm("1"), false)).isTrue();
    }

    @Test
    void resourceVersionChangedDropsResyncs() {
        EventFilter<HasMetadata> f = EventFilter.resourceVersionChanged();
        assertThat(f.update(cm("7"), cm("7"))).isFalse();
        assertThat(f.update(cm("7"), cm("8"))).isTrue();
        assertThat(f.create(cm("7"), true)).isTrue();
    }

    @Test
    void labelsAndAnnotationsChangedCompareTheMapsWithMissingAsEmpty() {
        EventFilter<HasMetadata> labels = EventFilter.labelsChanged();
        assertThat(labels.update(cm("1", 1L, null, null), cm("2", 1L, Map.of(), null)))
                .isFalse();
        assertThat(labels.update(cm("1", 1L, Map.of("a", "1"), null), cm("2", 1L, Map.of("a", "2"), null)))
                .isTrue();
        assertThat(labels.update(cm("1", 1L, Map.of("a", "1"), null), cm("2", 1L, Map.of("a", "1"), Map.of("x", "y"))))
                .isFalse();
        EventFilter<HasMetadata> annotations = EventFilter.annotationsChanged();
        assertThat(annotations.update(cm("1", 1L, null, null), cm("2", 1L, null, Map.of("x", "y"))))
                .isTrue();
        assertThat(annotations.update(
                        cm("1", 1L, null, Map.of("x", "y")), cm("2", 1L, Map.of("l", "v"), Map.of("x", "y"))))
                .isFalse();
    }

    @Test
    void aLabelSelectorFiltersEveryEventByTheNewObject() {
        EventFilter<HasMetadata> web = EventFilter.labelSelector("app=web,tier in (front,edge)");
        ConfigMap match = cm("1", 1L, Map.of("app", "web", "tier", "edge"), null);
        ConfigMap other = cm("1", 1L, Map.of("app", "db"), null);
        assertThat(web.create(match, false)).isTrue();
        assertThat(web.create(other, false)).isFalse();
        assertThat(web.update(other, match)).isTrue();
        assertThat(web.update(match, other)).isFalse();
        assertThat(web.delete(match, true)).isTrue();
        assertThat(web.delete(other, false)).isFalse();
    }

    @Test
    void aBadSelectorIsRejectedWithItsText() {
        assertThatThrownBy(() -> EventFilter.labelSelector("app in (web"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("app in (web");
    }

    @Test
    void andOrNotCombineEventByEvent() {
        EventFilter<HasMetadata> gen = EventFilter.generationChanged();
        EventFilter<HasMetadata> lab = EventFilter.labelsChanged();
        ConfigMap a = cm("1", 1L, Map.of("k", "1"), null);
        ConfigMap genOnly = cm("2", 2L, Map.of("k", "1"), null);
        ConfigMap labOnly = cm("2", 1L, Map.of("k", "2"), null);
        ConfigMap both = cm("2", 2L, Map.of("k", "2"), null);

        EventFilter<ConfigMap> or = EventFilter.or(gen, lab);
        assertThat(or.update(a, genOnly)).isTrue();
        assertThat(or.update(a, labOnly)).isTrue();
        assertThat(or.update(a, cm("2", 1L, Map.of("k", "1"), null))).isFalse();

        EventFilter<ConfigMap> and = EventFilter.and(gen, lab);
        assertThat(and.update(a, genOnly)).isFalse();
        assertThat(and.update(a, both)).isTrue();

        EventFilter<ConfigMap> not = EventFilter.not(gen);
        assertThat(not.update(a, genOnly)).isFalse();
        assertThat(not.update(a, labOnly)).isTrue();
        assertThat(not.create(a, false))
                .as("not(pass-all on creates) rejects creates")
                .isFalse();
    }
}
