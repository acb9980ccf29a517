package io.kubeloop.demo;

import io.kubeloop.clock.Clock;
import io.kubeloop.demo.internal.scenario.DemoRun;
import io.kubeloop.demo.internal.scenario.Scenarios;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;

/**
 * {@code kubeloop demo}: the 3 a.m. incident of seed 000, end to end, on one machine. Starts an embedded cluster
 * with nodes, two instances of the {@link PodGuardian} operator (leader and standby), a {@link PodSet}, then plays
 * a scenario of faults — pods killed, a node failing, the operator's network cut, the watch history compacted, the
 * leader killed, a noisy neighbour — while a live view shows pods, queue, informer and leader, and ends with a
 * {@link DemoReport}: per incident, how long from the pod gone to the replacement Running, stage by stage.
 *
 * <pre>{@code
 * DemoReport report = Demo.builder().scenario("incident").speed(10).build().run();
 * System.out.print(report.toText());
 * System.exit(report.passed() ? 0 : 1);
 * }</pre>
 */
public final class Demo {

    /** The default scenario. */
    public static final String DEFAULT_SCENARIO = "incident";

    private final Settings settings;

    private Demo(Settings settings) {
        this.settings = settings;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The scenarios there are, by name, with one line each saying what they do, in the order to list them. */
    public static Map<String, String> scenarios() {
        return Scenarios.describe();
    }

    /**
     * Plays the scenario and returns its report; prints the live view and the steps to the builder's output as it
     * goes (not the report: the caller prints {@link DemoReport#toText()}).
     *
     * @throws IllegalArgumentException for an unknown scenario or settings the scenario cannot run with
     */
    public DemoReport run() throws InterruptedException {
        return new DemoRun(settings).run();
    }

    /**
     * What the builder collected.
     *
     * @param duration about how long the scenario runs, in real time (the cluster's time is {@code speed} times
     *     more)
     * @param seed the random seed: which pods are killed, which node fails; the same seed plays the same scenario
     * @param terminal refresh the live view in place (ANSI); false: plain lines, as for a pipe or a log
     * @param quiet no live view and no step lines; only the caller's report
     */
    public record Settings(
            Duration duration,
            long seed,
            double speed,
            int replicas,
            int nodes,
            String scenario,
            PrintStream out,
            boolean terminal,
            boolean quiet,
            Clock clock) {
        public Settings {
            Objects.requireNonNull(duration, "duration");
            Objects.requireNonNull(scenario, "scenario");
            Objects.requireNonNull(out, "out");
            Objects.requireNonNull(clock, "clock");
        }
    }

    /** Builds a {@link Demo}; the defaults are {@code kubeloop demo}'s. */
    public static final class Builder {
        private Duration duration = Duration.ofSeconds(60);
        private long seed = ThreadLocalRandom.current().nextLong(); // a seed, not a time: the report prints it
        private double speed = 10;
        private int replicas = 20;
        private int nodes = 3;
        private String scenario = DEFAULT_SCENARIO;
        private PrintStream out = System.out;
        private boolean terminal;
        private boolean quiet;
        private Clock clock = Clock.system();

        private Builder() {}

        /** About how long the scenario runs, in real time; default 60 s. */
        public Builder duration(Duration duration) {
            if (duration.isNegative() || duration.isZero()) {
                throw new IllegalArgumentException("duration must be positive, got " + duration);
            }
            this.duration = duration;
            return this;
        }

        /** The random seed; default: random (the report prints it, so a run can be replayed). */
        public Builder seed(long seed) {
            this.seed = seed;
            return this;
        }

        /** Seconds of cluster time per real second (the cluster's {@code --speed}); default 10. */
        public Builder speed(double speed) {
            if (!(speed > 0) || Double.isInfinite(speed)) {
                throw new IllegalArgumentException("speed must be a positive number, got " + speed);
            }
            this.speed = speed;
            return this;
        }

        /** The PodSet's replicas; default 20. */
        public Builder replicas(int replicas) {
            if (replicas < 1) {
                throw new IllegalArgumentException("replicas must be at least 1, got " + replicas);
            }
            this.replicas = replicas;
            return this;
        }

        /** The cluster's nodes; default 3 (the node-failure steps need at least 2). */
        public Builder nodes(int nodes) {
            if (nodes < 1) {
                throw new IllegalArgumentException("nodes must be at least 1, got " + nodes);
            }
            this.nodes = nodes;
            return this;
        }

        /** The scenario, one of {@link Demo#scenarios()}; default {@value #DEFAULT_SCENARIO}. */
        public Builder scenario(String scenario) {
            this.scenario = Objects.requireNonNull(scenario, "scenario");
            return this;
        }

        /** Where the live view and the steps go; default {@code System.out}. */
        public Builder out(PrintStream out) {
            this.out = Objects.requireNonNull(out, "out");
            return this;
        }

        /** Refresh the view in place with ANSI escapes (a terminal); default false: plain lines. */
        public Builder terminal(boolean terminal) {
            this.terminal = terminal;
            return this;
        }

        /** No live view and no step lines; default false. */
        public Builder quiet(boolean quiet) {
            this.quiet = quiet;
            return this;
        }

        /** The clock of the cluster, the operators and the report; default the system clock. */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        public Demo build() {
            if (!Scenarios.describe().containsKey(scenario)) {
                throw new IllegalArgumentException("unknown scenario '" + scenario + "'; the scenarios are: "
                        + String.join(", ", Scenarios.describe().keySet()));
            }
            return new Demo(
                    new Settings(duration, seed, speed, replicas, nodes, scenario, out, terminal, quiet, clock));
        }
    }
}
