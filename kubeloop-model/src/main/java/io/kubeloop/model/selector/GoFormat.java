package io.kubeloop.model.selector;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The few pieces of Go's formatting and string semantics that apimachinery's messages and orderings depend
 * on: {@code strconv.Quote} ({@code %q}), {@code %#v} of a {@code []string}, byte-wise string order,
 * byte lengths, {@code strconv.ParseInt(s, 10, 64)}, and the text of {@code field.Error} and
 * {@code utilerrors.Aggregate}.
 */
final class GoFormat {

    private GoFormat() {}

    /** {@code strconv.Quote(s)}: double-quoted, with Go escapes for non-printable characters. */
    static String quote(String s) {
        StringBuilder b = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); ) {
            int cp = s.codePointAt(i);
            i += Character.charCount(cp);
            switch (cp) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case 0x07 -> b.append("\\a");
                case '\b' -> b.append("\\b");
                case '\f' -> b.append("\\f");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                case 0x0B -> b.append("\\v");
                default -> {
                    if (cp < 0x80) {
                        if (cp >= 0x20 && cp < 0x7F) {
                            b.append((char) cp);
                        } else {
                            b.append(String.format("\\x%02x", cp));
                        }
                    } else if (Character.isSurrogate((char) cp) && cp <= 0xFFFF) {
                        // A lone surrogate cannot come from UTF-8; Go would see the replacement character.
                        b.append('\uFFFD');
                    } else if (isPrint(cp)) {
                        b.appendCodePoint(cp);
                    } else if (cp < 0x10000) {
                        b.append(String.format("\\u%04x", cp));
                    } else {
                        b.append(String.format("\\U%08x", cp));
                    }
                }
            }
        }
        return b.append('"').toString();
    }

    /** Go's {@code unicode.IsPrint}: letters, marks, numbers, punctuation, symbols and the ASCII space. */
    private static boolean isPrint(int cp) {
        return switch (Character.getType(cp)) {
            case Character.SPACE_SEPARATOR,
                    Character.LINE_SEPARATOR,
                    Character.PARAGRAPH_SEPARATOR,
                    Character.CONTROL,
                    Character.FORMAT,
                    Character.PRIVATE_USE,
                    Character.SURROGATE,
                    Character.UNASSIGNED -> false;
            default -> true;
        };
    }

    /** {@code fmt.Sprintf("%#v", values)} of a {@code []string}: {@code []string{"a", "b"}} or {@code []string(nil)}. */
    static String stringSlice(List<String> values, boolean nil) {
        if (nil) {
            return "[]string(nil)";
        }
        StringBuilder b = new StringBuilder("[]string{");
        for (int i = 0; i < values.size(); i++) {
            if (i > 0) {
                b.append(", ");
            }
            b.append(quote(values.get(i)));
        }
        return b.append('}').toString();
    }

    /** The text of {@code field.Invalid(path, value, detail).Error()}; {@code value} is already formatted. */
    static String invalid(String path, String formattedValue, String detail) {
        return path + ": Invalid value: " + formattedValue + ": " + detail;
    }

    /**
     * The text of {@code field.ErrorList.ToAggregate().Error()}: one message alone, several (duplicates
     * removed) as {@code [a, b]}; {@code null} when there are none.
     */
    static String aggregate(List<String> messages) {
        if (messages.isEmpty()) {
            return null;
        }
        if (messages.size() == 1) {
            return messages.get(0);
        }
        Set<String> seen = new LinkedHashSet<>(messages);
        if (seen.size() == 1) {
            return seen.iterator().next();
        }
        return "[" + String.join(", ", seen) + "]";
    }

    /** Go's {@code len(s)}: the length of the UTF-8 encoding. */
    static int byteLength(String s) {
        int n = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                n++;
            } else {
                return s.getBytes(StandardCharsets.UTF_8).length;
            }
        }
        return n;
    }

    /** Go's string order ({@code a < b}): byte-wise on UTF-8, which is code-point order. */
    static int compare(String a, String b) {
        int i = 0;
        int j = 0;
        while (i < a.length() && j < b.length()) {
            int ca = a.codePointAt(i);
            int cb = b.codePointAt(j);
            if (ca != cb) {
                return Integer.compare(ca, cb);
            }
            i += Character.charCount(ca);
            j += Character.charCount(cb);
        }
        return Boolean.compare(i < a.length(), j < b.length());
    }

    /**
     * {@code strconv.ParseInt(s, 10, 64)}: an optional sign and ASCII decimal digits within the int64 range.
     *
     * @throws NumberFormatException when Go's would fail
     */
    static long parseInt64(String s) {
        int start = !s.isEmpty() && (s.charAt(0) == '+' || s.charAt(0) == '-') ? 1 : 0;
        if (start == s.length()) {
            throw new NumberFormatException(s);
        }
        for (int i = start; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                throw new NumberFormatException(s);
            }
        }
        return Long.parseLong(s);
    }
}
