package io.kubeloop.client.config;

import static io.kubeloop.client.config.ClientCertificateAndTlsTest.assertError;
import static org.assertj.core.api.Assertions.assertThat;

import io.kubeloop.clock.Clock;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** kubeconfig discovery, merging by clientcmd's rules, contexts and namespaces, and every error message. */
class KubeconfigLoadingTest {

    static final String SECRET = "s3cr3t-t0ken-value";

    @TempDir
    Path dir;

    private ConfigLoader loader(Map<String, String> env) {
        return ConfigLoader.of(env, dir.resolve("home"), dir.resolve("no-sa"), Clock.system());
    }

    private Path write(String name, String yaml) throws Exception {
        Path p = dir.resolve(name);
        Files.createDirectories(p.getParent());
        return Files.writeString(p, yaml);
    }

    private static final String FIRST = """
            apiVersion: v1
            kind: Config
            clusters:
            - name: shared
              cluster: {server: "https://first.example:6443"}
            - name: only-first
              cluster: {server: "https://only-first.example"}
            users:
            - name: alice
              user: {token: "alice-token"}
            contexts:
            - name: a
              context: {cluster: shared, user: alice, namespace: team-a}
            - name: both
              context: {cluster: shared, user: alice, namespace: from-first}
            current-context: a
            """;

    private static final String SECOND = """
            apiVersion: v1
            kind: Config
            clusters:
            - name: shared
              cluster: {server: "https://second.example:6443"}
            users:
            - name: alice
              user: {token: "second-alice-token"}
            - name: bob
              user: {username: bob, password: "bob-password"}
            contexts:
            - name: b
              context: {cluster: shared, user: bob}
            - name: both
              context: {cluster: only-first, user: bob, namespace: from-second}
            current-context: b
            """;

    @Test
    void kubeconfigFilesMergeFirstDefinitionWins() throws Exception {
        Path first = write("first", FIRST);
        Path second = write("second", SECOND);
        String list = first + File.pathSeparator + dir.resolve("missing") + File.pathSeparator + second;
        ConfigLoader l = loader(Map.of("KUBECONFIG", list));

        ClientConfig current = l.autodetect(); // current-context from the first file that sets it
        assertThat(current.server()).hasToString("https://first.example:6443");
        assertThat(current.namespace()).isEqualTo("team-a");
        assertThat(current.credentials().authorization()).contains("Bearer alice-token");

        ClientConfig b = l.kubeconfig(null, "b"); // a context only the second file has; cluster "shared" of the first
        assertThat(b.server()).hasToString("https://first.example:6443");
        assertThat(b.namespace()).isEqualTo("default");
        assertThat(b.credentials().authorization())
                .contains("Basic "
                        + Base64.getEncoder().encodeToString("bob:bob-password".getBytes(StandardCharsets.UTF_8)));

        ClientConfig both = l.kubeconfig(null, "both"); // the whole entry of the first file, never field by field
        assertThat(both.namespace()).isEqualTo("from-first");
        assertThat(both.credentials().authorization()).contains("Bearer alice-token");

        ClientConfig reversed = loader(Map.of("KUBECONFIG", second + File.pathSeparator + first))
                .autodetect();
        assertThat(reversed.server()).hasToString("https://second.example:6443");
        assertThat(reversed.credentials().authorization()).get().asString().startsWith("Basic ");
        assertThat(reversed.toString())
                .contains("context b")
                .contains("basic auth user bob")
                .doesNotContain("bob-password");
    }

    @Test
    void homeConfigWhenKubeconfigIsUnsetAndExplicitPathAlone() throws Exception {
        write("home/.kube/config", FIRST);
        Path second = write("second", SECOND);
        assertThat(loader(Map.of()).autodetect().server()).hasToString("https://first.example:6443");
        // KUBECONFIG replaces ~/.kube/config entirely
        assertThat(loader(Map.of("KUBECONFIG", second.toString())).autodetect().server())
                .hasToString("https://second.example:6443");
        // an explicit file is read alone, whatever KUBECONFIG says
        ClientConfig explicit = loader(
                        Map.of("KUBECONFIG", dir.resolve("home/.kube/config").toString()))
                .kubeconfig(second, null);
        assertThat(explicit.server()).hasToString("https://second.example:6443");
        assertThat(explicit.toString()).contains(second.toString()).contains("context b");
    }

    @Test
    void aBareHostServerMeansHttpsAndHttpIsAllowed() throws Exception {
        Path p = write("c", Kubeconfigs.single("kube.example:6443", "", ""));
        assertThat(loader(Map.of()).kubeconfig(p, null).server()).hasToString("https://kube.example:6443");
        Path http = write("h", Kubeconfigs.single("http://127.0.0.1:8080", "", ""));
        ClientConfig c = loader(Map.of()).kubeconfig(http, null);
        assertThat(c.server()).hasToString("http://127.0.0.1:8080");
        assertThat(c.credentials().authorization()).isEmpty();
    }

