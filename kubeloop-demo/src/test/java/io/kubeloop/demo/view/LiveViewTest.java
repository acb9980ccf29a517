package io.kubeloop.demo.view;

import static io.kubeloop.testsupport.TestThreads.eventually;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kubeloop.clock.FakeClock;
import io.kubeloop.demo.internal.view.Frame;
import io.kubeloop.demo.internal.view.FrameRenderer;
import io.kubeloop.demo.internal.view.LiveView;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The live view on a terminal (played back on a tiny emulated screen), in plain output and quiet, with a fake clock. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class LiveViewTest {

    private static final Duration REFRESH = Duration.ofMillis(250);

    private final FakeClock clock = new FakeClock();
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
    private final AtomicInteger frameCalls = new AtomicInteger();
    private LiveView view;

    @AfterEach
    void closeView() {
        if (view != null) {
            view.close();
        }
    }

    private String output() {
        return bytes.toString(StandardCharsets.UTF_8);
    }

    /** A frame whose clock says how many frames were asked for so far, in tenths of a second. */
    private Frame frame() {
        return frameAt(frameCalls.incrementAndGet());
    }

    private static Frame frameAt(int n) {
        return new Frame(
                Duration.ofMillis(n * 100L),
                "kill-pods",
                List.of(
                        new Frame.NodeRow("node-1", "Ready", 7, 6, 0),
                        new Frame.NodeRow("node-2", "NotReady", 7, 3, 2),
                        new Frame.NodeRow("node-3", "Ready", 6, 6, 0)),
                20,
                15,
                3,
                12.5,
                "watching",
                "guardian-b",
                2,
                List.of("network-cut 18s left", "node-2 stopped"));
    }

    private Supplier<Frame> frames() {
        return this::frame;
    }

    @Test
    void onATerminalTheBlockIsRedrawnInPlaceAndEventLinesScrollAboveIt() {
        view = LiveView.create(out, true, false, clock, 100);
        view.line("starting");
        view.start(frames(), REFRESH);
        eventually().until(() -> frameCalls.get() == 1 && output().contains("t+0.1s"));
        List<String> screen = Screen.play(output());
        assertThat(screen).hasSize(1 + 6);
        assertThat(screen.getFirst()).isEqualTo("starting");
        assertThat(screen.get(1)).isEqualTo("t+0.1s  step: kill-pods");
        assertThat(screen.get(2)).startsWith("node-1").contains("Ready", "●●●●●●○", "6/7");
        assertThat(screen.get(3)).contains("NotReady", "●●●○○○○✕✕", "3/7 (+2 terminating)");
        assertThat(screen.get(5)).isEqualTo("PodSet: 15/20 ready   queue 3   12.5 reconciles/s   informer: watching");
        assertThat(screen.get(6))
                .isEqualTo("leader: guardian-b   incidents open: 2   faults: network-cut 18s left, node-2 stopped");

        eventually().until(clock::hasWaiters);
        clock.step(REFRESH);
        eventually().until(() -> output().contains("t+0.2s"));
        assertThat(output()).contains("\033[6A\r");
        screen = Screen.play(output());
        assertThat(screen).as("redrawn in place, not below").hasSize(7);
        assertThat(screen.get(1)).isEqualTo("t+0.2s  step: kill-pods");

        view.line("[ +12.0s] kill-pods: deleted web-x7k2p (node-2)");
        view.line("[ +13.0s] node-failure: node-2 stopped");
        screen = Screen.play(output());
        assertThat(screen).hasSize(3 + 6);
        assertThat(screen.subList(0, 3))
                .containsExactly(
                        "starting",
                        "[ +12.0s] kill-pods: deleted web-x7k2p (node-2)",
                        "[ +13.0s] node-failure: node-2 stopped");
        assertThat(screen.get(3)).isEqualTo("t+0.2s  step: kill-pods");

        view.close();
        Screen s = new Screen();
        s.feed(output());
        assertThat(s.lines()).hasSize(9);
        assertThat(s.lines().get(3)).as("close draws a last frame").isEqualTo("t+0.3s  step: kill-pods");
        assertThat(s.cursorRow()).as("the cursor is left below the view").isEqualTo(9);
        assertThat(s.cursorColumn()).isZero();
        for (String line : s.lines()) {
            assertThat(line.codePointCount(0, line.length())).isLessThanOrEqualTo(100);
        }

        view.line("after close");
        assertThat(Screen.play(output())).hasSize(10).endsWith("after close");
    }

    @Test
    void aShorterBlockLeavesNoStaleLinesBehind() {
        AtomicInteger call = new AtomicInteger();
        view = LiveView.create(out, true, false, clock, 100);
        view.start(
                () -> {
                    int n = call.incrementAndGet();
                    List<Frame.NodeRow> nodes = n == 1
                            ? List.of(
                                    new Frame.NodeRow("node-1", "Ready", 1, 1, 0),
                                    new Frame.NodeRow("node-2", "Ready", 1, 1, 0))
                            : List.of(new Frame.NodeRow("node-1", "Ready", 2, 2, 0));
                    return new Frame(Duration.ZERO, "s" + n, nodes, 2, 2, 0, 0, "watching", "a", 0, List.of());
                },
                REFRESH);
        eventually().until(() -> call.get() == 1 && output().contains("s1"));
        eventually().until(clock::hasWaiters);
        clock.step(REFRESH);
        eventually().until(() -> output().contains("s2"));
        List<String> screen = Screen.play(output());
        assertThat(screen).hasSize(4).doesNotContain("node-2");
        assertThat(screen.getFirst()).endsWith("step: s2");
    }

    @Test
    void plainOutputPrintsEventsInOrderAndAStatusLineEveryFiveSeconds() {
        view = LiveView.create(out, false, false, clock);
        view.line("one");
        view.start(frames(), REFRESH);
        view.line("two");
        eventually().until(clock::hasWaiters);
        clock.step(Duration.ofSeconds(4));
        view.line("three");
        assertThat(frameCalls.get()).as("no status before five seconds").isZero();

        clock.step(Duration.ofSeconds(1));
        eventually().until(() -> output().contains("[status]"));
        view.line("four");
        eventually().until(clock::hasWaiters);
        clock.step(Duration.ofSeconds(5));
        eventually().until(() -> output().contains("[status] t+0.2s"));
        view.close();
        view.close();

        assertThat(output()).doesNotContain("\033");
        assertThat(output().lines().toList())
                .containsExactly(
                        "one",
                        "two",
                        "three",
                        "[status] t+0.1s kill-pods: 15/20 ready, queue 3, 12.5 reconciles/s, informer watching,"
                                + " leader guardian-b, 2 incidents open, node-2 NotReady,"
                                + " faults: network-cut 18s left, node-2 stopped",
                        "four",
                        FrameRenderer.status(frameAt(2)),
                        FrameRenderer.status(frameAt(3)));
    }

    @Test
    void quietPrintsNothingAndNeverAsksForAFrame() {
        view = LiveView.create(out, true, true, clock);
        view.line("an event");
        view.start(frames(), REFRESH);
        clock.step(Duration.ofSeconds(30));
        view.close();
        view.close();
        assertThat(bytes.size()).isZero();
        assertThat(frameCalls.get()).isZero();
    }

    @Test
    void aThrowingSupplierSkipsARefreshButTheViewGoesOn() {
        AtomicInteger calls = new AtomicInteger();
        view = LiveView.create(out, true, false, clock, 100);
        view.start(
                () -> {
                    if (calls.incrementAndGet() <= 2) {
                        throw new IllegalStateException("the leader is gone for a moment");
                    }
                    return frame();
                },
                REFRESH);
        eventually().until(() -> calls.get() == 1);
        for (int i = 2; i <= 3; i++) {
            int expected = i;
            eventually().until(clock::hasWaiters);
            clock.step(REFRESH);
            eventually().until(() -> calls.get() == expected);
        }
        eventually().until(() -> output().contains("t+0.1s"));
        view.line("still alive");
        assertThat(Screen.play(output())).hasSize(7).first().isEqualTo("still alive");
    }

    @Test
    void aThrowingSupplierOrANullFrameDoesNotStopPlainOutputEither() {
        AtomicInteger calls = new AtomicInteger();
        view = LiveView.create(out, false, false, clock);
        view.start(
                () -> switch (calls.incrementAndGet()) {
                    case 1 -> throw new IllegalStateException("boom");
                    case 2 -> null;
                    default -> frame();
                },
                REFRESH);
        for (int i = 1; i <= 3; i++) {
            int expected = i;
            eventually().until(clock::hasWaiters);
            clock.step(LiveView.PLAIN_STATUS_EVERY);
            eventually().until(() -> calls.get() == expected);
        }
        eventually().until(() -> output().contains("[status] t+0.1s"));
        assertThat(output().lines()).hasSize(1);
    }

    @Test
    void closeIsIdempotentAndStopsTheRefresh() {
        view = LiveView.create(out, true, false, clock, 100);
        view.start(frames(), REFRESH);
        eventually().until(() -> frameCalls.get() == 1);
        view.close();
        int afterClose = frameCalls.get();
        String printed = output();
        view.close();
        clock.step(Duration.ofSeconds(10));
        assertThat(frameCalls.get()).isEqualTo(afterClose).isEqualTo(2);
        assertThat(output()).isEqualTo(printed);
        assertThatThrownBy(() -> view.start(frames(), REFRESH))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
    }

    @Test
    void closeWithoutStartPrintsNothing() {
        view = LiveView.create(out, true, false, clock, 100);
        view.close();
        assertThat(bytes.size()).isZero();
    }

    @Test
    void refusesASecondStartAndABadRefresh() {
        view = LiveView.create(out, false, false, clock);
        assertThatThrownBy(() -> view.start(frames(), Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("refresh");
        view.start(frames(), REFRESH);
        assertThatThrownBy(() -> view.start(frames(), REFRESH))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("already started");
    }

    @Test
    void anAsciiTerminalGetsAsciiBars() {
        ByteArrayOutputStream ascii = new ByteArrayOutputStream();
        view = LiveView.create(new PrintStream(ascii, true, Charset.forName("US-ASCII")), true, false, clock, 100);
        view.start(frames(), REFRESH);
        eventually().until(() -> ascii.toString(StandardCharsets.US_ASCII).contains("t+0.1s"));
        String text = ascii.toString(StandardCharsets.US_ASCII);
        assertThat(text).contains("######.", "###....xx").doesNotContain("?");
    }

    @Test
    void aNarrowTerminalGetsANarrowBlock() {
        view = LiveView.create(out, true, false, clock, 60);
        view.start(frames(), REFRESH);
        eventually().until(() -> output().contains("t+0.1s") && output().contains("leader"));
        List<String> screen = Screen.play(output());
        assertThat(screen).hasSize(6).allSatisfy(line -> assertThat(line.codePointCount(0, line.length()))
                .isLessThanOrEqualTo(60));
        assertThat(screen.getLast())
                .startsWith("leader: guardian-b   incidents open: 2")
                .endsWith("…");
        assertThatThrownBy(() -> LiveView.create(out, true, false, clock, 39))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("40 columns");
    }

    @Test
    void notATerminalUnderTheTestRunner() {
        assertThat(LiveView.isTerminal()).isFalse();
    }
}
