package io.kubeloop.cli;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Captures {@code System.out} and {@code System.err} around each test of a class that registers it
 * ({@code @RegisterExtension final StandardStreams streams = new StandardStreams();}), as the CLI writes to them;
 * restores them after. Invariant: between two tests the JVM's streams are the originals.
 */
final class StandardStreams implements BeforeEachCallback, AfterEachCallback {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private PrintStream originalOut;
    private PrintStream originalErr;

    @Override
    public void beforeEach(ExtensionContext context) {
        originalOut = System.out;
        originalErr = System.err;
        out.reset();
        err.reset();
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @Override
    public void afterEach(ExtensionContext context) {
        System.setOut(originalOut);
        System.setErr(originalErr);
    }

    /** Forgets what was captured so far, so the next assertion sees only what follows. */
    void reset() {
        out.reset();
        err.reset();
    }

    /** What the test wrote to standard output so far. */
    String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    /** What the test wrote to standard error so far. */
    String err() {
        return err.toString(StandardCharsets.UTF_8);
    }
}
