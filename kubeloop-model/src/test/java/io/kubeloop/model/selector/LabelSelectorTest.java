package io.kubeloop.model.selector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import io.kubeloop.model.selector.LabelSelector.Operator;
import io.kubeloop.model.selector.LabelSelector.Requirement;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Label selector parsing, printing and matching, case by case against apimachinery's behaviour. */
class LabelSelectorTest {

    private static final String NAME_PART_REGEX = "name part must consist of alphanumeric characters, '-', '_' or '.',"
            + " and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc',"
            + " regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
    private static final String VALUE_REGEX = "a valid label must be an empty string or consist of alphanumeric"
            + " characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue', "
            + " or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
    private static final String PREFIX_REGEX = "prefix part a lowercase RFC 1123 subdomain must consist of lower case"
            + " alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g."
            + " 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

    static Stream<Arguments> validSelectors() {
        return Stream.of(
                Arguments.of("", ""),
                Arguments.of(" \t\r\n", ""),
                Arguments.of("x=a", "x=a"),
                Arguments.of("x==a", "x==a"),
                Arguments.of(" x = a ", "x=a"),
                Arguments.of("x!=a", "x!=a"),
                Arguments.of("x", "x"),
                Arguments.of("!x", "!x"),
                Arguments.of(" ! x ", "!x"),
                Arguments.of("x in (b,a)", "x in (a,b)"),
                Arguments.of("x in (a,a)", "x in (a)"),
                Arguments.of("x in(a)", "x in (a)"),
                Arguments.of("x\tnotin\t( a , b )", "x notin (a,b)"),
                Arguments.of("x in ()", "x in ()"),
                Arguments.of("x in (,a)", "x in (,a)"),
                Arguments.of("x in (a,)", "x in (,a)"),
                Arguments.of("x in (a,,b)", "x in (,a,b)"),
                Arguments.of("x notin (,,,)", "x notin ()"),
                Arguments.of("x=", "x="),
                Arguments.of("x=,y=b", "x=,y=b"),
                Arguments.of("x==", "x=="),
                Arguments.of("x>1", "x>1"),
                Arguments.of("x<10", "x<10"),
                Arguments.of("x>007", "x>007"),
                Arguments.of("tier!=db,!foo,app in (a,b)", "app in (a,b),!foo,tier!=db"),
                Arguments.of("app in (demo),!foo,tier!=db", "app in (demo),!foo,tier!=db"),
                Arguments.of("z,y,x", "x,y,z"),
                Arguments.of("x=b,x=a", "x=b,x=a"),
                Arguments.of("in in (in,notin)", "in in (in,notin)"),
                Arguments.of("notin", "notin"),
                Arguments.of("!in", "!in"),
                Arguments.of("x=in", "x=in"),
                Arguments.of("example.com/app=web", "example.com/app=web"),
                Arguments.of("a.b-c_D=E.f-G_9", "a.b-c_D=E.f-G_9"),
                // Go's lexer reads NUL as its end marker: it ends the token it is in, or the input.
                Arguments.of("x=a\u0000", "x=a"),
                Arguments.of("x,\u0000y", "x,y"));
    }

    @ParameterizedTest(name = "[{index}] \"{0}\" -> \"{1}\"")
    @MethodSource("validSelectors")
    void parsesToCanonicalString(String input, String canonical) {
        LabelSelector selector = LabelSelector.parse(input);
        assertThat(selector.toString()).isEqualTo(canonical);
        assertThat(LabelSelector.parse(canonical)).isEqualTo(selector);
    }