    @Test
    void execCommandsWithASeparatorResolveAgainstTheKubeconfigFolder() throws Exception {
        // resolved and then run: the error names the resolved path
        Path p = write("sub/config", Kubeconfigs.single("https://x", "", """
                    exec:
                      apiVersion: client.authentication.k8s.io/v1
                      command: ./bin/plugin
                      interactiveMode: Never
                """));
        ClientConfig c = loader(Map.of()).kubeconfig(p, null);
        assertError(
                () -> c.credentials().authorization(),
                dir.resolve("sub/bin/plugin").toString(),
                "cannot start",
                "\u0000");
    }

    // ---- errors ----

    @Test
    void missingFilesAndNoConfiguration() {
        Path missing = dir.resolve("nope/config");
        assertError(() -> loader(Map.of()).kubeconfig(missing, null), missing.toString(), "no such file", "\u0000");
        assertError(
                () -> loader(Map.of()).autodetect(),
                dir.resolve("home/.kube/config").toString(),
                "KUBERNETES_SERVICE_HOST is not set",
                "\u0000");
        assertError(
                () -> loader(Map.of("KUBECONFIG", missing.toString())).kubeconfig(null, null),
                missing.toString(),
                "none of the files in KUBECONFIG exists",
                "\u0000");
    }

    @Test
    void badYamlNamesTheFileAndPositionButNotTheContent() throws Exception {
        Path p = write("bad", "users:\n- name: a\n  user:\n    token: \"" + SECRET + "\n  nope: [\n");
        assertError(() -> loader(Map.of()).kubeconfig(p, null), p.toString(), "is not valid YAML", SECRET);
        Path tab = write("tab", "clusters:\n\t- token: " + SECRET + "\n");
        assertError(() -> loader(Map.of()).kubeconfig(tab, null), tab.toString(), "line", SECRET);
        Path list = write("list", "- " + SECRET + "\n");
        assertError(() -> loader(Map.of()).kubeconfig(list, null), list.toString(), "not a YAML mapping", SECRET);
        Path users = write("users", "users: {name: a}\n");
        assertError(() -> loader(Map.of()).kubeconfig(users, null), users.toString(), "users must be a list", "\u0000");
        Path noName = write("noname", "contexts:\n- context: {cluster: x}\n");
        assertError(() -> loader(Map.of()).kubeconfig(noName, null), "contexts[0]", "has no name", "\u0000");
    }

    @Test
    void unknownContextClusterAndUser() throws Exception {
        Path first = write("first", FIRST);
        ConfigLoader l = loader(Map.of("KUBECONFIG", first.toString()));
        assertError(() -> l.kubeconfig(null, "prod"), "context \"prod\" not found", "contexts: [a, both]", "\u0000");
        Path badCurrent = write("cur", FIRST.replace("current-context: a", "current-context: gone"));
        assertError(
                () -> loader(Map.of()).kubeconfig(badCurrent, null),
                "context \"gone\" not found",
                "current-context of " + badCurrent,
                "\u0000");
        Path noCluster = write(
                "nc",
                FIRST.replace(
                        "{cluster: shared, user: alice, namespace: team-a}", "{cluster: elsewhere, user: alice}"));
        assertError(
                () -> loader(Map.of()).kubeconfig(noCluster, null),
                "context \"a\"",
                "cluster \"elsewhere\" not found",
                "alice-token");
        Path noUser = write(
                "nu",
                FIRST.replace("{cluster: shared, user: alice, namespace: team-a}", "{cluster: shared, user: mallory}"));
        assertError(
                () -> loader(Map.of()).kubeconfig(noUser, null),
                "context \"a\"",
                "user \"mallory\" not found",
                "alice-token");
        Path noCurrent = write("none", FIRST.replace("current-context: a", ""));
        assertError(
                () -> loader(Map.of()).kubeconfig(noCurrent, null),
                noCurrent.toString(),
                "no current-context is set",
                "\u0000");
        Path noServer =
                write("ns", Kubeconfigs.single("", "", "").replace("server: \n", "insecure-skip-tls-verify: true\n"));
        assertError(
                () -> loader(Map.of()).kubeconfig(noServer, null), "cluster \"test\"", "server is not set", "\u0000");
    }

