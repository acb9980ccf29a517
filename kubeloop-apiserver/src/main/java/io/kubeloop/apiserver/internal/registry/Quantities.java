package io.kubeloop.apiserver.internal.registry;

import java.math.BigDecimal;

/**
 * kube's {@code resource.Quantity} strings ({@code 500m}, {@code 1Gi}, {@code 2e3}) read as exact decimals, for
 * comparing requests with limits and computing a pod's QoS class. Only reads: a string that is not a quantity is
 * {@code null} (the decoder, not validation, rejects it, as kube's does).
 */
final class Quantities {

    private Quantities() {}

    /** The value of {@code text}, or null when it is not a quantity. */
    static BigDecimal parse(String text) {
        int n = text.length();
        int i = 0;
        if (i < n && (text.charAt(i) == '+' || text.charAt(i) == '-')) {
            i++;
        }
        int digits = i;
        while (i < n && (Character.isDigit(text.charAt(i)) || text.charAt(i) == '.')) {
            i++;
        }
        if (i == digits) {
            return null;
        }
        BigDecimal number;
        try {
            number = new BigDecimal(text.substring(0, i));
        } catch (NumberFormatException e) {
            return null;
        }
        String suffix = text.substring(i);
        return switch (suffix) {
            case "" -> number;
            case "n" -> number.scaleByPowerOfTen(-9);
            case "u" -> number.scaleByPowerOfTen(-6);
            case "m" -> number.scaleByPowerOfTen(-3);
            case "k" -> number.scaleByPowerOfTen(3);
            case "M" -> number.scaleByPowerOfTen(6);
            case "G" -> number.scaleByPowerOfTen(9);
            case "T" -> number.scaleByPowerOfTen(12);
            case "P" -> number.scaleByPowerOfTen(15);
            case "E" -> number.scaleByPowerOfTen(18);
            case "Ki" -> number.multiply(BigDecimal.valueOf(1L << 10));
            case "Mi" -> number.multiply(BigDecimal.valueOf(1L << 20));
            case "Gi" -> number.multiply(BigDecimal.valueOf(1L << 30));
            case "Ti" -> number.multiply(BigDecimal.valueOf(1L << 40));
            case "Pi" -> number.multiply(BigDecimal.valueOf(1L << 50));
            case "Ei" -> number.multiply(BigDecimal.valueOf(1L << 60));
            default -> exponent(number, suffix);
        };
    }

    private static BigDecimal exponent(BigDecimal number, String suffix) {
        if (suffix.length() < 2 || (suffix.charAt(0) != 'e' && suffix.charAt(0) != 'E')) {
            return null;
        }
        try {
            int exp = Integer.parseInt(suffix.substring(1));
            return Math.abs(exp) > 100 ? null : number.scaleByPowerOfTen(exp);
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
