package io.kubeloop.model.selector;

import java.util.ArrayList;
import java.util.List;

/**
 * apimachinery's {@code util/validation} for label keys ({@code IsQualifiedName}), label values
 * ({@code IsValidLabelValue}) and DNS-1123 subdomains, with the messages of the 1.32 line.
 *
 * <p>The regular expressions are checked by hand (same language, no backtracking), so a huge selector in a
 * query string costs linear time. Lengths are UTF-8 byte lengths, as Go's {@code len}.
 */
final class LabelValidation {

    private LabelValidation() {}

    static final int QUALIFIED_NAME_MAX_LENGTH = 63;
    static final int LABEL_VALUE_MAX_LENGTH = 63;
    static final int DNS1123_SUBDOMAIN_MAX_LENGTH = 253;

    private static final String QUALIFIED_NAME_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
    private static final String QUALIFIED_NAME_ERR =
            "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
    private static final String LABEL_VALUE_FMT = "(" + QUALIFIED_NAME_FMT + ")?";
    private static final String LABEL_VALUE_ERR =
            "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
    private static final String DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
    private static final String DNS1123_SUBDOMAIN_FMT = DNS1123_LABEL_FMT + "(\\." + DNS1123_LABEL_FMT + ")*";
    private static final String DNS1123_SUBDOMAIN_ERR =
            "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";

    /** {@code validation.IsQualifiedName}: the problems with a label key, empty when it is valid. */
    static List<String> labelKeyErrors(String value) {
        List<String> errs = new ArrayList<>();
        String name;
        int slash = value.indexOf('/');
        if (slash < 0) {
            name = value;
        } else if (value.indexOf('/', slash + 1) < 0) {
            String prefix = value.substring(0, slash);
            name = value.substring(slash + 1);
            if (prefix.isEmpty()) {
                errs.add("prefix part " + emptyError());
            } else {
                for (String msg : dns1123SubdomainErrors(prefix)) {
                    errs.add("prefix part " + msg);
                }
            }
        } else {
            errs.add("a qualified name "
                    + regexError(QUALIFIED_NAME_ERR, QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc")
                    + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')");
            return errs;
        }
        if (name.isEmpty()) {
            errs.add("name part " + emptyError());
        } else if (GoFormat.byteLength(name) > QUALIFIED_NAME_MAX_LENGTH) {
            errs.add("name part " + maxLenError(QUALIFIED_NAME_MAX_LENGTH));
        }
        if (!isQualifiedNamePart(name)) {
            errs.add("name part " + regexError(QUALIFIED_NAME_ERR, QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc"));
        }
        return errs;
    }

    /** {@code validation.IsValidLabelValue}: the problems with a label value, empty when it is valid. */
    static List<String> labelValueErrors(String value) {
        List<String> errs = new ArrayList<>(2);
        if (GoFormat.byteLength(value) > LABEL_VALUE_MAX_LENGTH) {
            errs.add(maxLenError(LABEL_VALUE_MAX_LENGTH));
        }
        if (!value.isEmpty() && !isQualifiedNamePart(value)) {
            errs.add(regexError(LABEL_VALUE_ERR, LABEL_VALUE_FMT, "MyValue", "my_value", "12345"));
        }
        return errs;
    }

    /** {@code validation.IsDNS1123Subdomain}. */
    static List<String> dns1123SubdomainErrors(String value) {
        List<String> errs = new ArrayList<>(2);
        if (GoFormat.byteLength(value) > DNS1123_SUBDOMAIN_MAX_LENGTH) {
            errs.add(maxLenError(DNS1123_SUBDOMAIN_MAX_LENGTH));
        }
        if (!isDns1123Subdomain(value)) {
            errs.add(regexError(DNS1123_SUBDOMAIN_ERR, DNS1123_SUBDOMAIN_FMT, "example.com"));
        }
        return errs;
    }

    /** {@code ^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$}. */
    private static boolean isQualifiedNamePart(String s) {
        if (s.isEmpty() || !isAlphanumeric(s.charAt(0)) || !isAlphanumeric(s.charAt(s.length() - 1))) {
            return false;
        }
        for (int i = 1; i < s.length() - 1; i++) {
            char c = s.charAt(i);
            if (!isAlphanumeric(c) && c != '-' && c != '_' && c != '.') {
                return false;
            }
        }
        return true;
    }

    /** {@code ^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$}. */
    private static boolean isDns1123Subdomain(String s) {
        int start = 0;
        while (true) {
            int dot = s.indexOf('.', start);
            int end = dot < 0 ? s.length() : dot;
            if (!isDns1123Label(s, start, end)) {
                return false;
            }
            if (dot < 0) {
                return true;
            }
            start = dot + 1;
        }
    }

    private static boolean isDns1123Label(String s, int from, int to) {
        if (from >= to || !isLowerAlphanumeric(s.charAt(from)) || !isLowerAlphanumeric(s.charAt(to - 1))) {
            return false;
        }
        for (int i = from + 1; i < to - 1; i++) {
            char c = s.charAt(i);
            if (!isLowerAlphanumeric(c) && c != '-') {
                return false;
            }
        }
        return true;
    }

    private static boolean isAlphanumeric(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    }

    private static boolean isLowerAlphanumeric(char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    }

    private static String emptyError() {
        return "must be non-empty";
    }

    private static String maxLenError(int length) {
        return "must be no more than " + length + " characters";
    }

    /** {@code validation.RegexError}, including its doubled space before each {@code or}. */
    private static String regexError(String msg, String fmt, String... examples) {
        StringBuilder b = new StringBuilder(msg).append(" (e.g. ");
        for (int i = 0; i < examples.length; i++) {
            if (i > 0) {
                b.append(" or ");
            }
            b.append('\'').append(examples[i]).append("', ");
        }
        return b.append("regex used for validation is '")
                .append(fmt)
                .append("')")
                .toString();
    }
}
