package io.kubeloop.cli;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;

/**
 * {@code kubeloop apiserver ...} run through {@link Main} on a thread of its own, as a user starts it; {@link #stop}
 * interrupts it as Ctrl-C does. What the command prints goes to {@link #printed()}, not to the test's output.
 */
final class RunningApiServer {

    private static final Pattern LISTENING = Pattern.compile("listening on (https?://127\\.0\\.0\\.1:\\d+)");

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final AtomicInteger exit = new AtomicInteger(-1);
    private final Thread thread;

    /** Runs {@code kubeloop apiserver args} and waits up to {@code ready} until it says it serves. */
    static RunningApiServer start(Duration ready, String... args) {
        return new RunningApiServer(ready, args);
    }

    private RunningApiServer(Duration ready, String... args) {
        String[] all = new String[args.length + 1];
        all[0] = "apiserver";
        System.arraycopy(args, 0, all, 1, args.length);
        PrintStream originalOut = System.out;
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8)); // picocli's out is taken at Main.run
        try {
            thread = Thread.ofPlatform().start(() -> exit.set(Main.run(all)));
            Awaitility.await().atMost(ready).until(() -> printed().contains("stop with Ctrl-C"));
        } finally {
            System.setOut(originalOut);
        }
    }

    /** All the command has printed to standard output so far. */
    String printed() {
        return out.toString(StandardCharsets.UTF_8);
    }

    /** The URL it says it listens on; fails the test if it says none. */
    URI url() {
        Matcher url = LISTENING.matcher(printed());
        if (!url.find()) {
            throw new AssertionError("no 'listening on' URL in: " + printed());
        }
        return URI.create(url.group(1));
    }

    /** Interrupts the command, as Ctrl-C does, and waits up to 30 s for it to end. */
    void stop() throws InterruptedException {
        thread.interrupt();
        thread.join(Duration.ofSeconds(30));
    }

    boolean isAlive() {
        return thread.isAlive();
    }

    /** The command's exit code, -1 while it runs. */
    int exit() {
        return exit.get();
    }
}
