package io.kubeloop.model.selector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kubeloop.model.selector.FieldSelector.Operator;
import io.kubeloop.model.selector.FieldSelector.Requirement;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Field selector parsing, escaping, printing and matching, case by case against apimachinery's behaviour. */
class FieldSelectorTest {

    static Stream<Arguments> validSelectors() {
        return Stream.of(
                Arguments.of("", ""),
                Arguments.of(",", ""),
                Arguments.of("=", ""),
                Arguments.of(",=,", ""),
                Arguments.of("metadata.name=x", "metadata.name=x"),
                Arguments.of("metadata.name==x", "metadata.name=x"),
                Arguments.of("metadata.name!=x", "metadata.name!=x"),
                Arguments.of(
                        "status.phase!=Running,spec.restartPolicy=Always",
                        "spec.restartPolicy=Always,status.phase!=Running"),
                Arguments.of(",a=b,", "a=b"),
                Arguments.of("spec.nodeName=", "spec.nodeName="),
                Arguments.of("spec.nodeName!=", "spec.nodeName!="),
                Arguments.of("=x", "=x"),
                Arguments.of(" a = b ", " a = b "),
                Arguments.of("x!y=1", "x!y=1"),
                Arguments.of("a=b\\,c", "a=b\\,c"),
                Arguments.of("a=b\\=c", "a=b\\=c"),
                Arguments.of("a=b\\\\c", "a=b\\\\c"),
                Arguments.of("a=b\\,c,a=a", "a=a,a=b\\,c"),
                Arguments.of("a\\,b=c", "a\\,b=c"),
                Arguments.of("a=1,a=1", "a=1,a=1"),
                Arguments.of("a=\u00e9\ud83d\ude00", "a=\u00e9\ud83d\ude00"));
    }

    @ParameterizedTest(name = "[{index}] \"{0}\" -> \"{1}\"")
    @MethodSource("validSelectors")
    void parsesToCanonicalString(String input, String canonical) {
        FieldSelector selector = FieldSelector.parse(input);
        assertThat(selector.toString()).isEqualTo(canonical);
        assertThat(FieldSelector.parse(canonical)).isEqualTo(selector);
    }

    static Stream<Arguments> invalidSelectors() {
        return Stream.of(
                Arguments.of("a", "invalid selector: 'a'; can't understand 'a'"),
                Arguments.of("a=b,c", "invalid selector: 'a=b,c'; can't understand 'c'"),
                Arguments.of("z,a", "invalid selector: 'z,a'; can't understand 'a'"),
                Arguments.of("a in (b)", "invalid selector: 'a in (b)'; can't understand 'a in (b)'"),
                Arguments.of(" ", "invalid selector: ' '; can't understand ' '"),
                Arguments.of("a=b\\x", "invalid field selector: invalid escape sequence: \\x"),
                Arguments.of("a=b\\\ud83d\ude00", "invalid field selector: invalid escape sequence: \\\ud83d\ude00"),
                Arguments.of("a=b\\", "invalid field selector: invalid escape sequence: \\"),
                Arguments.of("a=b=c", "invalid field selector: unescaped character in value: 61"),
                Arguments.of("a===b", "invalid field selector: unescaped character in value: 61"),
                Arguments.of("a=!=b", "invalid field selector: unescaped character in value: 61"),
                Arguments.of("a!==b", "invalid field selector: unescaped character in value: 61"));
    }

    @ParameterizedTest(name = "[{index}] \"{0}\"")
    @MethodSource("invalidSelectors")
    void rejectsWithApimachineryMessage(String input, String message) {
        assertThatThrownBy(() -> FieldSelector.parse(input))
                .isInstanceOf(SelectorParseException.class)
                .hasMessage(message);
    }

