package io.kubeloop.model.selector;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A Kubernetes label selector: requirements on an object's labels, all of which must hold. Immutable and
 * thread-safe; the exact semantics of apimachinery's {@code labels.Selector}.
 *
 * <h2>Syntax</h2>
 * {@link #parse(String)} reads the {@code labelSelector=} query parameter's language — comma-separated
 * requirements, ANDed, with whitespace allowed around tokens:
 * <pre>
 *   app=web   app==web   tier!=db   env in (prod,staging)   env notin (dev)   app   !canary   replicas&gt;2   replicas&lt;10
 * </pre>
 * An empty value is valid ({@code app=}, {@code env in ()}); the empty string selects everything. Keys are
 * {@code [prefix/]name} (prefix a lowercase DNS-1123 subdomain of at most 253 characters, name at most 63
 * characters of {@code [A-Za-z0-9._-]} starting and ending alphanumeric); values are empty or at most 63
 * such characters. Invalid input throws {@link SelectorParseException} with kube-apiserver's message.
 *
 * <h2>Matching</h2>
 * {@code !=}, {@code notin} and {@code !k} also match when the key is absent; {@code =}, {@code in},
 * {@code k}, {@code >} and {@code <} need it present. {@code >} and {@code <} compare as 64-bit integers, and a
 * label value that is not one never matches.
 *
 * <h2>Canonical form</h2>
 * Requirements are kept sorted by key (stable, so equal keys keep their order) and each requirement's values
 * sorted without duplicates. {@link #toString()} prints apimachinery's canonical string, e.g.
 * {@code app in (a,b),!foo,tier!=db}, and {@code parse(s.toString()).equals(s)} for every selector except
 * {@link #nothing()}. Two selectors are equal when their requirements are; {@code a=b} and {@code a==b} are
 * different (as in Go) though they match the same labels.
 */
public final class LabelSelector {

    private static final LabelSelector EVERYTHING = new LabelSelector(List.of(), false);
    private static final LabelSelector NOTHING = new LabelSelector(List.of(), true);

    private static final Comparator<Requirement> BY_KEY = (a, b) -> GoFormat.compare(a.key(), b.key());

    /** Sorted by key; equal keys in the order they were given. */
    private final List<Requirement> requirements;
    /** Only for {@link #NOTHING}: matches no labels at all. */
    private final boolean nothing;

    private LabelSelector(List<Requirement> requirements, boolean nothing) {
        this.requirements = requirements;
        this.nothing = nothing;
    }

    /**
     * Parses a selector in the {@code labelSelector=} syntax; {@code ""} (or only whitespace) selects everything.
     *
     * @throws SelectorParseException with apimachinery's message, e.g.
     *     {@code unable to parse requirement: found '', expected: identifier}
     */
    public static LabelSelector parse(String selector) {
        Objects.requireNonNull(selector, "selector");
        return of(LabelSelectorParser.parse(selector));
    }

    /** The selector that matches every label set ({@code labels.Everything()}); its string is {@code ""}. */
    public static LabelSelector everything() {
        return EVERYTHING;
    }

    /**
     * The selector that matches nothing ({@code labels.Nothing()}), what a {@code null} metav1 selector means.
     * Its string is {@code ""} as in Go, so it is the one selector that does not survive a round trip through
     * {@link #toString()}.
     */
    public static LabelSelector nothing() {
        return NOTHING;
    }

    /**
     * The selector {@code k1=v1,k2=v2,...} that matches label sets containing all of {@code labels}
     * ({@code labels.ValidatedSelectorFromSet}); an empty map selects everything.
     *
     * @throws SelectorParseException when a key or value is not a valid label key or value
     */
    public static LabelSelector equalTo(Map<String, String> labels) {
        List<Requirement> requirements = new ArrayList<>(labels.size());
        new TreeMap<>(labels).forEach((k, v) -> requirements.add(new Requirement(k, Operator.EQUALS, v)));
        return of(requirements);
    }

    /** The selector made of {@code requirements}, ANDed; none selects everything. */
    public static LabelSelector of(Collection<Requirement> requirements) {
        if (requirements.isEmpty()) {
            return EVERYTHING;
        }
        List<Requirement> sorted = new ArrayList<>(requirements);
        sorted.forEach(r -> Objects.requireNonNull(r, "requirement"));
        sorted.sort(BY_KEY);
        return new LabelSelector(List.copyOf(sorted), false);
    }

    /**
     * Converts a metav1 {@code LabelSelector} ({@code matchLabels} and {@code matchExpressions}) as
     * {@code metav1.LabelSelectorAsSelector} does: {@code null} selects nothing, an empty selector everything.
     *
     * @throws SelectorParseException with apimachinery's message for an unknown operator
     *     ({@code "Foo" is not a valid label selector operator}), {@code In}/{@code NotIn} without values,
     *     {@code Exists}/{@code DoesNotExist} with values, or an invalid key or value
     */
    public static LabelSelector fromLabelSelector(io.fabric8.kubernetes.api.model.LabelSelector selector) {
        if (selector == null) {
            return NOTHING;
        }
        Map<String, String> matchLabels = selector.getMatchLabels() == null ? Map.of() : selector.getMatchLabels();
        var expressions = selector.getMatchExpressions() == null
                ? List.<io.fabric8.kubernetes.api.model.LabelSelectorRequirement>of()
                : selector.getMatchExpressions();
        List<Requirement> requirements = new ArrayList<>(matchLabels.size() + expressions.size());
        // Go walks a map here; sorting makes the first error reported deterministic.
        Map<String, String> sortedLabels = new TreeMap<>();
        matchLabels.forEach((k, v) -> sortedLabels.put(nullToEmpty(k), nullToEmpty(v)));
        sortedLabels.forEach((k, v) -> requirements.add(new Requirement(k, Operator.EQUALS, v)));
        for (var expression : expressions) {
            String operator = nullToEmpty(expression.getOperator());
            Operator op =
                    switch (operator) {
                        case "In" -> Operator.IN;
                        case "NotIn" -> Operator.NOT_IN;
                        case "Exists" -> Operator.EXISTS;
                        case "DoesNotExist" -> Operator.DOES_NOT_EXIST;
                        default ->
                            throw new SelectorParseException(
                                    GoFormat.quote(operator) + " is not a valid label selector operator");
                    };
            List<String> values = expression.getValues();
            // Go copies the values with append([]string(nil), ...): none at all is a nil slice.
            List<String> copy = values == null || values.isEmpty()
                    ? null
                    : values.stream().map(LabelSelector::nullToEmpty).toList();
            requirements.add(new Requirement(nullToEmpty(expression.getKey()), op, copy));
        }
        return of(requirements);
    }

    private static String nullToEmpty(String s) {
        return s == null ? "" : s;
    }

    /** Whether every requirement holds for {@code labels}; {@code null} means no labels. */
    public boolean matches(Map<String, String> labels) {
        if (nothing) {
            return false;
        }
        Map<String, String> ls = labels == null ? Map.of() : labels;
        for (Requirement r : requirements) {
            if (!r.matches(ls)) {
                return false;
            }
        }
        return true;
    }

    /** Whether this selector selects everything ({@code Empty()} in Go); false for {@link #nothing()}. */
    public boolean isEverything() {
        return requirements.isEmpty() && !nothing;
    }

    /** The requirements, sorted by key; empty for {@link #everything()} and {@link #nothing()}. */
    public List<Requirement> requirements() {
        return requirements;
    }

    /** apimachinery's canonical string: the requirements' strings, sorted by key, joined by {@code ,}. */
    @Override
    public String toString() {
        StringBuilder b = new StringBuilder();
        for (Requirement r : requirements) {
            if (!b.isEmpty()) {
                b.append(',');
            }
            r.appendTo(b);
        }
        return b.toString();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof LabelSelector other && nothing == other.nothing && requirements.equals(other.requirements);
    }

    @Override
    public int hashCode() {
        return requirements.hashCode() * 31 + Boolean.hashCode(nothing);
    }

    /** How a requirement relates a label's value to its values ({@code selection.Operator}). */
    public enum Operator {
        /** {@code k=v}: the key is present with value {@code v}. */
        EQUALS,
        /** {@code k==v}: as {@link #EQUALS}, and printed as {@code ==}. */
        DOUBLE_EQUALS,
        /** {@code k!=v}: the key is absent or has another value. */
        NOT_EQUALS,
        /** {@code k in (a,b)}: the key is present with one of the values. */
        IN,
        /** {@code k notin (a,b)}: the key is absent or has none of the values. */
        NOT_IN,
        /** {@code k}: the key is present. */
        EXISTS,
        /** {@code !k}: the key is absent. */
        DOES_NOT_EXIST,
        /** {@code k>n}: the key is present with an integer value greater than {@code n}. */
        GREATER_THAN,
        /** {@code k<n}: the key is present with an integer value less than {@code n}. */
        LESS_THAN
    }

    /**
     * One requirement: a key, an operator and its values (sorted, without duplicates). Constructing one
     * validates it as {@code labels.NewRequirement} does, so every instance is valid:
     * <ul>
     *   <li>{@code IN}, {@code NOT_IN}: at least one value;</li>
     *   <li>{@code EQUALS}, {@code DOUBLE_EQUALS}, {@code NOT_EQUALS}: exactly one value;</li>
     *   <li>{@code EXISTS}, {@code DOES_NOT_EXIST}: no values;</li>
     *   <li>{@code GREATER_THAN}, {@code LESS_THAN}: exactly one value, a 64-bit integer;</li>
     *   <li>a valid label key, and valid label values.</li>
     * </ul>
     *
     * @param key the label key
     * @param operator the operator
     * @param values the values; {@code null} stands for Go's nil slice (it only changes the error message)
     * @throws SelectorParseException with apimachinery's message, e.g.
     *     {@code values: Invalid value: []string{}: for 'in', 'notin' operators, values set can't be empty}
     */
    public record Requirement(String key, Operator operator, List<String> values) {

        public Requirement {
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(operator, "operator");
            boolean nil = values == null;
            List<String> given = nil ? List.of() : List.copyOf(values);
            String error = validate(key, operator, given, nil);
            if (error != null) {
                throw new SelectorParseException(error);
            }
            TreeSet<String> sorted = new TreeSet<>(GoFormat::compare);
            sorted.addAll(given);
            values = List.copyOf(sorted);
        }

        /** A requirement with the given values, e.g. {@code new Requirement("env", Operator.IN, "prod", "staging")}. */
        public Requirement(String key, Operator operator, String... values) {
            this(key, operator, Arrays.asList(values));
        }

        /** {@code labels.NewRequirement}'s checks, in its order; its aggregated message, or null when valid. */
        private static String validate(String key, Operator op, List<String> vals, boolean nil) {
            List<String> errs = new ArrayList<>();
            List<String> keyErrors = LabelValidation.labelKeyErrors(key);
            if (!keyErrors.isEmpty()) {
                errs.add(GoFormat.invalid("key", GoFormat.quote(key), String.join("; ", keyErrors)));
            }
            switch (op) {
                case IN, NOT_IN -> {
                    if (vals.isEmpty()) {
                        errs.add(GoFormat.invalid(
                                "values",
                                GoFormat.stringSlice(vals, nil),
                                "for 'in', 'notin' operators, values set can't be empty"));
                    }
                }
                case EQUALS, DOUBLE_EQUALS, NOT_EQUALS -> {
                    if (vals.size() != 1) {
                        errs.add(GoFormat.invalid(
                                "values",
                                GoFormat.stringSlice(vals, nil),
                                "exact-match compatibility requires one single value"));
                    }
                }
                case EXISTS, DOES_NOT_EXIST -> {
                    if (!vals.isEmpty()) {
                        errs.add(GoFormat.invalid(
                                "values",
                                GoFormat.stringSlice(vals, nil),
                                "values set must be empty for exists and does not exist"));
                    }
                }
                case GREATER_THAN, LESS_THAN -> {
                    if (vals.size() != 1) {
                        errs.add(GoFormat.invalid(
                                "values",
                                GoFormat.stringSlice(vals, nil),
                                "for 'Gt', 'Lt' operators, exactly one value is required"));
                    }
                    for (int i = 0; i < vals.size(); i++) {
                        if (parseInteger(vals.get(i)) == null) {
                            errs.add(GoFormat.invalid(
                                    "values[" + i + "]",
                                    GoFormat.quote(vals.get(i)),
                                    "for 'Gt', 'Lt' operators, the value must be an integer"));
                        }
                    }
                }
            }
            for (int i = 0; i < vals.size(); i++) {
                List<String> valueErrors = LabelValidation.labelValueErrors(vals.get(i));
                if (!valueErrors.isEmpty()) {
                    errs.add(GoFormat.invalid(
                            "values[" + i + "][" + key + "]",
                            GoFormat.quote(vals.get(i)),
                            String.join("; ", valueErrors)));
                }
            }
            return GoFormat.aggregate(errs);
        }

        private static Long parseInteger(String s) {
            try {
                return GoFormat.parseInt64(s);
            } catch (NumberFormatException e) {
                return null;
            }
        }

        /** Whether this requirement holds for {@code labels} ({@code null} means no labels). */
        public boolean matches(Map<String, String> labels) {
            Map<String, String> ls = labels == null ? Map.of() : labels;
            boolean has = ls.containsKey(key);
            return switch (operator) {
                case IN, EQUALS, DOUBLE_EQUALS -> has && values.contains(nullToEmpty(ls.get(key)));
                case NOT_IN, NOT_EQUALS -> !has || !values.contains(nullToEmpty(ls.get(key)));
                case EXISTS -> has;
                case DOES_NOT_EXIST -> !has;
                case GREATER_THAN, LESS_THAN -> {
                    if (!has) {
                        yield false;
                    }
                    Long actual = parseInteger(nullToEmpty(ls.get(key)));
                    if (actual == null) {
                        yield false;
                    }
                    long bound = GoFormat.parseInt64(values.get(0));
                    yield operator == Operator.GREATER_THAN ? actual > bound : actual < bound;
                }
            };
        }

        /** apimachinery's string of this requirement, e.g. {@code env in (prod,staging)} or {@code !canary}. */
        @Override
        public String toString() {
            StringBuilder b = new StringBuilder();
            appendTo(b);
            return b.toString();
        }

        void appendTo(StringBuilder b) {
            if (operator == Operator.DOES_NOT_EXIST) {
                b.append('!');
            }
            b.append(key);
            switch (operator) {
                case EQUALS -> b.append('=').append(values.get(0));
                case DOUBLE_EQUALS -> b.append("==").append(values.get(0));
                case NOT_EQUALS -> b.append("!=").append(values.get(0));
                case GREATER_THAN -> b.append('>').append(values.get(0));
                case LESS_THAN -> b.append('<').append(values.get(0));
                case IN -> b.append(" in (").append(String.join(",", values)).append(')');
                case NOT_IN ->
                    b.append(" notin (").append(String.join(",", values)).append(')');
                case EXISTS, DOES_NOT_EXIST -> {}
            }
        }
    }
}
