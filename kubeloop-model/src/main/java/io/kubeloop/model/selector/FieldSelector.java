package io.kubeloop.model.selector;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * A Kubernetes field selector: equality requirements on an object's selectable fields, all of which must
 * hold. Immutable and thread-safe; the exact semantics of apimachinery's {@code fields.Selector}.
 *
 * <h2>Syntax</h2>
 * {@link #parse(String)} reads the {@code fieldSelector=} query parameter: comma-separated terms
 * {@code field=value}, {@code field==value} or {@code field!=value}, ANDed. In a value, {@code \,}, {@code \=}
 * and {@code \\} stand for a literal comma, equals sign and backslash; any other backslash sequence, and an
 * unescaped {@code =}, are errors. Nothing is trimmed: {@code a = b} is the field {@code "a "} with the value
 * {@code " b"}. The field name is not escaped and is split at the first operator. A term with an empty field
 * and an empty value ({@code =}) is dropped, as Go's parse does; {@code ""} selects everything.
 *
 * <h2>Matching</h2>
 * {@link #matches(Function)} asks for the object's value of each field; an absent field ({@code null}) compares
 * as the empty string, as with apimachinery's {@code fields.Set}. So {@code spec.nodeName=} selects pods that
 * are not scheduled, and {@code f!=x} holds when {@code f} is absent. Which fields a resource has, and their
 * values, come from {@link SelectableFields}.
 *
 * <h2>Canonical form</h2>
 * Requirements are kept sorted by their term string ({@code field=escapedValue}, Go's byte order), which is
 * Go's order for every input without {@code ==} (Go sorts the raw terms and prints {@code ==} as {@code =}).
 * {@link #toString()} prints them joined by {@code ,} with values escaped, and {@code parse(s.toString())}
 * equals {@code s} for every selector whose fields contain none of {@code , = \} nor {@code !=}.
 */
public final class FieldSelector {

    private static final FieldSelector EVERYTHING = new FieldSelector(List.of());

    private static final Comparator<Requirement> BY_TERM = (a, b) -> GoFormat.compare(a.toString(), b.toString());

    private final List<Requirement> requirements;

    private FieldSelector(List<Requirement> requirements) {
        this.requirements = requirements;
    }

    /**
     * Parses a selector in the {@code fieldSelector=} syntax; {@code ""} selects everything.
     *
     * @throws SelectorParseException with apimachinery's message, e.g.
     *     {@code invalid selector: 'a'; can't understand 'a'} or
     *     {@code invalid field selector: invalid escape sequence: \x}
     */
    public static FieldSelector parse(String selector) {
        Objects.requireNonNull(selector, "selector");
        List<String> parts = splitTerms(selector);
        parts.sort(GoFormat::compare);
        List<Requirement> requirements = new ArrayList<>(parts.size());
        for (String part : parts) {
            if (part.isEmpty()) {
                continue;
            }
            Requirement requirement = parseTerm(selector, part);
            if (!requirement.field().isEmpty() || !requirement.value().isEmpty()) {
                requirements.add(requirement);
            }
        }
        return of(requirements);
    }

    /** The selector that matches every object; its string is {@code ""}. */
    public static FieldSelector everything() {
        return EVERYTHING;
    }

    /** The selector {@code field=value} ({@code fields.OneTermEqualSelector}). */
    public static FieldSelector equalTo(String field, String value) {
        return of(List.of(new Requirement(field, Operator.EQUALS, value)));
    }

    /** The selector made of {@code requirements}, ANDed; none selects everything. */
    public static FieldSelector of(Collection<Requirement> requirements) {
        if (requirements.isEmpty()) {
            return EVERYTHING;
        }
        List<Requirement> sorted = new ArrayList<>(requirements);
        sorted.forEach(r -> Objects.requireNonNull(r, "requirement"));
        sorted.sort(BY_TERM);
        return new FieldSelector(List.copyOf(sorted));
    }

    /**
     * Whether every requirement holds for an object.
     *
     * @param fieldValue the object's value of a field, or {@code null} when it has none (compares as {@code ""})
     */
    public boolean matches(Function<String, String> fieldValue) {
        for (Requirement r : requirements) {
            if (!r.matches(fieldValue.apply(r.field()))) {
                return false;
            }
        }
        return true;
    }

    /** Whether this selector selects everything (Go's {@code Empty()}). */
    public boolean isEverything() {
        return requirements.isEmpty();
    }

    /** The requirements, in canonical order. */
    public List<Requirement> requirements() {
        return requirements;
    }

    /**
     * The value {@code field} must equal, if a requirement {@code field=value} says so (Go's
     * {@code RequiresExactMatch}); for example turns {@code metadata.name=x} into a get or watch of one object.
     *
     * @return the value of the first such requirement, or {@code null} when there is none
     */
    public String requiresExactMatch(String field) {
        for (Requirement r : requirements) {
            if (r.operator() == Operator.EQUALS && r.field().equals(field)) {
                return r.value();
            }
        }
        return null;
    }

    /** apimachinery's string: the terms, in canonical order, joined by {@code ,}, values escaped. */
    @Override
    public String toString() {
        StringBuilder b = new StringBuilder();
        for (Requirement r : requirements) {
            if (!b.isEmpty()) {
                b.append(',');
            }
            b.append(r);
        }
        return b.toString();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof FieldSelector other && requirements.equals(other.requirements);
    }

    @Override
    public int hashCode() {
        return requirements.hashCode();
    }

    /** {@code fields.EscapeValue}: prefixes {@code \}, {@code ,} and {@code =} with a backslash. */
    static String escapeValue(String value) {
        StringBuilder b = null;
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '\\' || c == ',' || c == '=') {
                if (b == null) {
                    b = new StringBuilder(value.length() + 8).append(value, 0, i);
                }
                b.append('\\');
            }
            if (b != null) {
                b.append(c);
            }
        }
        return b == null ? value : b.toString();
    }

    // ------------------------------------------------------------------------------------------------
    // Parsing, after fields/selector.go

    /** Splits at commas not preceded by an (unescaped) backslash; the backslashes stay in the terms. */
    private static List<String> splitTerms(String selector) {
        List<String> terms = new ArrayList<>();
        if (selector.isEmpty()) {
            return terms;
        }
        int start = 0;
        boolean inSlash = false;
        for (int i = 0; i < selector.length(); i++) {
            char c = selector.charAt(i);
            if (inSlash) {
                inSlash = false;
            } else if (c == '\\') {
                inSlash = true;
            } else if (c == ',') {
                terms.add(selector.substring(start, i));
                start = i + 1;
            }
        }
        terms.add(selector.substring(start));
        return terms;
    }

    /** Splits at the first {@code !=}, {@code ==} or {@code =} (tried in that order at each position). */
    private static Requirement parseTerm(String selector, String term) {
        for (int i = 0; i < term.length(); i++) {
            Operator op;
            int length;
            if (term.startsWith("!=", i)) {
                op = Operator.NOT_EQUALS;
                length = 2;
            } else if (term.startsWith("==", i)) {
                op = Operator.EQUALS;
                length = 2;
            } else if (term.charAt(i) == '=') {
                op = Operator.EQUALS;
                length = 1;
            } else {
                continue;
            }
            return new Requirement(term.substring(0, i), op, unescapeValue(term.substring(i + length)));
        }
        throw new SelectorParseException("invalid selector: '" + selector + "'; can't understand '" + term + "'");
    }

    /** {@code fields.UnescapeValue}. */
    private static String unescapeValue(String s) {
        if (s.indexOf('\\') < 0 && s.indexOf(',') < 0 && s.indexOf('=') < 0) {
            return s;
        }
        StringBuilder b = new StringBuilder(s.length());
        boolean inSlash = false;
        for (int i = 0; i < s.length(); ) {
            int c = s.codePointAt(i);
            i += Character.charCount(c);
            if (inSlash) {
                if (c != '\\' && c != ',' && c != '=') {
                    throw new SelectorParseException("invalid field selector: invalid escape sequence: "
                            + new StringBuilder().append('\\').appendCodePoint(c));
                }
                b.appendCodePoint(c);
                inSlash = false;
            } else if (c == '\\') {
                inSlash = true;
            } else if (c == ',' || c == '=') {
                // Go prints the rune with %v, i.e. as its number.
                throw new SelectorParseException("invalid field selector: unescaped character in value: " + c);
            } else {
                b.appendCodePoint(c);
            }
        }
        if (inSlash) {
            throw new SelectorParseException("invalid field selector: invalid escape sequence: \\");
        }
        return b.toString();
    }

    /** {@code =} (also written {@code ==}) or {@code !=}. */
    public enum Operator {
        /** {@code field=value} or {@code field==value}: the field's value is {@code value}. */
        EQUALS,
        /** {@code field!=value}: the field's value is not {@code value}. */
        NOT_EQUALS
    }

    /**
     * One requirement: a field path, an operator and a literal (unescaped) value.
     *
     * @param field the field path, e.g. {@code spec.nodeName}; printed as is
     * @param operator {@link Operator#EQUALS} or {@link Operator#NOT_EQUALS}
     * @param value the value, possibly empty; printed escaped
     */
    public record Requirement(String field, Operator operator, String value) {

        public Requirement {
            Objects.requireNonNull(field, "field");
            Objects.requireNonNull(operator, "operator");
            Objects.requireNonNull(value, "value");
        }

        /** Whether this requirement holds for an object whose value of the field is {@code actual} ({@code null}: absent). */
        public boolean matches(String actual) {
            String v = actual == null ? "" : actual;
            return (operator == Operator.EQUALS) == v.equals(value);
        }

        /** The term, e.g. {@code spec.nodeName=node\,1} or {@code status.phase!=Running}. */
        @Override
        public String toString() {
            return field + (operator == Operator.EQUALS ? "=" : "!=") + escapeValue(value);
        }
    }
}
