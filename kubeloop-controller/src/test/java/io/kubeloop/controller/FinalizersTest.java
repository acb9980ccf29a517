package io.kubeloop.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** {@link Finalizers}: add, remove and contains, each saying whether it changed the object. */
class FinalizersTest {

    private static ConfigMap withFinalizers(List<String> finalizers) {
        ConfigMap cm = new ConfigMapBuilder()
                .withNewMetadata()
                .withName("a")
                .endMetadata()
                .build();
        cm.getMetadata().setFinalizers(finalizers); // immutable lists, as compact objects have
        return cm;
    }

    static Stream<Arguments> cases() {
        return Stream.of(
                // before, operation, changed, after
                Arguments.of(List.of(), "add", true, List.of("x/a")),
                Arguments.of(List.of("x/b"), "add", true, List.of("x/b", "x/a")),
                Arguments.of(List.of("x/a"), "add", false, List.of("x/a")),
                Arguments.of(List.of(), "remove", false, List.of()),
                Arguments.of(List.of("x/a"), "remove", true, List.of()),
                Arguments.of(List.of("x/a", "x/b", "x/a"), "remove", true, List.of("x/b")),
                Arguments.of(List.of("x/b"), "remove", false, List.of("x/b")));
    }

    @ParameterizedTest
    @MethodSource("cases")
    void addAndRemove(List<String> before, String operation, boolean changed, List<String> after) {
        ConfigMap cm = withFinalizers(before);
        boolean result = operation.equals("add") ? Finalizers.add(cm, "x/a") : Finalizers.remove(cm, "x/a");
        assertThat(result).isEqualTo(changed);
        assertThat(cm.getMetadata().getFinalizers()).isEqualTo(after);
        assertThat(Finalizers.contains(cm, "x/a")).isEqualTo(after.contains("x/a"));
    }

    @Test
    void anObjectWithoutFinalizersOrMetadata() {
        ConfigMap cm = new ConfigMap();
        assertThat(Finalizers.contains(cm, "x/a")).isFalse();
        assertThat(Finalizers.remove(cm, "x/a")).isFalse();
        assertThat(Finalizers.add(cm, "x/a")).isTrue();
        assertThat(cm.getMetadata().getFinalizers()).containsExactly("x/a");
    }

    @Test
    void aBlankFinalizerIsRefused() {
        assertThatThrownBy(() -> Finalizers.add(new ConfigMap(), " "))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("example.com/cleanup");
    }
}
