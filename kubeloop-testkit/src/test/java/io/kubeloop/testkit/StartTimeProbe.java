package io.kubeloop.testkit;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.platform.engine.reporting.ReportEntry;

/**
 * Not a test: a probe that measures how long {@code @KubeloopTest} takes to give a class its server, as the
 * extension reports it (from {@code start()} called to the server bound, and to its first answer over HTTP).
 * Runs a one-method sample class {@code args[0]} times (default 21) through the JUnit Platform in this JVM and
 * prints each server's report: the first is a cold start (classes loaded, JIT cold), the others warm. Run it in
 * fresh JVMs for more cold starts; the command is in kubeloop-bench/results/2026-12-02-testkit-start/README.md.
 */
public final class StartTimeProbe {

    @Sample
    @KubeloopTest
    static class OneTest {
        @Test
        void nothing() {}
    }

    public static void main(String[] args) {
        int runs = args.length > 0 ? Integer.parseInt(args[0]) : 21;
        Pattern times = Pattern.compile("started in (\\d+) ms, answering in (\\d+) ms");
        List<String> lines = new ArrayList<>();
        com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean)
                java.lang.management.ManagementFactory.getOperatingSystemMXBean();
        for (int i = 0; i < runs; i++) {
            long cpu0 = os.getProcessCpuTime();
            String report = Samples.run(OneTest.class).allEvents().reportingEntryPublished().stream()
                    .map(e -> e.getRequiredPayload(ReportEntry.class)
                            .getKeyValuePairs()
                            .get("kubeloop.apiserver"))
                    .findFirst()
                    .orElseThrow(() -> new IllegalStateException("no kubeloop.apiserver report entry"));
            Matcher m = times.matcher(report);
            if (!m.find()) {
                throw new IllegalStateException("unexpected report: " + report);
            }
            // CPU time of the whole JVM over the run (every thread: JUnit, the server, the JIT, GC): what the run
            // costs whatever else the machine does, unlike the wall times above
            long cpuMs = (os.getProcessCpuTime() - cpu0) / 1_000_000;
            lines.add((i == 0 ? "cold" : "warm") + " started_ms=" + m.group(1) + " answering_ms=" + m.group(2)
                    + " run_cpu_ms=" + cpuMs);
        }
        lines.forEach(System.out::println);
    }
}