    static Stream<Arguments> invalidSelectors() {
        String long64 = "a".repeat(64);
        String prefix254 = "a".repeat(254);
        return Stream.of(
                Arguments.of("x=a b", "found 'b', expected: ',' or 'end of string'"),
                Arguments.of(",", "found ',', expected: !, identifier, or 'end of string'"),
                Arguments.of("(", "found '(', expected: !, identifier, or 'end of string'"),
                Arguments.of("a,", "found '', expected: identifier after ','"),
                Arguments.of("a,,b", "found ',', expected: identifier after ','"),
                Arguments.of("a,=b", "found '=', expected: identifier after ','"),
                Arguments.of("!x=y", "found '=', expected: ',' or 'end of string'"),
                Arguments.of("x=a=b", "found '=', expected: ',' or 'end of string'"),
                Arguments.of("x=a\u0000b", "found 'b', expected: ',' or 'end of string'"),
                Arguments.of("x, \u0000y", "found '', expected: identifier after ','"),
                Arguments.of("!", "unable to parse requirement: found '', expected: identifier"),
                Arguments.of("!!x", "unable to parse requirement: found '!', expected: identifier"),
                Arguments.of("a!", "unable to parse requirement: found '!', expected: in, notin, =, ==, !=, gt, lt"),
                Arguments.of("a b", "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt"),
                Arguments.of("x in", "unable to parse requirement: found '' expected: '('"),
                Arguments.of("in in", "unable to parse requirement: found '' expected: '('"),
                Arguments.of("x in a", "unable to parse requirement: found 'a' expected: '('"),
                Arguments.of("x in (a", "unable to parse requirement: found '', expected: ',' or ')'"),
                Arguments.of("x in (a b)", "unable to parse requirement: found 'b', expected: ',' or ')'"),
                Arguments.of("x in (=)", "unable to parse requirement: found '=', expected: ',', ')' or identifier"),
                Arguments.of("x in (a,=)", "unable to parse requirement: found '=', expected: ',', or identifier"),
                Arguments.of("x=(", "unable to parse requirement: found '(', expected: identifier"),
                Arguments.of("x>=1", "unable to parse requirement: found '=', expected: identifier"),
                Arguments.of(
                        "x>a",
                        "unable to parse requirement: values[0]: Invalid value: \"a\":"
                                + " for 'Gt', 'Lt' operators, the value must be an integer"),
                Arguments.of(
                        "x<99999999999999999999",
                        "unable to parse requirement: values[0]: Invalid value:"
                                + " \"99999999999999999999\": for 'Gt', 'Lt' operators, the value must be an integer"),
                Arguments.of(
                        "x>-1", "unable to parse requirement: values[0][x]: Invalid value: \"-1\": " + VALUE_REGEX),
                Arguments.of(
                        "x>a_",
                        "unable to parse requirement: [values[0]: Invalid value: \"a_\": for 'Gt', 'Lt'"
                                + " operators, the value must be an integer, values[0][x]: Invalid value: \"a_\": "
                                + VALUE_REGEX + "]"),
                Arguments.of(
                        "app=a_", "unable to parse requirement: values[0][app]: Invalid value: \"a_\": " + VALUE_REGEX),
                Arguments.of(
                        "app in (ok,-bad)",
                        "unable to parse requirement: values[0][app]: Invalid value: \"-bad\": " + VALUE_REGEX),
                Arguments.of(
                        "app=" + long64,
                        "unable to parse requirement: values[0][app]: Invalid value: \"" + long64
                                + "\": must be no more than 63 characters"),
                Arguments.of(
                        "app/",
                        "unable to parse requirement: <nil>: Invalid value: \"app/\":"
                                + " name part must be non-empty; " + NAME_PART_REGEX),
                Arguments.of(
                        "/app",
                        "unable to parse requirement: <nil>: Invalid value: \"/app\":"
                                + " prefix part must be non-empty"),
                Arguments.of(
                        "Example.com/app",
                        "unable to parse requirement: <nil>: Invalid value:" + " \"Example.com/app\": " + PREFIX_REGEX),
                Arguments.of(
                        prefix254 + "/app",
                        "unable to parse requirement: <nil>: Invalid value: \"" + prefix254
                                + "/app\": prefix part must be no more than 253 characters"),
                Arguments.of(
                        "a/b/c",
                        "unable to parse requirement: <nil>: Invalid value: \"a/b/c\": a qualified name"
                                + " must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an"
                                + " alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for"
                                + " validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain"
                                + " prefix and '/' (e.g. 'example.com/MyName')"),
                Arguments.of(
                        long64,
                        "unable to parse requirement: <nil>: Invalid value: \"" + long64
                                + "\": name part must be no more than 63 characters"),
                Arguments.of("-x", "unable to parse requirement: <nil>: Invalid value: \"-x\": " + NAME_PART_REGEX),
                Arguments.of(
                        "a\"b\\c",
                        "unable to parse requirement: <nil>: Invalid value: \"a\\\"b\\\\c\": " + NAME_PART_REGEX),
                Arguments.of(
                        "caf\u00e9\u0007",
                        "unable to parse requirement: <nil>: Invalid value: \"caf\u00e9\\a\": " + NAME_PART_REGEX));
    }

