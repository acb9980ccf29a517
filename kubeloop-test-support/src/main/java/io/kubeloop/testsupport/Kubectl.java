package io.kubeloop.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * Runs the real kubectl against a server, with its own kubeconfig ({@code <dir>/kubeconfig}, which the caller writes,
 * e.g. with {@code EmbeddedApiServer.writeKubeconfig}) and discovery cache. Every test that needs kubectl starts
 * with {@link #assumeInstalled()}: skipped where kubectl is absent, failed on CI.
 */
public class Kubectl {

    /** What kubectl exited with and printed. */
    public record Result(int exit, String out, String err) {
        /** Asserts exit 0, showing stderr otherwise. */
        public Result ok() {
            assertThat(exit).as("kubectl failed: %s", err).isZero();
            return this;
        }
    }

    private static final AtomicInteger RUNS = new AtomicInteger();
    private final Path dir;

    /** kubectl with the kubeconfig {@code dir/kubeconfig}, its cache and its output files in {@code dir}. */
    public Kubectl(Path dir) {
        this.dir = dir;
    }

    /** What a kubectl test does when it starts: run, be skipped, or fail because kubectl is missing. */
    public enum Availability {
        RUN,
        SKIP,
        FAIL
    }

    /**
     * Skips the calling test where kubectl is not installed, except on CI ({@code CI} set, as every CI system
     * sets it, and not {@code false} or {@code 0}), where a missing kubectl fails the test: CI must run the kubectl
     * compatibility tests, and a skip would let them silently stop running.
     */
    public static void assumeInstalled() {
        switch (availability(System.getenv(), installed())) {
            case RUN -> {}
            case SKIP ->
                Assumptions.abort("kubectl is not installed (tests that drive the real kubectl are skipped;"
                        + " on CI, with CI=true, they fail instead)");
            case FAIL ->
                Assertions.fail("kubectl is not on the PATH, but CI=" + System.getenv("CI")
                        + ": CI must run the kubectl compatibility tests; install kubectl (.ci/run installs Debian's"
                        + " kubernetes-client) or unset CI to skip them locally");
        }
    }

    /** The rule of {@link #assumeInstalled()}, given the environment and whether kubectl answered. */
    public static Availability availability(Map<String, String> env, boolean installed) {
        if (installed) {
            return Availability.RUN;
        }
        String ci = env.getOrDefault("CI", "").strip();
        boolean onCi = !ci.isEmpty() && !ci.equalsIgnoreCase("false") && !ci.equals("0");
        return onCi ? Availability.FAIL : Availability.SKIP;
    }

    /** Whether {@code kubectl version --client} exits 0 within 30 s, asked once per JVM (a lazy holder). */
    private static boolean installed() {
        return Probe.INSTALLED;
    }

    private static final class Probe {
        static final boolean INSTALLED = probe();

        private static boolean probe() {
            try {
                Process p = new ProcessBuilder("kubectl", "version", "--client")
                        .redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                        .start();
                if (!p.waitFor(30, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                    return false;
                }
                return p.exitValue() == 0;
            } catch (IOException e) {
                return false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
    }

    public Result run(String... args) throws IOException, InterruptedException {
        return runWithInput(null, args);
    }

    /** Runs kubectl with extra environment variables (for example {@code KUBE_EDITOR}). */
    public Result runWithEnv(java.util.Map<String, String> env, String... args)
            throws IOException, InterruptedException {
        return run(null, env, args);
    }

    /** Runs kubectl with {@code stdin} as its standard input (for {@code -f -}). */
    public Result runWithInput(String stdin, String... args) throws IOException, InterruptedException {
        return run(stdin, java.util.Map.of(), args);
    }

    private Result run(String stdin, java.util.Map<String, String> env, String... args)
            throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(
                "kubectl",
                "--kubeconfig",
                dir.resolve("kubeconfig").toString(),
                "--cache-dir",
                dir.resolve("cache").toString()));
        cmd.addAll(List.of(args));
        int n = RUNS.incrementAndGet();
        Path out = dir.resolve("out-" + n);
        Path err = dir.resolve("err-" + n);
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile());
        pb.environment().putAll(env);
        if (stdin != null) {
            Path in = dir.resolve("in-" + n);
            Files.writeString(in, stdin);
            pb.redirectInput(in.toFile());
        }
        Process p = pb.start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("kubectl " + String.join(" ", args) + " did not finish in 60 s");
        }
        return new Result(
                p.exitValue(),
                Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
    }

    /** Starts kubectl and returns the process (for {@code get -w}); output goes to the returned file. */
    public Process start(Path output, String... args) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(
                "kubectl",
                "--kubeconfig",
                dir.resolve("kubeconfig").toString(),
                "--cache-dir",
                dir.resolve("cache").toString()));
        cmd.addAll(List.of(args));
        return new ProcessBuilder(cmd)
                .redirectOutput(output.toFile())
                .redirectErrorStream(false)
                .redirectError(dir.resolve("err-bg-" + RUNS.incrementAndGet()).toFile())
                .start();
    }
}
