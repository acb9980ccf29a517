package io.kubeloop.cluster.internal.kubelet;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Go's {@code time.ParseDuration} and {@code Duration.String()}, for annotations and kubelet messages. */
final class GoDurations {

    private static final Pattern UNIT = Pattern.compile("(\\d+\\.?\\d*|\\.\\d+)(ns|us|µs|μs|ms|s|m|h)");

    private GoDurations() {}

    /**
     * Parses {@code 1m30s}, {@code 250ms}, {@code 1.5h}, {@code 0}; no sign.
     *
     * @throws IllegalArgumentException with Go's wording for anything else
     */
    static Duration parse(String text) {
        if (text == null) {
            throw new IllegalArgumentException("time: invalid duration \"\"");
        }
        String s = text.strip();
        if (s.equals("0")) {
            return Duration.ZERO;
        }
        if (s.isEmpty()) {
            throw new IllegalArgumentException("time: invalid duration \"" + text + "\"");
        }
        Matcher m = UNIT.matcher(s);
        int at = 0;
        BigDecimal nanos = BigDecimal.ZERO;
        while (at < s.length()) {
            if (!m.find(at) || m.start() != at) {
                throw new IllegalArgumentException("time: invalid duration \"" + text + "\"");
            }
            BigDecimal value = new BigDecimal(m.group(1).endsWith(".") ? m.group(1) + "0" : m.group(1));
            long unit =
                    switch (m.group(2)) {
                        case "ns" -> 1L;
                        case "us", "µs", "μs" -> 1_000L;
                        case "ms" -> 1_000_000L;
                        case "s" -> 1_000_000_000L;
                        case "m" -> 60_000_000_000L;
                        default -> 3_600_000_000_000L;
                    };
            nanos = nanos.add(value.multiply(BigDecimal.valueOf(unit)));
            at = m.end();
        }
        if (nanos.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) > 0) {
            throw new IllegalArgumentException("time: invalid duration \"" + text + "\"");
        }
        return Duration.ofNanos(nanos.longValue());
    }

    /** Go's {@code Duration.String()} for whole seconds and above: {@code 10s}, {@code 1m20s}, {@code 5m0s}. */
    static String format(Duration d) {
        long seconds = d.toSeconds();
        long h = seconds / 3600;
        long m = (seconds % 3600) / 60;
        long s = seconds % 60;
        if (h > 0) {
            return h + "h" + m + "m" + s + "s";
        }
        if (m > 0) {
            return m + "m" + s + "s";
        }
        return s + "s";
    }
}
