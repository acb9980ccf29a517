package io.kubeloop.demo.internal.view;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Turns a {@link Frame} into text: the terminal block (at most {@link #MAX_LINES} lines, each at most the given width)
 * and the one-line status of plain output. Pure functions, no state. The block's lines are short enough for an
 * 80-column terminal in the usual case (a long step or list of faults is cut with an ellipsis).
 *
 * <pre>
 * t+123.4s  step: network-cut (18 s left)
 * node-1  Ready     ●●●●●●○   6/7
 * node-2  NotReady  ●●●●○○✕✕  4/6 (+2 terminating)
 * node-3  Ready     ●●●●●●●   7/7
 * PodSet: 17/20 ready   queue 3   12.5 reconciles/s   informer: backing off
 * leader: guardian-b   incidents open: 2   faults: network-cut, node-2 stopped
 * </pre>
 */
public final class FrameRenderer {

    /** The block never grows past this many lines, however many nodes there are. */
    public static final int MAX_LINES = 12;

    /** The widest the block gets, even on a wide terminal. */
    public static final int MAX_WIDTH = 100;

    /** Pods drawn one symbol each up to this many on a node; beyond, the bar is scaled to this length. */
    static final int BAR = 30;

    private FrameRenderer() {}

    /** The symbols of a node's bar: Unicode circles, or ASCII for a terminal that cannot show them. */
    public enum Glyphs {
        UNICODE('●', '○', '✕', '…'),
        ASCII('#', '.', 'x', '~');

        final char running;
        final char notRunning;
        final char terminating;
        final char ellipsis;

        Glyphs(char running, char notRunning, char terminating, char ellipsis) {
            this.running = running;
            this.notRunning = notRunning;
            this.terminating = terminating;
            this.ellipsis = ellipsis;
        }
    }

    /**
     * The status block: the time and step, one row per node (the first {@code MAX_LINES - 4} and a summary row when
     * there are more), the PodSet's line and the incidents' line; each line cut to {@code width} columns.
     */
    public static List<String> block(Frame f, int width, Glyphs glyphs) {
        if (width < 20) {
            throw new IllegalArgumentException("the live view needs at least 20 columns, got " + width);
        }
        int w = Math.min(width, MAX_WIDTH);
        List<String> lines = new ArrayList<>();
        lines.add(String.format(Locale.ROOT, "t+%ss  step: %s", seconds(f), f.step()));
        int nameWidth = 6;
        int stateWidth = 8;
        for (Frame.NodeRow n : f.nodes()) {
            nameWidth = Math.max(nameWidth, n.name().length());
            stateWidth = Math.max(stateWidth, n.state().length());
        }
        int nodeRows = f.nodes().size() <= MAX_LINES - 3 ? f.nodes().size() : MAX_LINES - 4;
        List<String> bars = new ArrayList<>();
        int barWidth = 0;
        for (int i = 0; i < nodeRows; i++) {
            String bar = bar(f.nodes().get(i), glyphs);
            bars.add(bar);
            barWidth = Math.max(barWidth, bar.length());
        }
        for (int i = 0; i < nodeRows; i++) {
            Frame.NodeRow n = f.nodes().get(i);
            String counts = n.running() + "/" + n.pods()
                    + (n.terminating() > 0 ? " (+" + n.terminating() + " terminating)" : "");
            lines.add(pad(n.name(), nameWidth) + "  " + pad(n.state(), stateWidth) + "  " + pad(bars.get(i), barWidth)
                    + "  " + counts);
        }
        if (nodeRows < f.nodes().size()) {
            List<Frame.NodeRow> rest = f.nodes().subList(nodeRows, f.nodes().size());
            long ready =
                    rest.stream().filter(n -> n.state().startsWith("Ready")).count();
            int running = rest.stream().mapToInt(Frame.NodeRow::running).sum();
            int pods = rest.stream().mapToInt(Frame.NodeRow::pods).sum();
            lines.add(String.format(
                            Locale.ROOT,
                            "… and %d more nodes (%d Ready), %d/%d pods running",
                            rest.size(),
                            ready,
                            running,
                            pods)
                    .replace('…', glyphs.ellipsis));
        }
        lines.add(String.format(
                Locale.ROOT,
                "PodSet: %d/%d ready   queue %s   %.1f reconciles/s   informer: %s",
                f.ready(),
                f.desired(),
                f.queueDepth() < 0 ? "-" : Integer.toString(f.queueDepth()),
                f.reconcilesPerSecond(),
                f.informerState()));
        lines.add("leader: " + f.leader() + "   incidents open: " + f.openIncidents() + "   faults: "
                + (f.faults().isEmpty() ? "none" : String.join(", ", f.faults())));
        lines.replaceAll(line -> fit(line, w, glyphs));
        return lines;
    }

    /**
     * The one-line status of plain output, e.g. {@code [status] t+50.0s kill-pods: 18/20 ready, queue 0, 3.0
     * reconciles/s, informer watching, leader guardian-a, 2 incidents open, node-2 NotReady, faults: node-2 stopped}.
     * Nodes are named only when not Ready; faults only when there are some.
     */
    public static String status(Frame f) {
        StringBuilder s = new StringBuilder();
        s.append(String.format(
                Locale.ROOT,
                "[status] t+%ss %s: %d/%d ready, queue %s, %.1f reconciles/s, informer %s, leader %s, %d incident%s open",
                seconds(f),
                f.step(),
                f.ready(),
                f.desired(),
                f.queueDepth() < 0 ? "-" : Integer.toString(f.queueDepth()),
                f.reconcilesPerSecond(),
                f.informerState(),
                f.leader(),
                f.openIncidents(),
                f.openIncidents() == 1 ? "" : "s"));
        for (Frame.NodeRow n : f.nodes()) {
            if (!n.state().equals("Ready")) {
                s.append(", ").append(n.name()).append(' ').append(n.state());
            }
        }
        if (!f.faults().isEmpty()) {
            s.append(", faults: ").append(String.join(", ", f.faults()));
        }
        return s.toString();
    }

    private static String seconds(Frame f) {
        return String.format(Locale.ROOT, "%.1f", f.clusterTime().toMillis() / 1000.0);
    }

    /**
     * One symbol per pod (running, not running, terminating) while they fit in {@link #BAR}; else the same three
     * parts scaled to {@link #BAR} symbols, each non-empty part at least one.
     */
    static String bar(Frame.NodeRow n, Glyphs glyphs) {
        int running = Math.max(0, Math.min(n.running(), n.pods()));
        int notRunning = Math.max(0, n.pods() - running);
        int terminating = Math.max(0, n.terminating());
        int total = running + notRunning + terminating;
        if (total > BAR) {
            int t = scaled(terminating, total);
            int nr = scaled(notRunning, total);
            running = Math.max(0, BAR - t - nr);
            notRunning = nr;
            terminating = t;
        }
        return String.valueOf(glyphs.running).repeat(running)
                + String.valueOf(glyphs.notRunning).repeat(notRunning)
                + String.valueOf(glyphs.terminating).repeat(terminating);
    }

    private static int scaled(int part, int total) {
        return part == 0 ? 0 : Math.max(1, (int) Math.round((double) part * BAR / total));
    }

    private static String pad(String s, int width) {
        int len = s.codePointCount(0, s.length());
        return len >= width ? s : s + " ".repeat(width - len);
    }

    /**
     * Cuts {@code line} to {@code width} code points, the last one an ellipsis when something was cut; control
     * characters become spaces.
     */
    static String fit(String line, int width, Glyphs glyphs) {
        // a control character (a newline, an escape) in a name or step would break the block's geometry
        String stripped = line.replaceAll("\\p{Cntrl}", " ").stripTrailing();
        int len = stripped.codePointCount(0, stripped.length());
        if (len <= width) {
            return stripped;
        }
        int end = stripped.offsetByCodePoints(0, width - 1);
        return stripped.substring(0, end) + glyphs.ellipsis;
    }
}
