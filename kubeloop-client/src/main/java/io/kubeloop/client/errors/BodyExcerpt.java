package io.kubeloop.client.errors;

import java.nio.charset.StandardCharsets;

/**
 * A bounded, printable excerpt of an untrusted response body or header, for error messages: at most
 * {@code maxChars} code points of the UTF-8 text (malformed bytes become U+FFFD), with backslash, quote,
 * control, format (bidi overrides, zero-width) and line-separator characters escaped, so that the excerpt
 * can neither forge log lines nor reorder the text around it.
 */
final class BodyExcerpt {

    /** How many characters of a body an error message shows. */
    static final int MAX_CHARS = 512;

    private BodyExcerpt() {}

    /** The excerpt of {@code body}, with a trailing {@code …} when it was cut. */
    static String of(byte[] body, int maxChars) {
        // A code point is at most 4 bytes: decoding more than that can only be thrown away.
        int take = (int) Math.min(body.length, (long) maxChars * 4);
        String text = new String(body, 0, take, StandardCharsets.UTF_8);
        return escape(text, maxChars, take < body.length);
    }

    /** The escaped first {@code maxChars} code points of {@code text}. */
    static String of(String text, int maxChars) {
        return escape(text, maxChars, false);
    }

    private static String escape(String text, int maxChars, boolean cut) {
        StringBuilder out = new StringBuilder(Math.min(text.length(), maxChars) + 16);
        int count = 0;
        int i = 0;
        while (i < text.length()) {
            if (count == maxChars) {
                cut = true;
                break;
            }
            int cp = text.codePointAt(i);
            i += Character.charCount(cp);
            count++;
            switch (cp) {
                case '\\' -> out.append("\\\\");
                case '"' -> out.append("\\\"");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (printable(cp)) {
                        out.appendCodePoint(cp);
                    } else {
                        out.append(String.format("\\u%04X", cp));
                    }
                }
            }
        }
        if (cut) {
            out.append('…');
        }
        return out.toString();
    }

    private static boolean printable(int cp) {
        if (Character.isISOControl(cp) || Character.isSurrogate((char) cp) && cp <= 0xFFFF) {
            return false;
        }
        int type = Character.getType(cp);
        return type != Character.FORMAT
                && type != Character.LINE_SEPARATOR
                && type != Character.PARAGRAPH_SEPARATOR
                && type != Character.UNASSIGNED
                && type != Character.PRIVATE_USE;
    }
}