    @ParameterizedTest(name = "[{index}] \"{0}\"")
    @MethodSource("invalidSelectors")
    void rejectsWithApimachineryMessage(String input, String message) {
        assertThatThrownBy(() -> LabelSelector.parse(input))
                .isInstanceOf(SelectorParseException.class)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(message);
    }

    static Stream<Arguments> matching() {
        // a=1, b=x, d="", p="+1", n="-5", big=2^63 (not an int64)
        return Stream.of(
                Arguments.of("", true),
                Arguments.of("a=1", true),
                Arguments.of("a==1", true),
                Arguments.of("a=2", false),
                Arguments.of("c=1", false),
                Arguments.of("a=", false),
                Arguments.of("d=", true),
                Arguments.of("c=", false),
                Arguments.of("a!=1", false),
                Arguments.of("a!=2", true),
                Arguments.of("c!=1", true),
                Arguments.of("c!=", true),
                Arguments.of("d!=", false),
                Arguments.of("a in (1,2)", true),
                Arguments.of("a in (2,3)", false),
                Arguments.of("c in (1)", false),
                Arguments.of("d in ()", true),
                Arguments.of("a in ()", false),
                Arguments.of("a notin (1)", false),
                Arguments.of("a notin (2,3)", true),
                Arguments.of("c notin (1)", true),
                Arguments.of("a", true),
                Arguments.of("d", true),
                Arguments.of("c", false),
                Arguments.of("!c", true),
                Arguments.of("!a", false),
                Arguments.of("!d", false),
                Arguments.of("a>0", true),
                Arguments.of("a>1", false),
                Arguments.of("a<2", true),
                Arguments.of("a<1", false),
                Arguments.of("c>0", false),
                Arguments.of("c<0", false),
                Arguments.of("b>0", false),
                Arguments.of("b<0", false),
                Arguments.of("d<1", false),
                Arguments.of("p>0", true),
                Arguments.of("n<0", true),
                Arguments.of("n>0", false),
                Arguments.of("big>0", false),
                Arguments.of("big<0", false),
                Arguments.of("a=1,b=x,!c", true),
                Arguments.of("a=1,b=y", false));
    }

    @ParameterizedTest(name = "[{index}] \"{0}\" -> {1}")
    @MethodSource("matching")
    void matchesLikeApimachinery(String selector, boolean expected) {
        Map<String, String> labels =
                Map.of("a", "1", "b", "x", "d", "", "p", "+1", "n", "-5", "big", "9223372036854775808");
        assertThat(LabelSelector.parse(selector).matches(labels)).isEqualTo(expected);
    }

    @Test
    void nullLabelsAreNoLabels() {
        assertThat(LabelSelector.parse("a!=1,!b,c notin (x)").matches(null)).isTrue();
        assertThat(LabelSelector.parse("a").matches(null)).isFalse();
        assertThat(LabelSelector.everything().matches(null)).isTrue();
    }

    @Test
    void nullLabelValueIsPresentAndEmpty() {
        Map<String, String> labels = new HashMap<>();
        labels.put("a", null);
        assertThat(LabelSelector.parse("a").matches(labels)).isTrue();
        assertThat(LabelSelector.parse("a=").matches(labels)).isTrue();
        assertThat(LabelSelector.parse("!a").matches(labels)).isFalse();
    }

    @Test
    void unicodeDigitsAreNotIntegers() {
        assertThat(LabelSelector.parse("a>0").matches(Map.of("a", "\u0663"))).isFalse();
    }

    @Test
    void everythingAndNothing() {
        assertThat(LabelSelector.everything().isEverything()).isTrue();
        assertThat(LabelSelector.parse("").isEverything()).isTrue();
        assertThat(LabelSelector.parse("").requirements()).isEmpty();
        assertThat(LabelSelector.parse("a").isEverything()).isFalse();
        assertThat(LabelSelector.nothing().isEverything()).isFalse();
        assertThat(LabelSelector.nothing().matches(Map.of())).isFalse();
        assertThat(LabelSelector.nothing().matches(Map.of("a", "b"))).isFalse();
        assertThat(LabelSelector.nothing().toString()).isEmpty();
        assertThat(LabelSelector.nothing()).isNotEqualTo(LabelSelector.everything());
    }

