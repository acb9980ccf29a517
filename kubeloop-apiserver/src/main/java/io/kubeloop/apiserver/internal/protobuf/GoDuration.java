package io.kubeloop.apiserver.internal.protobuf;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Map;

/**
 * Go's {@code time.Duration} text form, which {@code meta/v1 Duration} uses in JSON: {@code format} is Go's
 * {@code Duration.String()} ({@code 1h0m0s}, {@code 1.5s}, {@code 300ms}, {@code 0s}), {@code parse} is Go's
 * {@code time.ParseDuration} (a sign, then numbers with optional fractions, each with a unit among ns, us, µs,
 * ms, s, m, h). A duration is a signed count of nanoseconds that fits in 64 bits.
 */
final class GoDuration {

    private static final Map<String, Long> UNITS = Map.of(
            "ns",
            1L,
            "us",
            1_000L,
            "µs",
            1_000L,
            "μs",
            1_000L,
            "ms",
            1_000_000L,
            "s",
            1_000_000_000L,
            "m",
            60_000_000_000L,
            "h",
            3_600_000_000_000L);

    private GoDuration() {}

    static String format(long nanos) {
        if (nanos == 0) {
            return "0s";
        }
        String sign = nanos < 0 ? "-" : "";
        BigInteger abs = BigInteger.valueOf(nanos).abs(); // Long.MIN_VALUE has no long absolute value
        BigInteger second = BigInteger.valueOf(1_000_000_000L);
        if (abs.compareTo(second) < 0) {
            long n = abs.longValueExact();
            if (n < 1_000) {
                return sign + n + "ns";
            }
            if (n < 1_000_000) {
                return sign + decimal(n, 3) + "µs";
            }
            return sign + decimal(n, 6) + "ms";
        }
        BigInteger[] hoursRest = abs.divideAndRemainder(BigInteger.valueOf(3_600_000_000_000L));
        BigInteger[] minutesRest = hoursRest[1].divideAndRemainder(BigInteger.valueOf(60_000_000_000L));
        String seconds = decimal(minutesRest[1].longValueExact(), 9) + "s";
        StringBuilder out = new StringBuilder(sign);
        if (hoursRest[0].signum() > 0) {
            out.append(hoursRest[0]).append('h').append(minutesRest[0]).append('m');
        } else if (minutesRest[0].signum() > 0) {
            out.append(minutesRest[0]).append('m');
        }
        return out.append(seconds).toString();
    }

    /** {@code value / 10^scale} without trailing zeros in the fraction, as Go prints it. */
    private static String decimal(long value, int scale) {
        return new BigDecimal(BigInteger.valueOf(value), scale)
                .stripTrailingZeros()
                .toPlainString();
    }

    /** @throws IllegalArgumentException if the text is not a Go duration or does not fit in 64 bits of nanoseconds */
    static long parse(String text) {
        String s = text;
        boolean negative = false;
        if (!s.isEmpty() && (s.charAt(0) == '-' || s.charAt(0) == '+')) {
            negative = s.charAt(0) == '-';
            s = s.substring(1);
        }
        if (s.equals("0")) {
            return 0;
        }
        if (s.isEmpty()) {
            throw new IllegalArgumentException("an empty duration");
        }
        BigDecimal total = BigDecimal.ZERO;
        int i = 0;
        while (i < s.length()) {
            int start = i;
            while (i < s.length() && (Character.isDigit(s.charAt(i)) || s.charAt(i) == '.')) {
                i++;
            }
            String number = s.substring(start, i);
            int unitStart = i;
            while (i < s.length() && !Character.isDigit(s.charAt(i)) && s.charAt(i) != '.') {
                i++;
            }
            Long unit = UNITS.get(s.substring(unitStart, i));
            if (number.isEmpty()
                    || number.equals(".")
                    || number.indexOf('.') != number.lastIndexOf('.')
                    || unit == null) {
                throw new IllegalArgumentException("not a duration such as 1h2m3.5s");
            }
            total = total.add(new BigDecimal(number).multiply(BigDecimal.valueOf(unit)));
        }
        BigInteger nanos = total.toBigInteger(); // Go truncates fractions of a nanosecond
        if (negative) {
            nanos = nanos.negate();
        }
        if (nanos.bitLength() > 63) {
            throw new IllegalArgumentException("a duration beyond 64 bits of nanoseconds");
        }
        return nanos.longValue();
    }
}
