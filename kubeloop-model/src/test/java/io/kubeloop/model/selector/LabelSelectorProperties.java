package io.kubeloop.model.selector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import io.kubeloop.model.selector.LabelSelector.Operator;
import io.kubeloop.model.selector.LabelSelector.Requirement;
import java.math.BigInteger;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Properties of label selectors: the canonical string parses back to an equal selector, matching agrees with
 * a reference model of apimachinery's rules, and any input either parses or fails with a
 * {@link SelectorParseException}.
 */
class LabelSelectorProperties {

    // ------------------------------------------------------------------------------------------------
    // Generators

    private static final String ALNUM = "abcxyzABCXYZ0189";

    /** A name part or label value: alphanumeric at both ends, {@code -_.} inside, 1 to 63 characters. */
    private static Arbitrary<String> qualifiedName() {
        Arbitrary<String> edge = Arbitraries.strings().withChars(ALNUM).ofLength(1);
        Arbitrary<String> middle =
                Arbitraries.strings().withChars(ALNUM + "-_.").ofMaxLength(61);
        Arbitrary<String> general = Combinators.combine(edge, middle, edge, Arbitraries.of(true, false))
                .as((first, inside, last, single) -> single ? first : first + inside + last);
        return Arbitraries.frequencyOf(
                weighted(8, general),
                weighted(1, Arbitraries.of("in", "notin", "a", "0")),
                weighted(1, Arbitraries.strings().withChars(ALNUM).ofLength(63)));
    }

    private static Arbitrary<String> dnsSubdomain() {
        Arbitrary<String> label = Combinators.combine(
                        Arbitraries.strings().withChars("az09").ofLength(1),
                        Arbitraries.strings().withChars("az09-").ofMaxLength(8),
                        Arbitraries.strings().withChars("az09").ofLength(1))
                .as((a, b, c) -> a + b + c);
        return label.list().ofMinSize(1).ofMaxSize(3).map(parts -> String.join(".", parts));
    }

    private static Arbitrary<String> key() {
        return Arbitraries.frequencyOf(
                weighted(3, qualifiedName()),
                weighted(1, Combinators.combine(dnsSubdomain(), qualifiedName()).as((p, n) -> p + "/" + n)));
    }

    private static Arbitrary<String> value() {
        return Arbitraries.frequencyOf(weighted(1, Arbitraries.just("")), weighted(6, qualifiedName()));
    }

    private static Arbitrary<String> integer() {
        return Arbitraries.oneOf(
                Arbitraries.longs().greaterOrEqual(0).map(Object::toString),
                Arbitraries.strings().withChars("0123456789").ofMinLength(1).ofMaxLength(18));
    }

    private static Arbitrary<Requirement> requirement(Arbitrary<String> keys, Arbitrary<String> values) {
        Arbitrary<Operator> operators = Arbitraries.of(Operator.class);
        return Combinators.combine(keys, operators, values.list().ofMinSize(1).ofMaxSize(4), integer())
                .as((key, op, vals, n) -> switch (op) {
                    case EXISTS, DOES_NOT_EXIST -> new Requirement(key, op, List.of());
                    case EQUALS, DOUBLE_EQUALS, NOT_EQUALS -> new Requirement(key, op, vals.get(0));
                    case GREATER_THAN, LESS_THAN -> new Requirement(key, op, n);
                    case IN, NOT_IN -> new Requirement(key, op, vals);
                });
    }

    @Provide
    Arbitrary<LabelSelector> selectors() {
        return requirement(key(), value()).list().ofMaxSize(6).map(LabelSelector::of);
    }

    private static final List<String> KEYS = List.of("a", "b", "example.com/c", "in");
    private static final List<String> SELECTOR_VALUES = List.of("", "1", "2", "10", "x", "007");
    private static final List<String> LABEL_VALUES =
            List.of("", "1", "2", "10", "x", "007", "+1", "-1", " 1", "99999999999999999999");

