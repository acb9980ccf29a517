package io.kubeloop.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubeloop.apiserver.EmbeddedApiServer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kubeloop apiserver --nodes 3 --speed 10} and the commands that operate its cluster ({@code node}, {@code pod},
 * {@code controllers}) through the admin path, as a user runs them: one server for the class.
 */
class ClusterCommandsTest {

    @TempDir
    static Path dir;

    private static RunningApiServer apiserver;
    private static Path kubeconfig;

    private final PrintStream originalOut = System.out;
    private final PrintStream originalErr = System.err;
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @BeforeAll
    static void startCluster() {
        kubeconfig = dir.resolve("kubeconfig");
        apiserver = RunningApiServer.start(
                Duration.ofSeconds(60),
                "--port",
                "0",
                "--nodes",
                "3",
                "--speed",
                "10",
                "--kubeconfig-out",
                kubeconfig.toString());
    }

    @AfterAll
    static void stopCluster() throws InterruptedException {
        apiserver.stop();
        assertThat(apiserver.exit()).isZero();
    }

    @BeforeEach
    void captureOutput() {
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @AfterEach
    void restoreOutput() {
        System.setOut(originalOut);
        System.setErr(originalErr);
    }

    private int run(String... args) {
        out.reset();
        err.reset();
        String[] all = new String[args.length + 1];
        all[0] = args[0];
        all[1] = "--kubeconfig=" + kubeconfig;
        System.arraycopy(args, 1, all, 2, args.length - 1);
        return Main.run(all);
    }

    private String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    @Test
    void apiserverSaysHowManyNodesAreReadyAndTheSpeed() {
        assertThat(apiserver.printed())
                .contains("cluster: 3 nodes Ready (node-1, node-2, node-3), speed 10×")
                .contains("kubectl create deployment web");
    }

    @Test
    void nodesAreListedStoppedPartitionedAndStartedAgain() {
        assertThat(run("node", "list")).as(err()).isZero();
        assertThat(out())
                .contains("NAME")
                .containsPattern("node-1 +RUNNING +zone-a")
                .containsPattern("node-2 +RUNNING +zone-b")
                .containsPattern("node-3 +RUNNING +zone-c");

        assertThat(run("node", "stop", "node-2")).as(err()).isZero();
        assertThat(out()).contains("node/node-2 stopped (state STOPPED)");
        assertThat(run("node", "partition", "node-3", "--seconds", "600"))
                .as(err())
                .isZero();
        assertThat(out()).contains("node/node-3 partitioned for 600.0 s (state PARTITIONED)");
        assertThat(run("node", "list")).as(err()).isZero();
        assertThat(out()).containsPattern("node-2 +STOPPED").containsPattern("node-3 +PARTITIONED");

        assertThat(run("node", "start", "node-2")).as(err()).isZero();
        assertThat(out()).contains("node/node-2 started (state RUNNING)");
        assertThat(run("node", "start", "node-3")).as(err()).isZero();
        assertThat(run("node", "list")).as(err()).isZero();
        assertThat(out()).doesNotContain("STOPPED").doesNotContain("PARTITIONED");
    }

    @Test
    void anUnknownNodeIsNamedWithTheNodesThereAre() {
        assertThat(run("node", "stop", "node-9")).isEqualTo(1);
        assertThat(err())
                .startsWith("kubeloop: the server answered 404: node \"node-9\" not found; the cluster's nodes are "
                        + "node-1, node-2, node-3")
                .doesNotContain("\tat ");
        assertThat(run("node", "partition", "node-1", "--seconds", "-1")).isEqualTo(2);
        assertThat(err()).contains("--seconds must be a positive number");
    }

    @Test
    void crashingAPodThatDoesNotExistSaysSo() {
        assertThat(run("pod", "crash", "nothing-here", "-n", "default")).isEqualTo(1);
        assertThat(err()).startsWith("kubeloop: the server answered 404: ").contains("nothing-here");
    }

    @Test
    void theControllersRestart() {
        assertThat(run("controllers", "restart")).as(err()).isZero();
        assertThat(out()).containsPattern("controllers restarted \\(start \\d+\\)");
    }

    @Test
    void aServerWithoutAClusterSaysHowToStartOne() {
        try (EmbeddedApiServer plain = EmbeddedApiServer.builder().start()) {
            for (String[] command :
                    new String[][] {{"node", "list"}, {"node", "stop", "node-1"}, {"controllers", "restart"}}) {
                out.reset();
                err.reset();
                String[] all = new String[command.length + 1];
                all[0] = command[0];
                all[1] = "--server=" + plain.url();
                System.arraycopy(command, 1, all, 2, command.length - 1);
                assertThat(Main.run(all)).as(String.join(" ", command)).isEqualTo(1);
                assertThat(err())
                        .as(String.join(" ", command))
                        .startsWith("kubeloop: the server at " + plain.url() + " runs no embedded cluster")
                        .contains("kubeloop apiserver --nodes 3");
            }
        }
    }

    @Test
    void speedWithoutNodesIsRefused() {
        assertThat(Main.run("apiserver", "--port", "0", "--speed", "10")).isEqualTo(2);
        assertThat(err()).contains("--speed sets the embedded cluster's speed: give --nodes N as well");
        assertThat(Main.run("apiserver", "--port", "0", "--nodes", "-1")).isEqualTo(2);
        assertThat(err()).contains("--nodes must not be negative");
    }
}