    @Test
    void unescapesValuesAndSplitsFieldsAtTheFirstOperator() {
        assertThat(FieldSelector.parse("a=b\\,c\\=d\\\\e").requirements())
                .containsExactly(new Requirement("a", Operator.EQUALS, "b,c=d\\e"));
        assertThat(FieldSelector.parse("a!=b").requirements())
                .containsExactly(new Requirement("a", Operator.NOT_EQUALS, "b"));
        assertThat(FieldSelector.parse("a==b")).isEqualTo(FieldSelector.parse("a=b"));
        assertThat(FieldSelector.parse("a\\=b").requirements())
                .containsExactly(new Requirement("a\\", Operator.EQUALS, "b"));
    }

    static Stream<Arguments> matching() {
        // An object with metadata.name=web-1, status.phase=Running, spec.nodeName="" and no spec.host.
        return Stream.of(
                Arguments.of("", true),
                Arguments.of("metadata.name=web-1", true),
                Arguments.of("metadata.name==web-1", true),
                Arguments.of("metadata.name=web-2", false),
                Arguments.of("metadata.name!=web-2", true),
                Arguments.of("metadata.name!=web-1", false),
                Arguments.of("spec.nodeName=", true),
                Arguments.of("spec.nodeName!=", false),
                Arguments.of("spec.host=", true),
                Arguments.of("spec.host!=", false),
                Arguments.of("spec.host!=x", true),
                Arguments.of("spec.host=x", false),
                Arguments.of("metadata.name=web-1,status.phase!=Running", false),
                Arguments.of("metadata.name=web-1,status.phase!=Pending", true));
    }

    @ParameterizedTest(name = "[{index}] \"{0}\" -> {1}")
    @MethodSource("matching")
    void matchesWithAbsentFieldsAsEmpty(String selector, boolean expected) {
        Map<String, String> fields = Map.of("metadata.name", "web-1", "status.phase", "Running", "spec.nodeName", "");
        assertThat(FieldSelector.parse(selector).matches(fields::get)).isEqualTo(expected);
    }

    @Test
    void requiresExactMatch() {
        FieldSelector selector = FieldSelector.parse("metadata.namespace=ns,metadata.name==x,spec.nodeName!=n");
        assertThat(selector.requiresExactMatch("metadata.name")).isEqualTo("x");
        assertThat(selector.requiresExactMatch("metadata.namespace")).isEqualTo("ns");
        assertThat(selector.requiresExactMatch("spec.nodeName")).isNull();
        assertThat(selector.requiresExactMatch("status.phase")).isNull();
        assertThat(FieldSelector.parse("metadata.name=").requiresExactMatch("metadata.name"))
                .isEmpty();
        assertThat(FieldSelector.everything().requiresExactMatch("metadata.name"))
                .isNull();
    }

    @Test
    void factories() {
        assertThat(FieldSelector.everything().isEverything()).isTrue();
        assertThat(FieldSelector.parse("").isEverything()).isTrue();
        assertThat(FieldSelector.parse("a=b").isEverything()).isFalse();
        FieldSelector name = FieldSelector.equalTo("metadata.name", "a,b=c");
        assertThat(name).hasToString("metadata.name=a\\,b\\=c");
        assertThat(FieldSelector.parse(name.toString())).isEqualTo(name);
        assertThat(FieldSelector.of(List.of(
                        new Requirement("status.phase", Operator.NOT_EQUALS, "Running"),
                        new Requirement("spec.nodeName", Operator.EQUALS, ""))))
                .hasToString("spec.nodeName=,status.phase!=Running");
        assertThat(FieldSelector.of(List.of())).isEqualTo(FieldSelector.everything());
        assertThat(FieldSelector.parse("a=1").requirements()).isUnmodifiable();
    }

    @Test
    void escapeValue() {
        assertThat(FieldSelector.escapeValue("plain")).isEqualTo("plain");
        assertThat(FieldSelector.escapeValue("a\\b,c=d")).isEqualTo("a\\\\b\\,c\\=d");
        assertThat(FieldSelector.escapeValue("")).isEmpty();
    }
}
