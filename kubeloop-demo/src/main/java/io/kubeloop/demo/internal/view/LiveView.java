package io.kubeloop.demo.internal.view;

import io.kubeloop.clock.Clock;
import java.io.Console;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The demo's terminal output. On a terminal a block of status lines (one {@link Frame}) is redrawn in place with ANSI
 * escapes every refresh, and event lines ({@link #line}) scroll above it; otherwise (a pipe, a log, a test) event
 * lines are printed as they come and a one-line status every {@link #PLAIN_STATUS_EVERY}. Quiet: nothing at all.
 * Thread-safe: event lines may come from any thread; the refresh runs on its own virtual thread.
 *
 * <p>Terminal invariant: whenever {@code lock} is free, the cursor is at the start of the line just below the block,
 * and the block drawn is exactly {@code drawn} (empty before the first frame). A redraw moves the cursor up
 * {@code drawn.size()} lines, rewrites each line after erasing it, and erases whatever is below; an event line erases
 * the block, prints itself and draws the block again below it. Block lines never wrap ({@link FrameRenderer} cuts them
 * to the width), so moving up {@code drawn.size()} lines always lands on the block's first line.
 *
 * <p>Timing goes through the injectable {@link Clock}: the refresh waits on it, so a test with a {@code FakeClock}
 * decides when a refresh or a plain status line is due.
 */
public final class LiveView implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(LiveView.class);

    /** How often plain output prints its status line. */
    public static final Duration PLAIN_STATUS_EVERY = Duration.ofSeconds(5);

    static final String ESC = "\033[";
    static final String ERASE_LINE = ESC + "2K";
    static final String ERASE_BELOW = ESC + "J";

    private static final Duration JOIN_WAIT = Duration.ofSeconds(5);

    /** The block's width when the terminal's is not known. */
    static final int DEFAULT_WIDTH = 80;

    private enum Mode {
        TERMINAL,
        PLAIN,
        QUIET
    }

    private final PrintStream out;
    private final Mode mode;
    private final Clock clock;
    private final int width;
    private final FrameRenderer.Glyphs glyphs;

    /** Guards every write to {@code out} and every field below; {@code wake} ends the refresh thread's wait. */
    private final ReentrantLock lock = new ReentrantLock();

    private final Condition wake = lock.newCondition();
    /** Guarded by {@code lock}: the block on the screen now (terminal mode). */
    private List<String> drawn = List.of();
    /** Guarded by {@code lock}. */
    private Supplier<Frame> frames;
    /** Guarded by {@code lock}. */
    private Thread refresher;
    /** Guarded by {@code lock}. */
    private boolean closed;
    /** Guarded by {@code lock}: failures of the supplier so far (the first is logged at WARN, the rest at DEBUG). */
    private long supplierFailures;

    private LiveView(PrintStream out, Mode mode, Clock clock, int width) {
        this.out = out;
        this.mode = mode;
        this.clock = clock;
        this.width = width;
        this.glyphs = out.charset().newEncoder().canEncode("●○✕…")
                ? FrameRenderer.Glyphs.UNICODE
                : FrameRenderer.Glyphs.ASCII;
    }

    public static LiveView create(PrintStream out, boolean terminal, boolean quiet) {
        return create(out, terminal, quiet, Clock.system());
    }

    /**
     * As {@link #create(PrintStream, boolean, boolean)}, with the clock the refresh waits on: a clock of real time
     * ({@code Clock.system()}, or a {@code FakeClock} in tests), not a cluster clock that runs {@code --speed} times
     * faster.
     */
    public static LiveView create(PrintStream out, boolean terminal, boolean quiet, Clock clock) {
        return create(out, terminal, quiet, clock, terminalWidth());
    }

    /**
     * As {@link #create(PrintStream, boolean, boolean, Clock)}, for a terminal {@code width} columns wide (the block
     * uses at most {@link FrameRenderer#MAX_WIDTH} of them).
     */
    public static LiveView create(PrintStream out, boolean terminal, boolean quiet, Clock clock, int width) {
        Objects.requireNonNull(out, "out");
        Objects.requireNonNull(clock, "clock");
        if (width < 40) {
            throw new IllegalArgumentException("the live view needs a terminal of at least 40 columns, got " + width);
        }
        Mode mode = quiet ? Mode.QUIET : terminal ? Mode.TERMINAL : Mode.PLAIN;
        return new LiveView(out, mode, clock, Math.min(width, FrameRenderer.MAX_WIDTH));
    }

    /**
     * Whether this process writes to an interactive terminal: a console that (on Java 22+, {@code
     * Console.isTerminal()}) is a terminal, and {@code TERM} is not {@code dumb}.
     */
    public static boolean isTerminal() {
        Console console = System.console();
        if (console == null || "dumb".equals(System.getenv("TERM"))) {
            return false;
        }
        try {
            Method isTerminal = Console.class.getMethod("isTerminal");
            return (Boolean) isTerminal.invoke(console);
        } catch (ReflectiveOperationException | RuntimeException olderJava) {
            return true; // Java 21: System.console() is non-null only for a terminal
        }
    }

    /**
     * {@code COLUMNS} when the shell exports it (at least 40; at most {@link FrameRenderer#MAX_WIDTH}), else 80: a
     * block line wider than the terminal would wrap and break the redraw, and most shells do not export
     * {@code COLUMNS}, so the default is the narrowest common terminal.
     */
    private static int terminalWidth() {
        String columns = System.getenv("COLUMNS");
        if (columns != null) {
            try {
                int c = Integer.parseInt(columns.trim());
                if (c >= 40) {
                    return Math.min(c, FrameRenderer.MAX_WIDTH);
                }
            } catch (NumberFormatException ignored) {
                // not a number: use the default
            }
        }
        return DEFAULT_WIDTH;
    }

    /** Prints one event line (a step, a fault, a recovery) above the status block. */
    public void line(String text) {
        Objects.requireNonNull(text, "text");
        if (mode == Mode.QUIET) {
            return;
        }
        lock.lock();
        try {
            if (mode == Mode.TERMINAL && !drawn.isEmpty()) {
                StringBuilder s = new StringBuilder();
                s.append(up(drawn.size())).append(ERASE_BELOW).append(text).append('\n');
                appendBlock(s, drawn);
                write(s);
            } else {
                write(text + "\n");
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Starts drawing {@code frames.get()} every {@code refresh} (real time, on this view's clock): at once and then
     * every {@code refresh} on a terminal; every {@link #PLAIN_STATUS_EVERY} (the first after that long) as a status
     * line in plain output; never when quiet. A supplier that throws skips that refresh (logged) and the view goes
     * on.
     *
     * @throws IllegalStateException if started before or closed
     */
    public void start(Supplier<Frame> frames, Duration refresh) {
        Objects.requireNonNull(frames, "frames");
        Objects.requireNonNull(refresh, "refresh");
        if (refresh.isNegative() || refresh.isZero()) {
            throw new IllegalArgumentException("the live view's refresh must be positive, got " + refresh);
        }
        lock.lock();
        try {
            if (closed) {
                throw new IllegalStateException("the live view is closed");
            }
            if (this.frames != null) {
                throw new IllegalStateException("the live view is already started");
            }
            this.frames = frames;
            if (mode == Mode.QUIET) {
                return;
            }
            Duration period = mode == Mode.TERMINAL ? refresh : PLAIN_STATUS_EVERY;
            long first = mode == Mode.TERMINAL ? 0 : period.toNanos();
            refresher = Thread.ofVirtual().name("live-view").unstarted(() -> refreshLoop(period.toNanos(), first));
            refresher.start();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Stops refreshing, draws a last frame (the block on a terminal, a status line in plain output; nothing when
     * never started) and leaves the cursor below the view. Idempotent.
     */
    @Override
    public void close() {
        Thread thread;
        lock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            thread = refresher;
            wake.signalAll();
        } finally {
            lock.unlock();
        }
        if (thread != null) {
            try {
                if (!thread.join(JOIN_WAIT)) {
                    LOG.warn("the live view's refresh thread did not stop within {}", JOIN_WAIT);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            draw(); // the last frame, once the refresh thread is done drawing
        }
        lock.lock();
        try {
            drawn = List.of(); // the block stays on the screen as it is; later lines go below it
        } finally {
            lock.unlock();
        }
    }

    /** Waits (on the clock) for each refresh time and draws; absolute deadlines, so a slow frame does not drift. */
    private void refreshLoop(long periodNanos, long firstDelayNanos) {
        long next = clock.nanoTime() + firstDelayNanos;
        while (true) {
            lock.lock();
            try {
                while (!closed && next - clock.nanoTime() > 0) {
                    clock.awaitUntil(lock, wake, next);
                }
                if (closed) {
                    return;
                }
            } catch (InterruptedException e) {
                LOG.debug("the live view's refresh thread was interrupted: it stops");
                return;
            } finally {
                lock.unlock();
            }
            draw();
            long now = clock.nanoTime();
            next += periodNanos;
            if (next - now <= 0) {
                next = now + periodNanos; // fell behind (a slow supplier): skip, do not burst
            }
        }
    }

    /**
     * Gets a frame and renders it outside the lock (the supplier may take its time), then draws it. A supplier or
     * renderer that throws skips this draw: the screen keeps the last frame.
     */
    private void draw() {
        Supplier<Frame> supplier;
        lock.lock();
        try {
            supplier = frames;
        } finally {
            lock.unlock();
        }
        if (supplier == null) {
            return;
        }
        List<String> block;
        try {
            Frame frame = Objects.requireNonNull(supplier.get(), "the frame supplier returned null");
            block = mode == Mode.TERMINAL
                    ? FrameRenderer.block(frame, width, glyphs)
                    : List.of(FrameRenderer.status(frame));
        } catch (RuntimeException e) {
            supplierFailed(e);
            return;
        }
        lock.lock();
        try {
            if (mode == Mode.TERMINAL) {
                StringBuilder s = new StringBuilder();
                if (!drawn.isEmpty()) {
                    s.append(up(drawn.size()));
                }
                appendBlock(s, block);
                s.append(ERASE_BELOW);
                drawn = block;
                write(s);
            } else {
                write(block.getFirst() + "\n");
            }
        } finally {
            lock.unlock();
        }
    }

    private void supplierFailed(RuntimeException e) {
        long failures;
        lock.lock();
        try {
            failures = ++supplierFailures;
        } finally {
            lock.unlock();
        }
        if (failures == 1) {
            LOG.warn("the live view could not get a frame; it keeps the last one and tries again", e);
        } else {
            LOG.debug("the live view could not get a frame (failure {})", failures, e);
        }
    }

    /** Cursor up {@code n} lines, to column 0. */
    private static String up(int n) {
        return ESC + n + "A\r";
    }

    private static void appendBlock(StringBuilder s, List<String> block) {
        for (String line : block) {
            s.append(ERASE_LINE).append(line).append('\n');
        }
    }

    /** The caller holds {@code lock}. */
    private void write(CharSequence s) {
        out.print(s);
        out.flush();
    }
}