    @Test
    void fieldErrorsNameTheEntryAndField() throws Exception {
        String b64 = Base64.getEncoder().encodeToString(SECRET.getBytes());
        check(
                Kubeconfigs.single("https://x", "    certificate-authority: missing-ca.crt\n", ""),
                "cluster \"test\": certificate-authority",
                "missing-ca.crt: no such file");
        check(
                Kubeconfigs.single(
                        "https://x",
                        "    certificate-authority: a.crt\n    certificate-authority-data: " + b64 + "\n",
                        ""),
                "cluster \"test\"",
                "certificate-authority and certificate-authority-data are both set");
        check(
                Kubeconfigs.single("https://x", "    certificate-authority-data: \"%%" + SECRET + "\"\n", ""),
                "certificate-authority-data",
                "is not valid base64");
        check(
                Kubeconfigs.single("https://x", "    certificate-authority-data: " + b64 + "\n", ""),
                "cluster \"test\": certificate-authority-data",
                "not PEM");
        check(
                Kubeconfigs.single("https://x", "    insecure-skip-tls-verify: maybe\n", ""),
                "cluster \"test\"",
                "insecure-skip-tls-verify must be true or false");
        check(
                Kubeconfigs.single("https://x", "", "    client-certificate-data: " + b64 + "\n"),
                "user \"test\"",
                "client-certificate is set without client-key");
        check(
                Kubeconfigs.single("https://x", "", "    client-key: key.pem\n    client-certificate: cert.pem\n"),
                "user \"test\": client-certificate",
                "no such file");
        check(
                Kubeconfigs.single(
                        "https://x",
                        "",
                        "    client-key-data: " + b64 + "\n    client-certificate-data: " + b64 + "\n"),
                "user \"test\": client-certificate-data",
                "not PEM");
        check(
                Kubeconfigs.single(
                        "https://x", "", "    token: " + SECRET + "\n    username: u\n    password: " + SECRET + "\n"),
                "user \"test\"",
                "only one of token/tokenFile, username/password and exec");
        check(
                Kubeconfigs.single(
                        "https://x", "", "    auth-provider: {name: oidc, config: {id-token: " + SECRET + "}}\n"),
                "user \"test\"",
                "auth-provider plugins are not supported");
        check(
                Kubeconfigs.single("https://x", "", "    tokenFile: no-token\n"),
                "user \"test\": tokenFile " + dir.resolve("no-token"),
                "no such file");
        check(Kubeconfigs.single("https://x", "", """
                    exec:
                      apiVersion: client.authentication.k8s.io/v1
                      command: plugin
                """), "user \"test\": exec", "interactiveMode must be set");
        check(Kubeconfigs.single("https://x", "", """
                    exec:
                      apiVersion: client.authentication.k8s.io/v1beta1
                      command: plugin
                      interactiveMode: Always
                """), "user \"test\": exec", "Always needs a terminal");
        check(Kubeconfigs.single("https://x", "", """
                    exec:
                      apiVersion: client.authentication.k8s.io/v1alpha1
                      command: plugin
                """), "user \"test\": exec", "apiVersion must be");
        check(Kubeconfigs.single("https://x", "", """
                    exec:
                      apiVersion: client.authentication.k8s.io/v1beta1
                """), "user \"test\": exec", "command is not set");
        check(Kubeconfigs.single("ftp://x", "", ""), "cluster \"test\": server", "must be an http or https URL");
    }

    private void check(String yaml, String where, String problem) throws Exception {
        Path p = write("cfg-" + System.nanoTime(), yaml);
        assertError(() -> loader(Map.of()).kubeconfig(p, null), where, problem, SECRET);
        assertError(() -> loader(Map.of()).kubeconfig(p, null), "kubeconfig " + p, problem, SECRET);
    }

    @Test
    void secretsNeverInToString() throws Exception {
        Path p = write("c", Kubeconfigs.single("https://x", "", "    token: " + SECRET + "\n"));
        ClientConfig c = loader(Map.of()).kubeconfig(p, null);
        assertThat(c.toString()).contains("auth=token").doesNotContain(SECRET);
        assertThat(c.credentials().toString()).doesNotContain(SECRET);
        assertThat(c.credentials().authorization()).contains("Bearer " + SECRET);
        ClientConfig basic = ClientConfig.builder()
                .server("https://x")
                .basicAuth("u", SECRET)
                .build();
        assertThat(basic.toString() + basic.credentials()).doesNotContain(SECRET);
        ExecConfig exec =
                ExecConfig.of(ExecConfig.V1, "plugin", "--token=" + SECRET).withEnv(Map.of("TOKEN", SECRET));
        assertThat(exec.toString()).contains("plugin").contains("TOKEN").doesNotContain(SECRET);
    }

    @Test
    void namespaceOverride() throws Exception {
        ClientConfig c =
                ClientConfig.builder().server("https://x").namespace("ops").build();
        assertThat(c.namespace()).isEqualTo("ops");
        assertThat(c.withNamespace("dev").namespace()).isEqualTo("dev");
        assertThat(c.namespace()).isEqualTo("ops");
        assertError(() -> c.withNamespace(" "), "namespace", "empty", "\u0000");
    }
}
