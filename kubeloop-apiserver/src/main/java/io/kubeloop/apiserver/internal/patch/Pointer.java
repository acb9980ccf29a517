package io.kubeloop.apiserver.internal.patch;

import java.util.ArrayList;
import java.util.List;

/**
 * A JSON pointer (RFC 6901): {@code ""} is the whole document, otherwise {@code /}-separated reference
 * tokens in which {@code ~1} stands for {@code /} and {@code ~0} for {@code ~} (decoded in that order, so
 * {@code ~01} is {@code ~1}).
 *
 * @param text the pointer as written
 * @param tokens the decoded reference tokens
 */
record Pointer(String text, List<String> tokens) {

    Pointer {
        tokens = List.copyOf(tokens);
    }

    /** Parses a pointer; {@code null} if it is not one (not empty and not starting with {@code /}, bad escape). */
    static Pointer parse(String text) {
        if (text.isEmpty()) {
            return new Pointer(text, List.of());
        }
        if (text.charAt(0) != '/') {
            return null;
        }
        List<String> tokens = new ArrayList<>();
        StringBuilder token = new StringBuilder();
        for (int i = 1; i <= text.length(); i++) {
            if (i == text.length() || text.charAt(i) == '/') {
                tokens.add(token.toString());
                token.setLength(0);
                continue;
            }
            char c = text.charAt(i);
            if (c == '~') {
                if (i + 1 >= text.length()) {
                    return null;
                }
                char next = text.charAt(++i);
                if (next == '0') {
                    token.append('~');
                } else if (next == '1') {
                    token.append('/');
                } else {
                    return null;
                }
            } else {
                token.append(c);
            }
        }
        return new Pointer(text, tokens);
    }

    boolean isRoot() {
        return tokens.isEmpty();
    }

    Pointer parent() {
        return new Pointer(text.substring(0, text.lastIndexOf('/')), tokens.subList(0, tokens.size() - 1));
    }

    String last() {
        return tokens.get(tokens.size() - 1);
    }

    /** True if this pointer is a proper prefix of {@code other} (names an ancestor of what it names). */
    boolean isProperPrefixOf(Pointer other) {
        return other.tokens.size() > tokens.size()
                && other.tokens.subList(0, tokens.size()).equals(tokens);
    }

    /**
     * An array index token as RFC 6901 allows it: {@code 0} or digits without a leading zero; -1 otherwise
     * (including {@code -}, which callers check for themselves).
     */
    static int index(String token) {
        if (token.isEmpty() || token.length() > 9 || (token.length() > 1 && token.charAt(0) == '0')) {
            return -1;
        }
        for (int i = 0; i < token.length(); i++) {
            if (token.charAt(i) < '0' || token.charAt(i) > '9') {
                return -1;
            }
        }
        return Integer.parseInt(token);
    }

    @Override
    public String toString() {
        return text;
    }
}
