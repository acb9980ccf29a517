package io.kubeloop.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubeloop.client.config.ClientConfig;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** {@code kubeloop run}'s options and the errors it gives before it reaches a cluster. */
class RunCommandTest {

    private static final String TOKEN = "s3cr3t-t0ken-never-printed";

    @RegisterExtension
    final StandardStreams streams = new StandardStreams();

    private String err() {
        return streams.err();
    }

    @Test
    void aMissingKubeconfigIsNamed(@TempDir Path tmp) {
        Path missing = tmp.resolve("nope.yaml");
        assertThat(Main.run("run", "--kubeconfig", missing.toString())).isEqualTo(1);
        assertThat(err()).contains("kubeloop: kubeconfig " + missing + ": no such file");
    }

    @Test
    void aBrokenKubeconfigIsNamedWithItsProblemAndNoSecret(@TempDir Path tmp) throws Exception {
        Path notYaml = tmp.resolve("broken.yaml");
        Files.writeString(notYaml, "users: [ {name: u, user: {token: " + TOKEN + "}\n: : :\n");
        assertThat(Main.run("run", "--kubeconfig", notYaml.toString())).isEqualTo(1);
        assertThat(err())
                .contains("kubeloop: kubeconfig " + notYaml + " is not valid YAML")
                .doesNotContain(TOKEN);

        streams.reset();
        Path noServer = tmp.resolve("no-server.yaml");
        Files.writeString(noServer, """
                apiVersion: v1
                kind: Config
                current-context: c
                contexts:
                - name: c
                  context: {cluster: k, user: u}
                clusters:
                - name: k
                  cluster: {}
                users:
                - name: u
                  user: {token: %s}
                """.formatted(TOKEN));
        assertThat(Main.run("run", "--kubeconfig", noServer.toString())).isEqualTo(1);
        assertThat(err()).contains("kubeloop: ").contains("server is not set").doesNotContain(TOKEN);

        streams.reset();
        assertThat(Main.run("run", "--kubeconfig", noServer.toString(), "--context", "other"))
                .isEqualTo(1);
        assertThat(err()).contains("context \"other\" not found").doesNotContain(TOKEN);
        assertThat(streams.out()).isEmpty();
    }

    @Test
    void podGuardianOptionsDoNotGoWithAClassOfOnesOwn() {
        assertThat(Main.run("run", "--class", SampleOperator.class.getName(), "--namespace", "x"))
                .isEqualTo(2);
        assertThat(err()).contains("--namespace configures pod-guardian; with --class");
        streams.reset();
        assertThat(Main.run("run", "--class", SampleOperator.class.getName(), "--leader-election"))
                .isEqualTo(2);
        assertThat(err()).contains("--leader-election configures pod-guardian");
        streams.reset();
        assertThat(Main.run("run", "--class-path", ".")).isEqualTo(2);
        assertThat(err()).contains("--class-path needs --class");
    }

    @Test
    void badPortsAndAddressesAreUsageErrors() {
        assertThat(Main.run("run", "--metrics-port", "70000")).isEqualTo(2);
        assertThat(err()).contains("--metrics-port must be a port (0 for any free one, -1 for none), was 70000");
        streams.reset();
        assertThat(Main.run("run", "--health-port", "-2")).isEqualTo(2);
        assertThat(err()).contains("--health-port must be a port");
        streams.reset();
        assertThat(Main.run("run", "--bind-address", "[::1")).isEqualTo(2);
        assertThat(err()).contains("--bind-address: unknown host [::1");
        streams.reset();
        assertThat(Main.run("run", "--lease-namespace", "ops")).isEqualTo(2);
        assertThat(err()).contains("--lease-namespace needs --leader-election");
    }

    @Test
    void theLeaseNamespaceIsThePodsElseTheContexts(@TempDir Path tmp) throws Exception {
        ClientConfig config = ClientConfig.builder()
                .server(URI.create("http://127.0.0.1:1"))
                .namespace("team-a")
                .build();
        Path serviceAccount = tmp.resolve("serviceaccount");
        assertThat(RunCommand.defaultLeaseNamespace(serviceAccount, config)).isEqualTo("team-a");
        Files.createDirectories(serviceAccount);
        Files.writeString(serviceAccount.resolve("namespace"), "  \n");
        assertThat(RunCommand.defaultLeaseNamespace(serviceAccount, config)).isEqualTo("team-a");
        Files.writeString(serviceAccount.resolve("namespace"), "operators\n");
        assertThat(RunCommand.defaultLeaseNamespace(serviceAccount, config)).isEqualTo("operators");
        assertThat(RunCommand.defaultLeaseNamespace(
                        tmp.resolve("none"),
                        ClientConfig.builder()
                                .server(URI.create("http://127.0.0.1:1"))
                                .build()))
                .isEqualTo("default");
    }

    @Test
    void theServerIsPrintedWithoutCredentials() {
        assertThat(RunCommand.withoutUserInfo(URI.create("https://admin:" + TOKEN + "@10.0.0.1:6443/prefix")))
                .isEqualTo("https://10.0.0.1:6443/prefix");
        assertThat(RunCommand.withoutUserInfo(URI.create("https://10.0.0.1:6443")))
                .isEqualTo("https://10.0.0.1:6443");
    }

    @Test
    void theIdentityIsTheHostsName() {
        String hostname = System.getenv("HOSTNAME");
        String identity = RunCommand.defaultIdentity();
        assertThat(identity).isNotBlank();
        if (hostname != null && !hostname.isBlank()) {
            assertThat(identity).isEqualTo(hostname.strip());
        }
    }
}
