package io.kubeloop.demo.internal.scenario;

import io.kubeloop.demo.internal.scenario.Step.Kind;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The demo's scenarios by name, and their plans: where each step falls on the cluster's timeline.
 *
 * <p>A scenario is a sequence of phases. Each phase has steps at fixed offsets of cluster time (a network cut lasts
 * 30 s; a failed node stays down 120 s, long enough for the node monitor's 50 s grace period, the pods' 30 s
 * toleration and their eviction) and a minimum length. The phases of a scenario are laid end to end, each stretched
 * by the same factor so that they fill the run's cluster time ({@code duration × speed}); the offsets within a phase
 * are not stretched (the faults last what the story says, the pauses between them grow). A run shorter than the sum
 * of the minimum lengths is refused.
 */
public final class Scenarios {

    /** Pods killed by a kill-pods step (fewer when the PodSet is smaller). */
    static final int KILL = 3;
    /** The real time between two rounds of the {@code kill-pods} scenario. */
    static final Duration KILL_INTERVAL = Duration.ofSeconds(5);
    /** How long a failed node stays down, cluster time: 50 s grace + 5 s monitor + 30 s toleration + margin. */
    static final Duration NODE_DOWN = Duration.ofSeconds(120);
    /** How long the operator's network stays cut, cluster time (seed 001 §7.3). */
    static final Duration CUT = Duration.ofSeconds(30);

    private Scenarios() {}

    /** Name → one line on what it does, in listing order; the first is the default. */
    public static Map<String, String> describe() {
        Map<String, String> all = new LinkedHashMap<>();
        all.put("incident", "everything below, one after another: the seed's 3 a.m. incident");
        all.put("kill-pods", "random pods of the PodSet deleted, a few at a time, at rest (the latency benchmark)");
        all.put("node-failure", "a node's kubelet stops: NotReady, tainted, its pods evicted and replaced");
        all.put("network-cut", "the operator's connection to the API server cut for 30 s, pods killed meanwhile");
        all.put("relist", "the watch history compacted and the operator's watches dropped: 410, relist");
        all.put("failover", "the leader killed: the standby takes over the Lease");
        all.put("noisy-neighbour", "a burst of ConfigMap writes in another namespace while pods are killed");
        return all;
    }

    /** A stretch of a scenario: steps at fixed offsets from its start, and the least cluster time it needs. */
    private record Phase(Duration minimum, List<Step> steps) {}

    private static Phase killPhase() {
        return new Phase(Duration.ofSeconds(15), List.of(Step.kill(Duration.ZERO, KILL)));
    }

    private static Phase nodePhase() {
        return new Phase(
                NODE_DOWN.plusSeconds(10),
                List.of(new Step(Duration.ZERO, Kind.NODE_STOP, 0, NODE_DOWN), Step.of(NODE_DOWN, Kind.NODE_START)));
    }

    private static Phase cutPhase() {
        return new Phase(
                CUT.plusSeconds(15),
                List.of(
                        new Step(Duration.ZERO, Kind.NETWORK_CUT, 0, CUT),
                        Step.kill(Duration.ofSeconds(10), 2),
                        Step.of(CUT, Kind.NETWORK_RESTORE)));
    }

    private static Phase relistPhase() {
        return new Phase(
                Duration.ofSeconds(20),
                List.of(Step.of(Duration.ZERO, Kind.COMPACT), Step.kill(Duration.ofSeconds(2), 2)));
    }

    private static Phase failoverPhase() {
        // pods killed 5 s after the leader: nobody reconciles until the standby's lease wait (15 s) is over
        return new Phase(
                Duration.ofSeconds(40),
                List.of(Step.of(Duration.ZERO, Kind.LEADER_KILL), Step.kill(Duration.ofSeconds(5), 2)));
    }

    private static Phase noisyPhase() {
        return new Phase(
                Duration.ofSeconds(30),
                List.of(new Step(Duration.ZERO, Kind.NOISY_NEIGHBOUR, KILL, Duration.ofSeconds(20))));
    }

