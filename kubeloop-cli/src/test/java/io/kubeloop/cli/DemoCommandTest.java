package io.kubeloop.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kubeloop.demo.Demo;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code kubeloop demo}'s options: what it accepts, and the errors that name what was wrong before any cluster. */
class DemoCommandTest {

    @RegisterExtension
    final StandardStreams streams = new StandardStreams();

    private String out() {
        return streams.out();
    }

    private String err() {
        return streams.err();
    }

    /** The command with {@code args} parsed, not run. */
    private static DemoCommand parsed(String... args) {
        DemoCommand demo = new DemoCommand();
        new CommandLine(demo).parseArgs(args);
        return demo;
    }

    @Test
    void defaultsAreTheIssuesAndTheBannerSaysThem() {
        DemoCommand demo = parsed();
        assertThat(demo.duration).isEqualTo(Duration.ofSeconds(60));
        assertThat(demo.speed).isEqualTo(10);
        assertThat(demo.replicas).isEqualTo(20);
        assertThat(demo.nodes).isEqualTo(3);
        assertThat(demo.scenario).isEqualTo("incident");
        assertThat(demo.seed).isNull();
        assertThat(demo.report).isNull();
        assertThat(demo.quiet).isFalse();
        assertThat(demo.banner())
                .isEqualTo("kubeloop demo: scenario incident, 3 nodes, 20 replicas, speed 10 (about 60 s); "
                        + "Ctrl-C stops it");
        assertThat(parsed("--nodes", "1", "--replicas", "1", "--speed", "2.5", "--duration", "1m30s")
                        .banner())
                .isEqualTo(
                        "kubeloop demo: scenario incident, 1 node, 1 replica, speed 2.5 (about 90 s); Ctrl-C stops it");
    }