    @Provide
    Arbitrary<LabelSelector> smallSelectors() {
        Arbitrary<Requirement> requirements = Combinators.combine(
                        Arbitraries.of(KEYS),
                        Arbitraries.of(Operator.class),
                        Arbitraries.of(SELECTOR_VALUES).list().ofMinSize(1).ofMaxSize(3),
                        Arbitraries.of("0", "1", "2", "10"))
                .as((key, op, vals, n) -> switch (op) {
                    case EXISTS, DOES_NOT_EXIST -> new Requirement(key, op, List.of());
                    case EQUALS, DOUBLE_EQUALS, NOT_EQUALS -> new Requirement(key, op, vals.get(0));
                    case GREATER_THAN, LESS_THAN -> new Requirement(key, op, n);
                    case IN, NOT_IN -> new Requirement(key, op, vals);
                });
        return requirements.list().ofMaxSize(4).map(LabelSelector::of);
    }

    @Provide
    Arbitrary<Map<String, String>> labelSets() {
        return Arbitraries.maps(Arbitraries.of(KEYS), Arbitraries.of(LABEL_VALUES))
                .ofMaxSize(KEYS.size());
    }

    /** Inputs built from the tokens and characters that matter to the lexer and parser. */
    @Provide
    Arbitrary<String> arbitraryInputs() {
        Arbitrary<String> token = Arbitraries.of(
                "a",
                "b",
                "x.y",
                "example.com/k",
                "k/",
                "-",
                "_",
                "in",
                "notin",
                "=",
                "==",
                "!=",
                "!",
                ">",
                "<",
                "(",
                ")",
                ",",
                " ",
                "\t",
                "1",
                "-1",
                "\u0000",
                "\u00e9",
                "\"",
                "\\");
        return token.list().ofMaxSize(12).map(parts -> String.join("", parts));
    }

    // ------------------------------------------------------------------------------------------------
    // Properties

    @Property
    void canonicalStringParsesBackToAnEqualSelector(@ForAll("selectors") LabelSelector selector) {
        LabelSelector reparsed = LabelSelector.parse(selector.toString());
        assertThat(reparsed).isEqualTo(selector);
        assertThat(reparsed.toString()).isEqualTo(selector.toString());
        assertThat(reparsed.hashCode()).isEqualTo(selector.hashCode());
    }

    @Property
    void matchingAgreesWithTheReferenceModel(
            @ForAll("smallSelectors") LabelSelector selector, @ForAll("labelSets") Map<String, String> labels) {
        boolean expected = selector.requirements().stream().allMatch(r -> referenceMatches(r, labels));
        assertThat(selector.matches(labels)).isEqualTo(expected);
        assertThat(LabelSelector.parse(selector.toString()).matches(labels)).isEqualTo(expected);
    }

    @Property
    void anyInputParsesOrFailsWithAParseException(@ForAll("arbitraryInputs") String input) {
        LabelSelector parsed;
        try {
            parsed = LabelSelector.parse(input);
        } catch (SelectorParseException e) {
            assertThat(e.getMessage()).isNotBlank();
            return;
        }
        assertThatCode(() -> assertThat(LabelSelector.parse(parsed.toString())).isEqualTo(parsed))
                .doesNotThrowAnyException();
    }

    /** apimachinery's {@code Requirement.Matches}, written out from its documentation. */
    private static boolean referenceMatches(Requirement r, Map<String, String> labels) {
        boolean has = labels.containsKey(r.key());
        String actual = labels.get(r.key());
        return switch (r.operator()) {
            case EQUALS, DOUBLE_EQUALS, IN -> has && r.values().contains(actual);
            case NOT_EQUALS, NOT_IN -> !has || !r.values().contains(actual);
            case EXISTS -> has;
            case DOES_NOT_EXIST -> !has;
            case GREATER_THAN, LESS_THAN -> {
                BigInteger label = int64(actual);
                if (!has || label == null) {
                    yield false;
                }
                int cmp = label.compareTo(new BigInteger(r.values().get(0)));
                yield r.operator() == Operator.GREATER_THAN ? cmp > 0 : cmp < 0;
            }
        };
    }

    private static BigInteger int64(String s) {
        if (s == null || !s.matches("[+-]?[0-9]+")) {
            return null;
        }
        BigInteger n = new BigInteger(s.startsWith("+") ? s.substring(1) : s);
        return n.bitLength() < 64 ? n : null;
    }

    private static <T> net.jqwik.api.Tuple.Tuple2<Integer, Arbitrary<? extends T>> weighted(
            int weight, Arbitrary<T> arbitrary) {
        return net.jqwik.api.Tuple.of(weight, arbitrary);
    }
}
