package io.kubeloop.apiserver.internal.registry;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The schedule check of kube's CronJob validation: {@code cron.ParseStandard} of github.com/robfig/cron/v3 (five
 * fields: minute, hour, day of month, month, day of week; {@code *}, {@code ?}, lists, ranges, steps, month and
 * weekday names; the {@code @yearly}... descriptors and {@code @every <duration>}), answering that parser's error
 * text, which kube puts in its 422 ({@code expected exactly 5 fields, found 1: [foo]}).
 */
final class CronSchedule {

    private CronSchedule() {}

    private record Bounds(int min, int max, Map<String, Integer> names) {}

    private static final Map<String, Integer> MONTHS = Map.ofEntries(
            Map.entry("jan", 1),
            Map.entry("feb", 2),
            Map.entry("mar", 3),
            Map.entry("apr", 4),
            Map.entry("may", 5),
            Map.entry("jun", 6),
            Map.entry("jul", 7),
            Map.entry("aug", 8),
            Map.entry("sep", 9),
            Map.entry("oct", 10),
            Map.entry("nov", 11),
            Map.entry("dec", 12));
    private static final Map<String, Integer> DAYS =
            Map.of("sun", 0, "mon", 1, "tue", 2, "wed", 3, "thu", 4, "fri", 5, "sat", 6);

    private static final List<Bounds> FIELDS = List.of(
            new Bounds(0, 59, Map.of()),
            new Bounds(0, 23, Map.of()),
            new Bounds(1, 31, Map.of()),
            new Bounds(1, 12, MONTHS),
            new Bounds(0, 6, DAYS));

    private static final List<String> DESCRIPTORS =
            List.of("@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly");

    /** The parser's error for {@code spec}, or null when it parses. */
    static String error(String spec) {
        if (spec.isEmpty()) {
            return "empty spec string";
        }
        String s = spec;
        if (s.startsWith("TZ=") || s.startsWith("CRON_TZ=")) {
            int space = s.indexOf(' ');
            if (space < 0) {
                return "expected exactly 5 fields, found 0: []"; // robfig: the zone then nothing
            }
            s = s.substring(space).trim();
        }
        if (s.startsWith("@")) {
            return descriptor(s);
        }
        String[] fields = s.trim().split("\\s+");
        if (s.isBlank()) {
            fields = new String[0];
        }
        if (fields.length != 5) {
            return "expected exactly 5 fields, found " + fields.length + ": [" + String.join(" ", fields) + "]";
        }
        for (int i = 0; i < 5; i++) {
            String e = field(fields[i], FIELDS.get(i));
            if (e != null) {
                return e;
            }
        }
        return null;
    }

    private static String descriptor(String s) {
        if (DESCRIPTORS.contains(s)) {
            return null;
        }
        if (s.startsWith("@every ")) {
            String d = s.substring("@every ".length());
            if (!d.matches("([0-9]*(\\.[0-9]*)?(ns|us|µs|ms|s|m|h))+") || d.matches("[.a-zµ]*")) {
                return "failed to parse duration " + s + ": time: invalid duration \"" + d + "\"";
            }
            return null;
        }
        return "unrecognized descriptor: " + s;
    }

    private static String field(String field, Bounds bounds) {
        for (String expr : field.split(",", -1)) {
            String e = range(expr, bounds);
            if (e != null) {
                return e;
            }
        }
        return null;
    }

    /** robfig's {@code getRange}. */
    private static String range(String expr, Bounds r) {
        String[] rangeAndStep = expr.split("/", -1);
        String[] lowAndHigh = rangeAndStep[0].split("-", -1);
        boolean singleDigit = lowAndHigh.length == 1;
        int start;
        int end;
        if (lowAndHigh[0].equals("*") || lowAndHigh[0].equals("?")) {
            start = r.min;
            end = r.max;
        } else {
            Object low = parseIntOrName(lowAndHigh[0], r.names);
            if (low instanceof String err) {
                return err;
            }
            start = (Integer) low;
            switch (lowAndHigh.length) {
                case 1 -> end = start;
                case 2 -> {
                    Object high = parseIntOrName(lowAndHigh[1], r.names);
                    if (high instanceof String err) {
                        return err;
                    }
                    end = (Integer) high;
                }
                default -> {
                    return "too many hyphens: " + expr;
                }
            }
        }
        int step;
        switch (rangeAndStep.length) {
            case 1 -> step = 1;
            case 2 -> {
                Object parsed = mustParseInt(rangeAndStep[1]);
                if (parsed instanceof String err) {
                    return err;
                }
                step = (Integer) parsed;
                if (singleDigit) {
                    end = r.max; // "N/step" means N-max/step
                }
            }
            default -> {
                return "too many slashes: " + expr;
            }
        }
        if (start < r.min) {
            return "beginning of range (" + start + ") below minimum (" + r.min + "): " + expr;
        }
        if (end > r.max) {
            return "end of range (" + end + ") above maximum (" + r.max + "): " + expr;
        }
        if (start > end) {
            return "beginning of range (" + start + ") beyond end of range (" + end + "): " + expr;
        }
        if (step == 0) {
            return "step of range should be a positive number: " + expr;
        }
        return null;
    }

    private static Object parseIntOrName(String expr, Map<String, Integer> names) {
        Integer named = names.get(expr.toLowerCase(Locale.ROOT));
        return named != null ? named : mustParseInt(expr);
    }

    /** robfig's {@code mustParseInt}: an Integer, or the error text. */
    private static Object mustParseInt(String expr) {
        int n;
        try {
            n = Integer.parseInt(expr);
        } catch (NumberFormatException e) {
            return "failed to parse int from " + expr + ": strconv.Atoi: parsing \"" + expr + "\": "
                    + (expr.matches("[+-]?[0-9]+") ? "value out of range" : "invalid syntax");
        }
        if (n < 0) {
            return "negative number (" + n + ") not allowed: " + expr;
        }
        return n;
    }
}