    @Test
    void requirementsAreSortedByKeyWithSortedValues() {
        LabelSelector selector = LabelSelector.parse("z in (c,a,b),!y,x>5");
        assertThat(selector.requirements())
                .containsExactly(
                        new Requirement("x", Operator.GREATER_THAN, "5"),
                        new Requirement("y", Operator.DOES_NOT_EXIST),
                        new Requirement("z", Operator.IN, "a", "b", "c"));
        assertThat(selector.requirements().get(2).values()).containsExactly("a", "b", "c");
        assertThat(selector.requirements().get(2)).hasToString("z in (a,b,c)");
        assertThat(selector.requirements()).isUnmodifiable();
        assertThat(selector.requirements().get(2).values()).isUnmodifiable();
    }

    @Test
    void equalsAndDoubleEqualsAreDifferentSelectorsThatMatchAlike() {
        LabelSelector single = LabelSelector.parse("a=b");
        LabelSelector doubled = LabelSelector.parse("a==b");
        assertThat(single).isNotEqualTo(doubled);
        assertThat(single.matches(Map.of("a", "b"))).isTrue();
        assertThat(doubled.matches(Map.of("a", "b"))).isTrue();
        assertThat(LabelSelector.parse(" a = b ")).isEqualTo(single).hasSameHashCodeAs(single);
    }

    @Test
    void equalToBuildsSortedEqualities() {
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put("tier", "web");
        labels.put("app", "shop");
        labels.put("example.com/team", "");
        LabelSelector selector = LabelSelector.equalTo(labels);
        assertThat(selector).hasToString("app=shop,example.com/team=,tier=web");
        assertThat(selector.matches(Map.of("app", "shop", "tier", "web", "example.com/team", "", "x", "y")))
                .isTrue();
        assertThat(selector.matches(Map.of("app", "shop", "tier", "web"))).isFalse();
        assertThat(LabelSelector.equalTo(Map.of())).isEqualTo(LabelSelector.everything());
        assertThatThrownBy(() -> LabelSelector.equalTo(Map.of("app", "bad value")))
                .isInstanceOf(SelectorParseException.class)
                .hasMessage("values[0][app]: Invalid value: \"bad value\": " + VALUE_REGEX);
    }

    @Test
    void ofSortsStablyByKey() {
        LabelSelector selector = LabelSelector.of(List.of(
                new Requirement("b", Operator.EQUALS, "2"),
                new Requirement("a", Operator.NOT_EQUALS, "x"),
                new Requirement("b", Operator.EXISTS)));
        assertThat(selector).hasToString("a!=x,b=2,b");
        assertThat(LabelSelector.of(List.of())).isEqualTo(LabelSelector.everything());
    }

    static Stream<Arguments> invalidRequirements() {
        return Stream.of(
                Arguments.of(new Object[] {
                    "a",
                    Operator.IN,
                    List.of(),
                    "values: Invalid value: []string{}: for 'in', 'notin' operators, values set can't be empty"
                }),
                Arguments.of(new Object[] {
                    "a",
                    Operator.NOT_IN,
                    null,
                    "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty"
                }),
                Arguments.of(new Object[] {
                    "a",
                    Operator.EQUALS,
                    List.of("x", "y"),
                    "values: Invalid value: []string{\"x\", \"y\"}: exact-match compatibility requires one single value"
                }),
                Arguments.of(new Object[] {
                    "a",
                    Operator.NOT_EQUALS,
                    List.of(),
                    "values: Invalid value: []string{}: exact-match compatibility requires one single value"
                }),
                Arguments.of(new Object[] {
                    "a",
                    Operator.EXISTS,
                    List.of("x"),
                    "values: Invalid value: []string{\"x\"}: values set must be empty for exists and does not exist"
                }),
                Arguments.of(new Object[] {
                    "a",
                    Operator.GREATER_THAN,
                    List.of("1", "2"),
                    "values: Invalid value: []string{\"1\", \"2\"}: for 'Gt', 'Lt' operators, exactly one value is required"
                }),
                Arguments.of(new Object[] {
                    "a b",
                    Operator.EQUALS,
                    List.of("c d"),
                    "[key: Invalid value: \"a b\": " + NAME_PART_REGEX + ", values[0][a b]: Invalid value: \"c d\": "
                            + VALUE_REGEX + "]"
                }));
    }

