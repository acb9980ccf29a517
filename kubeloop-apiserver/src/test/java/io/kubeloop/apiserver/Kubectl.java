package io.kubeloop.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs the real kubectl against an embedded server, with its own kubeconfig and discovery cache. On CI kubectl
 * must be installed ({@code .ci/run} checks); elsewhere tests that need it are skipped when it is absent.
 */
final class Kubectl {

    record Result(int exit, String out, String err) {
        Result ok() {
            assertThat(exit).as("kubectl failed: %s", err).isZero();
            return this;
        }
    }

    private static final AtomicInteger RUNS = new AtomicInteger();
    private final Path dir;

    Kubectl(EmbeddedApiServer server, Path dir) {
        this.dir = dir;
        server.writeKubeconfig(dir.resolve("kubeconfig"));
    }

    static boolean available() {
        if (System.getenv("CI") != null) {
            return true; // CI installs kubectl; a missing one must fail, not skip
        }
        try {
            return new ProcessBuilder("kubectl", "version", "--client").redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor(30, TimeUnit.SECONDS);
        } catch (IOException | InterruptedException e) {
            return false;
        }
    }

    Result run(String... args) throws IOException, InterruptedException {
        return runWithInput(null, args);
    }

    /** Runs kubectl with extra environment variables (for example {@code KUBE_EDITOR}). */
    Result runWithEnv(java.util.Map<String, String> env, String... args) throws IOException, InterruptedException {
        return run(null, env, args);
    }

    /** Runs kubectl with {@code stdin} as its standard input (for {@code -f -}). */
    Result runWithInput(String stdin, String... args) throws IOException, InterruptedException {
        return run(stdin, java.util.Map.of(), args);
    }

    private Result run(String stdin, java.util.Map<String, String> env, String... args)
            throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("kubectl", "--kubeconfig", dir.resolve("kubeconfig").toString(),
                "--cache-dir", dir.resolve("cache").toString()));
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
        return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
    }

    /** Starts kubectl and returns the process (for {@code get -w}); output goes to the returned file. */
    Process start(Path output, String... args) throws IOException {
        List<String> cmd = new ArrayList<>(List.of("kubectl", "--kubeconfig", dir.resolve("kubeconfig").toString(),
                "--cache-dir", dir.resolve("cache").toString()));
        cmd.addAll(List.of(args));
        return new ProcessBuilder(cmd).redirectOutput(output.toFile()).redirectErrorStream(false)
                .redirectError(dir.resolve("err-bg-" + RUNS.incrementAndGet()).toFile()).start();
    }
}
