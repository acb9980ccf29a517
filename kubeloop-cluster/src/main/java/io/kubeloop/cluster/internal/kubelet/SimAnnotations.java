package io.kubeloop.cluster.internal.kubelet;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What a pod's {@code sim.kubeloop.io/*} annotations ask of its simulated containers, read once when the kubelet
 * first sees the pod (as a real container's program is fixed when it starts). Durations are cluster time, in Go's
 * syntax; a value that does not parse is reported in {@link #problems()} and ignored.
 *
 * @param startDelay how long the sandbox and image pull take (the containers wait in {@code ContainerCreating})
 * @param initDuration how long each init container runs before it exits 0
 * @param runDuration how long a container runs before it exits, when it exits ({@code exit-code}, {@code crash-loop})
 * @param exitCode the code each run of the containers exits with, or null: they run until stopped
 * @param readyDelay how long after start a container becomes ready, or null: its readiness probe's
 *     {@code initialDelaySeconds} (0 without a probe)
 * @param neverReady the containers never become ready
 */
record SimAnnotations(
        Duration startDelay,
        Duration initDuration,
        Duration runDuration,
        Integer exitCode,
        Duration readyDelay,
        boolean neverReady,
        List<String> problems) {

    static final String PREFIX = "sim.kubeloop.io/";
    static final String START_DELAY = PREFIX + "start-delay";
    static final String INIT_DURATION = PREFIX + "init-duration";
    static final String RUN_DURATION = PREFIX + "run-duration";
    static final String EXIT_CODE = PREFIX + "exit-code";
    static final String CRASH_LOOP = PREFIX + "crash-loop";
    static final String READY_DELAY = PREFIX + "ready-delay";
    static final String NEVER_READY = PREFIX + "never-ready";

    static SimAnnotations of(Pod pod) {
        Map<String, String> a = pod.getMetadata().getAnnotations();
        if (a == null) {
            a = Map.of();
        }
        List<String> problems = new ArrayList<>();
        Duration startDelay = duration(a, START_DELAY, Duration.ZERO, problems);
        Duration initDuration = duration(a, INIT_DURATION, Duration.ZERO, problems);
        Duration runDuration = duration(a, RUN_DURATION, Duration.ZERO, problems);
        Duration readyDelay = duration(a, READY_DELAY, null, problems);
        Integer exitCode = null;
        String code = a.get(EXIT_CODE);
        if (code != null) {
            try {
                exitCode = Integer.parseInt(code.strip());
                if (exitCode < 0 || exitCode > 255) {
                    problems.add(EXIT_CODE + ": an exit code is 0 to 255, was " + code);
                    exitCode = null;
                }
            } catch (NumberFormatException e) {
                problems.add(EXIT_CODE + ": not an integer: \"" + code + "\"");
            }
        }
        if (exitCode == null && flag(a, CRASH_LOOP, problems)) {
            exitCode = 1;
        }
        boolean neverReady = flag(a, NEVER_READY, problems);
        return new SimAnnotations(
                startDelay, initDuration, runDuration, exitCode, readyDelay, neverReady, List.copyOf(problems));
    }

    /** The delay after start before {@code c} is ready. */
    Duration readyDelayOf(Container c) {
        if (readyDelay != null) {
            return readyDelay;
        }
        if (c.getReadinessProbe() != null && c.getReadinessProbe().getInitialDelaySeconds() != null) {
            return Duration.ofSeconds(Math.max(0, c.getReadinessProbe().getInitialDelaySeconds()));
        }
        return Duration.ZERO;
    }

    private static Duration duration(Map<String, String> a, String key, Duration fallback, List<String> problems) {
        String v = a.get(key);
        if (v == null) {
            return fallback;
        }
        try {
            return GoDurations.parse(v);
        } catch (IllegalArgumentException e) {
            problems.add(key + ": " + e.getMessage() + " (a Go duration such as 500ms, 10s or 1m30s)");
            return fallback;
        }
    }

    private static boolean flag(Map<String, String> a, String key, List<String> problems) {
        String v = a.get(key);
        if (v == null) {
            return false;
        }
        if (v.strip().equalsIgnoreCase("true")) {
            return true;
        }
        if (!v.strip().equalsIgnoreCase("false")) {
            problems.add(key + ": \"true\" or \"false\", was \"" + v + "\"");
        }
        return false;
    }
}