    @ParameterizedTest(name = "[{index}] {0} {1} {2}")
    @MethodSource("invalidRequirements")
    void requirementsAreValidatedOnConstruction(String key, Operator op, List<String> values, String message) {
        assertThatThrownBy(() -> new Requirement(key, op, values))
                .isInstanceOf(SelectorParseException.class)
                .hasMessage(message);
    }

    @Test
    void convertsMetav1LabelSelectors() {
        var metav1 = new LabelSelectorBuilder()
                .addToMatchLabels("tier", "web")
                .addToMatchLabels("app", "shop")
                .addToMatchExpressions(expression("env", "In", "prod", "staging"))
                .addToMatchExpressions(expression("canary", "DoesNotExist"))
                .addToMatchExpressions(expression("zone", "NotIn", "b", "a"))
                .addToMatchExpressions(expression("owner", "Exists"))
                .build();
        LabelSelector selector = LabelSelector.fromLabelSelector(metav1);
        assertThat(selector).hasToString("app=shop,!canary,env in (prod,staging),owner,tier=web,zone notin (a,b)");
        assertThat(selector.matches(Map.of("app", "shop", "tier", "web", "env", "prod", "owner", "me")))
                .isTrue();
        assertThat(selector.matches(Map.of("app", "shop", "tier", "web", "env", "dev", "owner", "me")))
                .isFalse();
        assertThat(selector.matches(Map.of("app", "shop", "tier", "web", "env", "prod", "owner", "me", "zone", "a")))
                .isFalse();
    }

    @Test
    void metav1NullSelectsNothingAndEmptySelectsEverything() {
        assertThat(LabelSelector.fromLabelSelector(null)).isEqualTo(LabelSelector.nothing());
        assertThat(LabelSelector.fromLabelSelector(new io.fabric8.kubernetes.api.model.LabelSelector()))
                .isEqualTo(LabelSelector.everything());
    }

    static Stream<Arguments> invalidMetav1Selectors() {
        return Stream.of(
                Arguments.of(expression("a", "Gt", "1"), "\"Gt\" is not a valid label selector operator"),
                Arguments.of(expression("a", "in", "x"), "\"in\" is not a valid label selector operator"),
                Arguments.of(expression("a", null), "\"\" is not a valid label selector operator"),
                Arguments.of(
                        expression("a", "In"),
                        "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty"),
                Arguments.of(
                        expression("a", "NotIn"),
                        "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty"),
                Arguments.of(
                        expression("a", "Exists", "x"),
                        "values: Invalid value: []string{\"x\"}: values set must be empty for exists and does not exist"),
                Arguments.of(
                        expression("a", "DoesNotExist", "x", "y"),
                        "values: Invalid value: []string{\"x\", \"y\"}:"
                                + " values set must be empty for exists and does not exist"),
                Arguments.of(expression("-a", "Exists"), "key: Invalid value: \"-a\": " + NAME_PART_REGEX),
                Arguments.of(
                        expression("a", "In", "ok", "not ok"),
                        "values[1][a]: Invalid value: \"not ok\": " + VALUE_REGEX));
    }

    @ParameterizedTest(name = "[{index}] {1}")
    @MethodSource("invalidMetav1Selectors")
    void rejectsInvalidMetav1Selectors(LabelSelectorRequirement expression, String message) {
        var metav1 =
                new LabelSelectorBuilder().addToMatchExpressions(expression).build();
        assertThatThrownBy(() -> LabelSelector.fromLabelSelector(metav1))
                .isInstanceOf(SelectorParseException.class)
                .hasMessage(message);
    }

    @Test
    void rejectsInvalidMatchLabels() {
        var metav1 = new LabelSelectorBuilder().addToMatchLabels("app", "-web").build();
        assertThatThrownBy(() -> LabelSelector.fromLabelSelector(metav1))
                .isInstanceOf(SelectorParseException.class)
                .hasMessage("values[0][app]: Invalid value: \"-web\": " + VALUE_REGEX);
    }

    private static LabelSelectorRequirement expression(String key, String operator, String... values) {
        return new LabelSelectorRequirement(key, operator, values.length == 0 ? null : List.of(values));
    }
}