    @Test
    void durationsAreSecondsOrNumbersWithUnits() {
        DemoCommand.DurationConverter convert = new DemoCommand.DurationConverter();
        assertThat(convert.convert("90")).isEqualTo(Duration.ofSeconds(90));
        assertThat(convert.convert("2.5")).isEqualTo(Duration.ofMillis(2500));
        assertThat(convert.convert("60s")).isEqualTo(Duration.ofSeconds(60));
        assertThat(convert.convert("2m")).isEqualTo(Duration.ofMinutes(2));
        assertThat(convert.convert("1m30s")).isEqualTo(Duration.ofSeconds(90));
        assertThat(convert.convert("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(convert.convert("1h")).isEqualTo(Duration.ofHours(1));
        for (String bad : new String[] {"", "abc", "5x", "m", "1m 30s", "-5", "s60", "1.s"}) {
            assertThatThrownBy(() -> convert.convert(bad))
                    .as(bad)
                    .isInstanceOf(CommandLine.TypeConversionException.class)
                    .hasMessageContaining("is not a duration");
        }
        assertThatThrownBy(() -> convert.convert("0")).hasMessageContaining("between a millisecond and a day");
        assertThatThrownBy(() -> convert.convert("25h")).hasMessageContaining("between a millisecond and a day");
    }

    @Test
    void aBadDurationIsAUsageErrorNamingTheOption() {
        assertThat(Main.run("demo", "--duration", "soon")).isEqualTo(2);
        assertThat(err())
                .contains("--duration")
                .contains("'soon' is not a duration")
                .contains("Usage: kubeloop demo");
        assertThat(out()).doesNotContain("kubeloop demo: scenario");
    }

    @Test
    void badNumbersAreUsageErrorsNamingTheOption() {
        assertThat(Main.run("demo", "--speed", "0")).isEqualTo(2);
        assertThat(err()).contains("--speed must be a positive number, was 0.0");
        streams.reset();
        assertThat(Main.run("demo", "--speed", "fast")).isEqualTo(2);
        assertThat(err()).contains("--speed").contains("'fast'");
        streams.reset();
        assertThat(Main.run("demo", "--replicas", "0")).isEqualTo(2);
        assertThat(err()).contains("--replicas must be at least 1, was 0");
        streams.reset();
        assertThat(Main.run("demo", "--nodes", "-1")).isEqualTo(2);
        assertThat(err()).contains("--nodes must be at least 1, was -1");
        streams.reset();
        assertThat(Main.run("demo", "--seed", "lucky")).isEqualTo(2);
        assertThat(err()).contains("--seed").contains("'lucky'");
        assertThat(out()).doesNotContain("kubeloop demo: scenario");
    }

    @Test
    void anUnknownScenarioIsAUsageErrorListingTheScenarios() {
        assertThat(Main.run("demo", "--scenario", "meteor")).isEqualTo(2);
        assertThat(err())
                .contains("--scenario: unknown scenario 'meteor'; the scenarios are incident, kill-pods, node-failure, "
                        + "network-cut, relist, failover, noisy-neighbour");
        assertThat(out()).doesNotContain("kubeloop demo: scenario");
    }

    @Test
    void aRunTooShortForItsScenarioIsRefusedBeforeTheBanner() {
        assertThat(Main.run("demo", "--scenario", "incident", "--duration", "10"))
                .isEqualTo(2);
        assertThat(err())
                .contains("scenario 'incident' needs at least")
                .contains("give a duration of at least")
                .contains("Usage: kubeloop demo");
        assertThat(out()).isEmpty();
        streams.reset();
        assertThat(Main.run("demo", "--scenario", "node-failure", "--nodes", "1"))
                .isEqualTo(2);
        assertThat(err()).contains("scenario 'node-failure' fails a node: it needs at least 2 nodes, got 1");
        assertThat(out()).isEmpty();
    }

    @Test
    void listsTheScenariosAsATable() {
        assertThat(Main.run("demo", "--scenario", "list")).isZero();
        String listed = out();
        assertThat(Main.run("demo", "--list-scenarios")).isZero();
        assertThat(out()).isEqualTo(listed + listed);
        String[] lines = listed.split("\n");
        assertThat(lines).hasSize(Demo.scenarios().size() + 1);
        assertThat(lines[0]).matches("SCENARIO +WHAT HAPPENS");
        int column = lines[0].indexOf("WHAT HAPPENS");
        int i = 1;
        for (var scenario : Demo.scenarios().entrySet()) {
            assertThat(lines[i].substring(0, column).strip()).isEqualTo(scenario.getKey());
            assertThat(lines[i].substring(column)).startsWith(scenario.getValue());
            i++;
        }
        assertThat(lines[1]).startsWith("incident").endsWith("(default)");
    }

    @Test
    void aReportInADirectoryThatDoesNotExistIsRefusedBeforeStarting(@TempDir Path tmp) {
        Path missing = tmp.resolve("no-such-dir").resolve("report.json");
        assertThat(Main.run("demo", "--report", missing.toString())).isEqualTo(2);
        assertThat(err())
                .contains("--report " + missing + ": the directory " + missing.getParent() + " does not exist");
        assertThat(out()).doesNotContain("kubeloop demo: scenario");
        streams.reset();
        assertThat(Main.run("demo", "--report", tmp.toString())).isEqualTo(2);
        assertThat(err()).contains("--report " + tmp + " is a directory, not a file");
    }

    @Test
    void aTestJvmWritingToAPipeIsNoTerminal() {
        // Surefire's output is a pipe: the live view must print plain lines there, not ANSI.
        assertThat(DemoCommand.interactiveTerminal()).isFalse();
    }

    @Test
    void helpListsTheOptions() {
        assertThat(Main.run("demo", "--help")).isZero();
        assertThat(out())
                .contains("Usage: kubeloop demo")
                .contains("--duration")
                .contains("--seed")
                .contains("--speed")
                .contains("--replicas")
                .contains("--nodes")
                .contains("--scenario")
                .contains("--list-scenarios")
                .contains("--report")
                .contains("--quiet");
    }
}
