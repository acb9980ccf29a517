package io.kubeloop.bench;

import java.lang.management.ManagementFactory;
import java.util.Map;

/**
 * What a whole-process benchmark's measured JVM reports about itself, and its command-line and result helpers.
 * Uses the JDK only: it is loaded in every measured JVM, whatever that JVM's class path (the Java Operator SDK
 * peer runs on fabric8 7 and Jackson 2, without kubeloop's own modules).
 */
public final class ProcessMeasures {

    private ProcessMeasures() {}

    /** Heap in use after 4 × {@code System.gc()} (G1 collects fully on an explicit GC). */
    public static long usedAfterGc() {
        for (int i = 0; i < 4; i++) {
            System.gc();
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    /** CPU time of the whole process (every thread, the JIT and GC included), in nanoseconds. */
    public static long cpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    /** Nanoseconds as seconds, rounded to the millisecond. */
    public static double seconds(long nanos) {
        return Math.round(nanos / 1e6) / 1000.0;
    }

    /** The value after {@code name} in {@code args}, or {@code fallback}. */
    public static String arg(String[] args, String name, String fallback) {
        for (int i = 0; i < args.length - 1; i++) {
            if (args[i].equals(name)) {
                return args[i + 1];
            }
        }
        return fallback;
    }

    /** {@link #arg} as an int; accepts {@code 10_000} and {@code 10k}. */
    public static int intArg(String[] args, String name, int fallback) {
        String v = arg(args, name, null);
        return v == null ? fallback : Integer.parseInt(v.replace("_", "").replace("k", "000"));
    }

    /** Maps, numbers, booleans and strings as JSON; a string that starts with '{' is taken as JSON already. */
    public static String json(Object value) {
        if (value instanceof Map<?, ?> map) {
            StringBuilder sb = new StringBuilder("{");
            for (Map.Entry<?, ?> e : map.entrySet()) {
                if (sb.length() > 1) {
                    sb.append(',');
                }
                sb.append('"').append(e.getKey()).append("\":").append(json(e.getValue()));
            }
            return sb.append('}').toString();
        }
        if (value instanceof Number || value instanceof Boolean) {
            return value.toString();
        }
        if (value instanceof String s && s.startsWith("{")) {
            return s;
        }
        return "\"" + String.valueOf(value).replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }
}