    private static List<Phase> phases(String name) {
        return switch (name) {
            case "incident" ->
                List.of(
                        killPhase(),
                        nodePhase(),
                        cutPhase(),
                        relistPhase(),
                        failoverPhase(),
                        noisyPhase(),
                        killPhase());
            case "node-failure" -> List.of(nodePhase());
            case "network-cut" -> List.of(cutPhase());
            case "relist" -> List.of(relistPhase());
            case "failover" -> List.of(failoverPhase());
            case "noisy-neighbour" -> List.of(noisyPhase());
            default -> throw unknown(name);
        };
    }

    /**
     * The least cluster time {@code name} needs.
     *
     * @throws IllegalArgumentException an unknown scenario
     */
    public static Duration minimum(String name) {
        if ("kill-pods".equals(name)) {
            return Duration.ofSeconds(10);
        }
        return phases(name).stream().map(Phase::minimum).reduce(Duration.ZERO, Duration::plus);
    }

    /**
     * Plans scenario {@code name} for a run of {@code duration} (real time) at {@code speed} on {@code nodes} nodes.
     *
     * @throws IllegalArgumentException an unknown scenario, a run too short for it (the message names the least
     *     duration at this speed), or too few nodes for a node failure
     */
    public static Scenario plan(String name, Duration duration, double speed, int nodes) {
        if (!describe().containsKey(name)) {
            throw unknown(name);
        }
        Duration length = Duration.ofNanos((long) (duration.toNanos() * speed));
        Duration minimum = minimum(name);
        if (length.compareTo(minimum) < 0) {
            Duration least = Duration.ofMillis((long) Math.ceil(minimum.toMillis() / speed));
            throw new IllegalArgumentException("scenario '" + name + "' needs at least " + seconds(minimum)
                    + " of cluster time (duration × speed), got " + seconds(length) + " (duration "
                    + seconds(duration) + " × speed " + number(speed) + "): give a duration of at least "
                    + seconds(least) + " at speed " + number(speed) + ", or a higher speed");
        }
        if ("kill-pods".equals(name)) {
            return new Scenario(name, length, killRounds(length, speed));
        }
        List<Phase> phases = phases(name);
        if (nodes < 2 && phases.stream().anyMatch(p -> p.steps().stream().anyMatch(s -> s.kind() == Kind.NODE_STOP))) {
            throw new IllegalArgumentException(
                    "scenario '" + name + "' fails a node: it needs at least 2 nodes, got " + nodes);
        }
        double stretch = (double) length.toNanos() / minimum.toNanos();
        List<Step> steps = new ArrayList<>();
        Duration start = Duration.ZERO;
        for (Phase phase : phases) {
            for (Step step : phase.steps()) {
                steps.add(step.shiftedBy(start));
            }
            start = start.plus(Duration.ofNanos((long) (phase.minimum().toNanos() * stretch)));
        }
        return new Scenario(name, length, steps);
    }

    /**
     * kill-pods: {@value #KILL} pods every {@link #KILL_INTERVAL} of real time (at least two rounds: the interval
     * shrinks to half the run when the run is shorter than two intervals), the first at once.
     */
    private static List<Step> killRounds(Duration length, double speed) {
        Duration interval = Duration.ofNanos((long) (KILL_INTERVAL.toNanos() * speed));
        if (length.compareTo(interval.multipliedBy(2)) < 0) {
            interval = length.dividedBy(2);
        }
        long rounds = length.toNanos() / interval.toNanos();
        List<Step> steps = new ArrayList<>();
        for (long i = 0; i < rounds; i++) {
            steps.add(Step.kill(interval.multipliedBy(i), KILL));
        }
        return steps;
    }

    private static IllegalArgumentException unknown(String name) {
        return new IllegalArgumentException("unknown scenario '" + name + "'; the scenarios are: "
                + String.join(", ", describe().keySet()));
    }

    static String seconds(Duration d) {
        return number(d.toMillis() / 1000.0) + " s";
    }

    private static String number(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : String.format(java.util.Locale.ROOT, "%.1f", v);
    }
}
