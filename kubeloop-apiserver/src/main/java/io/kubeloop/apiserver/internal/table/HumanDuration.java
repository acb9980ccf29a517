package io.kubeloop.apiserver.internal.table;

import java.time.Duration;

/**
 * kube's {@code k8s.io/apimachinery/pkg/util/duration.HumanDuration}: a duration with about two or three
 * significant figures ({@code 45s}, {@code 3m12s}, {@code 25m}, {@code 5h10m}, {@code 2d3h}, {@code 1y30d}),
 * the format of every AGE column.
 */
final class HumanDuration {

    private HumanDuration() {}

    static String format(Duration d) {
        long seconds = d.getSeconds();
        if (seconds < 0 && d.getNano() > 0) {
            seconds++; // Go truncates toward zero; Duration.getSeconds floors
        }
        // A deviation of up to 2 s (excluded) is tolerated as clock skew: "almost now".
        if (seconds < -1) {
            return "<invalid>";
        } else if (seconds < 0) {
            return "0s";
        } else if (seconds < 60 * 2) {
            return seconds + "s";
        }
        long minutes = seconds / 60;
        if (minutes < 10) {
            long s = seconds % 60;
            return s == 0 ? minutes + "m" : minutes + "m" + s + "s";
        } else if (minutes < 60 * 3) {
            return minutes + "m";
        }
        long hours = seconds / 3600;
        if (hours < 8) {
            long m = minutes % 60;
            return m == 0 ? hours + "h" : hours + "h" + m + "m";
        } else if (hours < 48) {
            return hours + "h";
        } else if (hours < 24 * 8) {
            long h = hours % 24;
            return h == 0 ? hours / 24 + "d" : hours / 24 + "d" + h + "h";
        } else if (hours < 24 * 365 * 2) {
            return hours / 24 + "d";
        } else if (hours < 24 * 365 * 8) {
            long dy = hours / 24 % 365;
            return dy == 0 ? hours / 24 / 365 + "y" : hours / 24 / 365 + "y" + dy + "d";
        }
        return hours / 24 / 365 + "y";
    }
}
