package io.kubeloop.model.selector;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubeloop.model.selector.FieldSelector.Operator;
import io.kubeloop.model.selector.FieldSelector.Requirement;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Properties of field selectors: any value, however many backslashes, commas and equals signs it holds,
 * survives printing and parsing; matching treats absent fields as empty; any input either parses or fails
 * with a {@link SelectorParseException}, and what parses is stable under a second round trip.
 */
class FieldSelectorProperties {

    private static final String VALUE_CHARS = "ab.-\\,=! \u00e9";

    @Provide
    Arbitrary<String> values() {
        Arbitrary<String> plain = Arbitraries.strings().withChars(VALUE_CHARS).ofMaxLength(10);
        Arbitrary<String> astral = Arbitraries.of("\ud83d\ude00", "x\ud83d\ude00\\", "\\\ud83d\ude00,");
        return Arbitraries.oneOf(plain, plain, plain, astral);
    }

    @Provide
    Arbitrary<FieldSelector> selectors() {
        Arbitrary<String> fields =
                Arbitraries.of("metadata.name", "metadata.namespace", "spec.nodeName", "status.phase", "x!y", "a");
        Arbitrary<Requirement> requirement = Combinators.combine(fields, Arbitraries.of(Operator.class), values())
                .as(Requirement::new);
        return requirement.list().ofMaxSize(5).map(FieldSelector::of);
    }

    @Provide
    Arbitrary<String> arbitraryInputs() {
        Arbitrary<String> token = Arbitraries.of(
                "a", "b.c", "=", "==", "!=", "!", ",", "\\", "\\,", "\\=", "\\\\", " ", "\u00e9", "\ud83d\ude00");
        return token.list().ofMaxSize(12).map(parts -> String.join("", parts));
    }

    @Property
    void valuesSurviveEscapingAndParsing(@ForAll("values") String value) {
        FieldSelector selector = FieldSelector.equalTo("metadata.name", value);
        FieldSelector reparsed = FieldSelector.parse(selector.toString());
        assertThat(reparsed.requirements()).containsExactly(new Requirement("metadata.name", Operator.EQUALS, value));
        assertThat(reparsed.requiresExactMatch("metadata.name")).isEqualTo(value);
    }

    @Property
    void canonicalStringParsesBackToAnEqualSelector(@ForAll("selectors") FieldSelector selector) {
        FieldSelector reparsed = FieldSelector.parse(selector.toString());
        assertThat(reparsed).isEqualTo(selector);
        assertThat(reparsed.toString()).isEqualTo(selector.toString());
    }

    @Property
    void matchingTreatsAbsentFieldsAsEmpty(@ForAll("selectors") FieldSelector selector) {
        Map<String, String> onlyName = Map.of("metadata.name", "a");
        boolean expected = selector.requirements().stream().allMatch(r -> {
            String actual = onlyName.getOrDefault(r.field(), "");
            return r.operator() == Operator.EQUALS ? actual.equals(r.value()) : !actual.equals(r.value());
        });
        assertThat(selector.matches(onlyName::get)).isEqualTo(expected);
    }

    @Property
    void anyInputParsesOrFailsWithAParseException(@ForAll("arbitraryInputs") String input) {
        FieldSelector parsed;
        try {
            parsed = FieldSelector.parse(input);
        } catch (SelectorParseException e) {
            assertThat(e.getMessage()).isNotBlank();
            return;
        }
        FieldSelector again = FieldSelector.parse(parsed.toString());
        assertThat(again).isEqualTo(parsed);
        assertThat(again.toString()).isEqualTo(parsed.toString());
        assertThat(parsed.requirements())
                .allSatisfy(r -> assertThat(List.of(r.field(), r.value())).isNotEqualTo(List.of("", "")));
    }
}
