package io.kubeloop.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubeloop.testsupport.GitHead;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class MainTest {

    @RegisterExtension
    final StandardStreams streams = new StandardStreams();

    @Test
    void versionPrintsTheProjectVersionAndTheRuntime() {
        assertThat(Main.run("version")).isZero();
        assertThat(streams.out())
                .startsWith("kubeloop 0.")
                .doesNotContain("${project.version}")
                .contains("Java " + Runtime.version().feature());
    }

    @Test
    void versionNamesTheCommitKubeloopWasBuiltFrom() throws Exception {
        // What git says of this checkout now; the build ran in the same checkout moments ago.
        String head = GitHead.of(Path.of("").toAbsolutePath().getParent());
        assertThat(Main.run("version")).isZero();
        String printed = streams.out();
        assertThat(printed).doesNotContain("${");
        if (head == null) {
            assertThat(printed).contains("(commit unknown;");
        } else {
            assertThat(printed).containsPattern("\\(commit " + head + "( with uncommitted changes)?; Java ");
        }
    }

    @Test
    void versionFlagMatchesVersionCommand() {
        assertThat(Main.run("--version")).isZero();
        assertThat(streams.out().strip()).isEqualTo(VersionCommand.describe());
    }

    @Test
    void helpListsTheCommands() {
        assertThat(Main.run("--help")).isZero();
        assertThat(streams.out()).contains("Usage: kubeloop").contains("version");
    }

    @Test
    void helpListsEveryCommandDemoFirst() {
        assertThat(Main.run("help")).isZero();
        String help = streams.out();
        assertThat(help).contains("Commands:");
        String commands = help.substring(help.indexOf("Commands:"));
        assertThat(commands.lines().map(String::strip).map(l -> l.split(" ")[0]))
                .containsSubsequence(
                        "demo",
                        "apiserver",
                        "node",
                        "pod",
                        "controllers",
                        "fault",
                        "mint-kubeconfig",
                        "rbac",
                        "run",
                        "version",
                        "help");
    }

    @Test
    void aSubcommandIsRunWithoutTheModelsOfTheOthers() {
        assertThat(Main.commandLine("demo", "--quiet").getSubcommands()).containsOnlyKeys("demo");
        assertThat(Main.commandLine("--help").getSubcommands()).hasSize(11);
        assertThat(Main.commandLine("help", "demo").getSubcommands()).hasSize(11);
        assertThat(Main.commandLine("frobnicate").getSubcommands()).hasSize(11);
        assertThat(Main.run("demo", "--help")).isZero();
        assertThat(streams.out()).startsWith("Usage: kubeloop demo");
    }

    @Test
    void unknownCommandFailsWithAClearMessage() {
        assertThat(Main.run("frobnicate")).isEqualTo(2);
        assertThat(streams.err()).contains("Unmatched argument").contains("frobnicate");
    }
}
