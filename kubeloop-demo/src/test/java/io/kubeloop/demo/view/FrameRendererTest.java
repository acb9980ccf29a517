package io.kubeloop.demo.view;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kubeloop.demo.internal.view.Frame;
import io.kubeloop.demo.internal.view.FrameRenderer;
import io.kubeloop.demo.internal.view.FrameRenderer.Glyphs;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class FrameRendererTest {

    private static Frame frame(String step, List<Frame.NodeRow> nodes, List<String> faults) {
        return new Frame(Duration.ofMillis(123_400), step, nodes, 200, 190, -1, 0.0, "relisting", "none", 1, faults);
    }

    private static void assertFits(List<String> block, int width) {
        assertThat(block).hasSizeLessThanOrEqualTo(FrameRenderer.MAX_LINES);
        for (String line : block) {
            assertThat(line.codePointCount(0, line.length()))
                    .as("width of %s", line)
                    .isLessThanOrEqualTo(width);
            assertThat(line).doesNotContain("\n", "\r", "\033");
        }
    }

    @Test
    void manyNodesAndLongTextStayWithinTwelveLinesAndTheWidth() {
        List<Frame.NodeRow> nodes = new ArrayList<>();
        for (int i = 1; i <= 20; i++) {
            nodes.add(new Frame.NodeRow("node-" + i, i == 3 ? "NotReady,SchedulingDisabled" : "Ready", 10, 9, 1));
        }
        Frame f = frame(
                "network-cut (18 s left) " + "and a very long explanation ".repeat(10),
                nodes,
                List.of("network-cut 18s left", "node-3 stopped", "x".repeat(200)));
        for (int width : List.of(100, 80, 40, 500)) {
            List<String> block = FrameRenderer.block(f, width, Glyphs.UNICODE);
            assertFits(block, Math.min(width, FrameRenderer.MAX_WIDTH));
            assertThat(block).hasSize(12);
            if (width >= 100) {
                assertThat(block.get(9)).isEqualTo("… and 12 more nodes (12 Ready), 108/120 pods running");
            }
            assertThat(block.getFirst())
                    .startsWith("t+123.4s  step: network-cut (18 s left)")
                    .endsWith("…");
            assertThat(block.get(9)).startsWith("… and 12 more nodes (12 Ready)");
            assertThat(block.get(10)).startsWith("PodSet: 190/200 ready   queue -");
        }
    }

    @Test
    void aNodeWithManyPodsGetsAScaledBar() {
        Frame f = frame("converging", List.of(new Frame.NodeRow("node-1", "Ready", 90, 60, 10)), List.of());
        List<String> block = FrameRenderer.block(f, 100, Glyphs.ASCII);
        assertFits(block, 100);
        String row = block.get(1);
        assertThat(row).contains("60/90 (+10 terminating)");
        String bar = row.replaceAll("^node-1\\s+Ready\\s+", "").replaceAll("\\s.*$", "");
        assertThat(bar).hasSize(30).matches("#+\\.+x+");
        assertThat(block.getLast()).isEqualTo("leader: none   incidents open: 1   faults: none");
    }

    @Test
    void controlCharactersCannotBreakTheBlock() {
        Frame f = frame("evil\nstep\033[2J", List.of(new Frame.NodeRow("node\r1", "Ready", 1, 1, 0)), List.of("a\tb"));
        List<String> block = FrameRenderer.block(f, 100, Glyphs.UNICODE);
        assertFits(block, 100);
        assertThat(block.getFirst()).isEqualTo("t+123.4s  step: evil step [2J");
    }

    @Test
    void plainStatusNamesOnlyTroubledNodes() {
        Frame f = new Frame(
                Duration.ofSeconds(50),
                "kill-pods",
                List.of(
                        new Frame.NodeRow("node-1", "Ready", 7, 7, 0),
                        new Frame.NodeRow("node-2", "Ready,SchedulingDisabled", 0, 0, 0)),
                20,
                18,
                0,
                3.0,
                "watching",
                "guardian-a",
                1,
                List.of());
        assertThat(FrameRenderer.status(f))
                .isEqualTo("[status] t+50.0s kill-pods: 18/20 ready, queue 0, 3.0 reconciles/s, informer watching,"
                        + " leader guardian-a, 1 incident open, node-2 Ready,SchedulingDisabled");
    }

    @Test
    void refusesATinyWidth() {
        assertThatThrownBy(() -> FrameRenderer.block(frame("s", List.of(), List.of()), 10, Glyphs.ASCII))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("20 columns");
    }
}
