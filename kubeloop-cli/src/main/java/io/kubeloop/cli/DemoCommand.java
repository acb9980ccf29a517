package io.kubeloop.cli;

import io.kubeloop.demo.Demo;
import io.kubeloop.demo.DemoReport;
import io.kubeloop.demo.internal.scenario.Scenarios;
import java.io.Console;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code kubeloop demo}: seed 000's 3 a.m. incident on one machine ({@link Demo}): an embedded cluster, the
 * pod-guardian operator twice (leader and standby), a PodSet, a scenario of faults, a live view, then the recovery
 * report. Exit code 0 when the PodSet converged with nothing lost, 1 (with the reason on standard error) otherwise,
 * 2 for bad options, 130 when stopped (Ctrl-C; a JVM ended by SIGTERM reports 143).
 *
 * <p>Invariant: the banner is the first thing the command prints and it comes before any class of the cluster, the
 * API server or the operator is loaded, so that something shows within a second of the command; only the options'
 * checks (which need {@link Demo#scenarios()}) come before it. Everything goes to {@code System.out} as it is when the
 * command runs (the live view needs a {@link PrintStream}, picocli's out is a writer); errors to picocli's err.
 */
@Command(
        name = "demo",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Play seed 000's 3 a.m. incident on an embedded cluster: the pod-guardian operator (leader and standby) "
                    + "keeps a PodSet's pods running while pods are killed, a node fails, the operator's network is "
                    + "cut, the watch history is compacted, the leader is killed and a noisy neighbour writes; a live "
                    + "view shows it and a report says how long each recovery took, stage by stage.",
            "Exit code 0 when the PodSet converged with nothing lost, 1 otherwise (the reason on stderr).",
            "Scenarios: kubeloop demo --list-scenarios"
        })
final class DemoCommand implements Callable<Integer> {

    /** The exit code when Ctrl-C stopped the demo (128 + SIGINT, as a shell reports it). */
    static final int STOPPED = 130;
    /** slf4j-simple's setting of where the log goes. */
    private static final String LOG_FILE_PROPERTY = "org.slf4j.simpleLogger.logFile";
    /** How long the shutdown hook waits for the run to close its cluster. */
    private static final Duration STOP_WAIT = Duration.ofSeconds(20);

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(
            names = "--duration",
            paramLabel = "<duration>",
            converter = DurationConverter.class,
            defaultValue = "60s",
            description = "About how long the scenario runs, in real time: seconds (90), or with units (90s, 2m, "
                    + "1m30s, 500ms) (default: ${DEFAULT-VALUE}).")
    Duration duration;

    @Option(
            names = "--seed",
            paramLabel = "<long>",
            description = "The random seed: which pods die, which node fails; the report prints it, and the same "
                    + "seed plays the same scenario (default: random).")
    Long seed;

    @Option(
            names = "--speed",
            paramLabel = "<x>",
            defaultValue = "10",
            description = "Seconds of cluster time per real second: heartbeats, grace periods, tolerations and the "
                    + "scenario's schedule run this much faster; the operator runs at real speed (default: "
                    + "${DEFAULT-VALUE}).")
    double speed;

    @Option(
            names = "--replicas",
            paramLabel = "<n>",
            defaultValue = "20",
            description = "The PodSet's replicas (default: ${DEFAULT-VALUE}).")
    int replicas;

    @Option(
            names = "--nodes",
            paramLabel = "<n>",
            defaultValue = "3",
            description = "The cluster's simulated nodes (default: ${DEFAULT-VALUE}).")
    int nodes;

    @Option(
            names = "--scenario",
            paramLabel = "<name>",
            defaultValue = Demo.DEFAULT_SCENARIO,
            description = "What happens: incident (all of it), kill-pods, node-failure, network-cut, relist, "
                    + "failover, noisy-neighbour; 'list' lists them (default: ${DEFAULT-VALUE}).")
    String scenario;

    @Option(names = "--list-scenarios", description = "List the scenarios and exit.")
    boolean listScenarios;

    @Option(
            names = "--report",
            paramLabel = "<file>",
            description = "Also write the report as JSON to this file (its directory must exist).")
    Path report;

    @Option(names = "--quiet", description = "No live view and no step lines: only the report at the end.")
    boolean quiet;

    @Override
    public Integer call() {
        PrintStream out = System.out;
        if (listScenarios || "list".equals(scenario)) {
            out.print(scenarioTable());
            out.flush();
            return 0;
        }
        Demo.Builder builder = validate().out(out);
        out.println(banner());
        out.flush();
        Demo demo = builder.terminal(!quiet && interactiveTerminal()).build();
        Path log = logToFile();

        // Ctrl-C or SIGTERM: interrupt the run, which closes its cluster and operators, and wait (bounded) for that,
        // or the JVM would halt with the cluster's threads mid-close.
        Thread runner = Thread.currentThread();
        AtomicBoolean stopping = new AtomicBoolean();
        CountDownLatch done = new CountDownLatch(1);
        Thread hook = new Thread(
                () -> {
                    stopping.set(true);
                    runner.interrupt();
                    try {
                        done.await(STOP_WAIT.toMillis(), TimeUnit.MILLISECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                },
                "kubeloop-demo-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            DemoReport result;
            try {
                result = demo.run();
            } catch (InterruptedException e) {
                out.flush();
                spec.commandLine()
                        .getErr()
                        .println("kubeloop demo: stopped" + (log == null ? "" : "; its log: " + log));
                spec.commandLine().getErr().flush();
                return STOPPED;
            } catch (IllegalArgumentException e) {
                // Settings the scenario cannot run with (Demo.run's contract): the user's options, so a usage error.
                throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage(), e);
            }
            out.print(result.toText());
            if (log != null) {
                out.println("log of the cluster and the operators: " + log);
            }
            out.flush();
            if (report != null) {
                writeReport(result);
            }
            if (stopping.get()) {
                spec.commandLine().getErr().println("kubeloop demo: stopped");
                spec.commandLine().getErr().flush();
                return STOPPED;
            }
            if (!result.passed()) {
                spec.commandLine().getErr().println("kubeloop demo: failed: " + result.reason());
                spec.commandLine().getErr().flush();
                return 1;
            }
            return 0;
        } finally {
            done.countDown();
            if (!stopping.get()) {
                try {
                    Runtime.getRuntime().removeShutdownHook(hook);
                } catch (IllegalStateException shuttingDown) {
                    // the JVM is exiting through the hook
                }
            }
        }
    }

    /**
     * Sends the log (slf4j-simple: the cluster's, the API server's and the operators' INFO and WARN lines, many of
     * them while faults are injected) to a temporary file instead of standard error, where it would tear the live
     * view and bury the report. Not when the user chose a target ({@code -Dorg.slf4j.simpleLogger.logFile=System.err}
     * in {@code KUBELOOP_JAVA_OPTS}), and without effect once something logged in this JVM (slf4j-simple reads its
     * settings once).
     *
     * @return the file, or null when the log goes where it went
     */
    private static Path logToFile() {
        if (System.getProperty(LOG_FILE_PROPERTY) != null) {
            return null;
        }
        try {
            Path file = Files.createTempFile("kubeloop-demo-", ".log");
            System.setProperty(LOG_FILE_PROPERTY, file.toString());
            return file;
        } catch (IOException | RuntimeException e) {
            return null; // no temporary folder: the log stays on standard error
        }
    }

    /**
     * Checks the options that picocli's types do not: ranges, the scenario's name, the report's directory, and what
     * the scenario needs (its plan: a run long enough at this speed, enough nodes). Cheap: no cluster class is
     * loaded.
     *
     * @return a builder with the options (not yet the terminal), which has built once
     * @throws CommandLine.ParameterException naming the option
     */
    Demo.Builder validate() {
        CommandLine cmd = spec.commandLine();
        if (!(speed > 0) || Double.isInfinite(speed)) {
            throw new CommandLine.ParameterException(cmd, "--speed must be a positive number, was " + speed);
        }
        if (replicas < 1) {
            throw new CommandLine.ParameterException(cmd, "--replicas must be at least 1, was " + replicas);
        }
        if (nodes < 1) {
            throw new CommandLine.ParameterException(cmd, "--nodes must be at least 1, was " + nodes);
        }
        Map<String, String> scenarios = Demo.scenarios();
        if (!scenarios.containsKey(scenario)) {
            throw new CommandLine.ParameterException(
                    cmd,
                    "--scenario: unknown scenario '" + scenario + "'; the scenarios are "
                            + String.join(", ", scenarios.keySet()) + " (kubeloop demo --list-scenarios)");
        }
        if (report != null) {
            Path file = report.toAbsolutePath();
            Path dir = file.getParent();
            if (dir == null || !Files.isDirectory(dir)) {
                throw new CommandLine.ParameterException(
                        cmd, "--report " + report + ": the directory " + dir + " does not exist");
            }
            if (Files.isDirectory(file)) {
                throw new CommandLine.ParameterException(cmd, "--report " + report + " is a directory, not a file");
            }
            if (!Files.isWritable(dir) || (Files.exists(file) && !Files.isWritable(file))) {
                throw new CommandLine.ParameterException(cmd, "--report " + report + " cannot be written");
            }
        }
        Demo.Builder builder = Demo.builder()
                .duration(duration)
                .speed(speed)
                .replicas(replicas)
                .nodes(nodes)
                .scenario(scenario)
                .quiet(quiet);
        if (seed != null) {
            builder.seed(seed);
        }
        try {
            builder.build();
            // What Demo.run() refuses before it starts (too short a run for the scenario, too few nodes), asked here
            // so that the refusal comes instead of the banner, not after it.
            Scenarios.plan(scenario, duration, speed, nodes);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(cmd, e.getMessage(), e);
        }
        return builder;
    }

    /** {@code kubeloop demo: scenario incident, 3 nodes, 20 replicas, speed 10 (about 60 s); Ctrl-C stops it}. */
    String banner() {
        return "kubeloop demo: scenario " + scenario + ", " + nodes + " node" + (nodes == 1 ? "" : "s") + ", "
                + replicas + " replica" + (replicas == 1 ? "" : "s") + ", speed " + number(speed) + " (about "
                + seconds(duration) + "); Ctrl-C stops it";
    }

    /** The scenarios, one a line: name, then what it does, the default marked. */
    static String scenarioTable() {
        Map<String, String> scenarios = Demo.scenarios();
        int width = "SCENARIO".length();
        for (String name : scenarios.keySet()) {
            width = Math.max(width, name.length());
        }
        StringBuilder table = new StringBuilder();
        table.append(pad("SCENARIO", width)).append("  WHAT HAPPENS\n");
        for (Map.Entry<String, String> e : scenarios.entrySet()) {
            table.append(pad(e.getKey(), width))
                    .append("  ")
                    .append(e.getValue())
                    .append(Demo.DEFAULT_SCENARIO.equals(e.getKey()) ? " (default)" : "")
                    .append('\n');
        }
        return table.toString();
    }

    private void writeReport(DemoReport result) {
        try {
            Files.writeString(report, result.toJson(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException("cannot write the report to " + report + ": " + e.getMessage(), e);
        }
    }

    /**
     * Whether the live view may refresh in place: standard input and output are a terminal ({@link Console}; on Java
     * 22 and newer {@code System.console()} answers for pipes too, and {@code Console.isTerminal()} tells, asked
     * reflectively as kubeloop is compiled for Java 21) and {@code TERM} is not {@code dumb}.
     */
    static boolean interactiveTerminal() {
        Console console = System.console();
        if (console == null || "dumb".equals(System.getenv("TERM"))) {
            return false;
        }
        try {
            Method isTerminal = Console.class.getMethod("isTerminal");
            return Boolean.TRUE.equals(isTerminal.invoke(console));
        } catch (NoSuchMethodException e) {
            return true; // Java 21: System.console() is null unless both are a terminal
        } catch (ReflectiveOperationException | RuntimeException e) {
            return false;
        }
    }

    private static String pad(String s, int width) {
        return s + " ".repeat(Math.max(0, width - s.length()));
    }

    /** 10, 2.5. */
    private static String number(double x) {
        return x == Math.rint(x) && Math.abs(x) < 1e15 ? String.valueOf((long) x) : String.valueOf(x);
    }

    /** 60 s, 1.5 s, 0.5 s. */
    private static String seconds(Duration d) {
        return number(d.toMillis() / 1000.0) + " s";
    }

    /**
     * {@code --duration}: seconds ({@code 90}, {@code 2.5}) or a sum of numbers with units {@code ms}, {@code s},
     * {@code m}, {@code h} ({@code 90s}, {@code 2m}, {@code 1m30s}); positive, at least a millisecond.
     */
    static final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
        private static final Pattern BARE = Pattern.compile("\\d+(\\.\\d+)?");
        private static final Pattern PART = Pattern.compile("(\\d+(?:\\.\\d+)?)(ms|s|m|h)");

        @Override
        public Duration convert(String value) {
            String v = value.strip();
            double millis;
            if (BARE.matcher(v).matches()) {
                millis = Double.parseDouble(v) * 1000;
            } else {
                Matcher m = PART.matcher(v);
                int at = 0;
                millis = 0;
                while (at < v.length() && m.find(at) && m.start() == at) {
                    double n = Double.parseDouble(m.group(1));
                    millis += switch (m.group(2)) {
                        case "ms" -> n;
                        case "s" -> n * 1_000;
                        case "m" -> n * 60_000;
                        default -> n * 3_600_000;
                    };
                    at = m.end();
                }
                if (at == 0 || at != v.length()) {
                    throw new CommandLine.TypeConversionException(
                            "'" + value + "' is not a duration: give seconds (60) or a number with a unit (60s, 2m, "
                                    + "1m30s, 500ms)");
                }
            }
            if (!(millis >= 1) || millis > Duration.ofDays(1).toMillis()) {
                throw new CommandLine.TypeConversionException(
                        "'" + value + "' must be between a millisecond and a day");
            }
            return Duration.ofMillis(Math.round(millis));
        }
    }
}
