package io.kubeloop.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubeloop.client.KubernetesClient;
import io.kubeloop.client.config.ClientConfig;
import io.kubeloop.controller.Manager;
import io.kubeloop.demo.PodGuardian;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class RbacCommandTest {

    private final PrintStream originalOut = System.out;
    private final PrintStream originalErr = System.err;
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @BeforeEach
    void capture() {
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @AfterEach
    void restore() {
        System.setOut(originalOut);
        System.setErr(originalErr);
    }

    private static final String EXPECTED = """
            # RBAC for a kubeloop manager, derived from its informers, controllers and leader election.
            # Bind it to the manager's ServiceAccount (RoleBinding per Role, ClusterRoleBinding for a ClusterRole).
            apiVersion: rbac.authorization.k8s.io/v1
            kind: ClusterRole
            metadata:
              name: "sample"
            rules:
            - apiGroups: [""]
              resources: ["namespaces"]
              verbs: ["get", "list", "watch"]
            ---
            apiVersion: rbac.authorization.k8s.io/v1
            kind: Role
            metadata:
              name: "sample"
              namespace: "default"
            rules:
            - apiGroups: [""]
              resources: ["configmaps"]
              verbs: ["get", "list", "watch"]
            """;

    @Test
    void printsTheRolesOfAManagerFromAStaticMethod() {
        assertThat(Main.run("rbac", "--class", SampleOperator.class.getName(), "--name", "sample"))
                .as(err.toString(StandardCharsets.UTF_8))
                .isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo(EXPECTED);
    }

    @Test
    void printsTheRolesOfAManagerFromASupplier() {
        assertThat(Main.run("rbac", "--class", SampleOperator.AsSupplier.class.getName(), "--name", "sample"))
                .as(err.toString(StandardCharsets.UTF_8))
                .isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo(EXPECTED);
    }

    @Test
    void namesWhatIsWrongWithTheClass() {
        assertThat(Main.run("rbac", "--class", "com.example.Missing")).isEqualTo(1);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .contains("kubeloop: class com.example.Missing not found on kubeloop's class path (add --class-path)");
        err.reset();
        assertThat(Main.run("rbac", "--class", SampleOperator.NotAnOperator.class.getName()))
                .isEqualTo(1);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .contains("has no 'public static Manager manager()' method and does not implement Supplier<Manager>");
        err.reset();
        assertThat(Main.run("rbac", "--class", "x", "--class-path", "/no/such/dir"))
                .isEqualTo(1);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--class-path entry /no/such/dir does not exist");
    }

    @Test
    void withoutAClassPrintsWhatKubeloopRunNeeds() throws Exception {
        // What deploy/30-rbac.yaml is made from: kubeloop run --leader-election with its Lease in pod-guardian.
        String derived;
        try (KubernetesClient nowhere = KubernetesClient.create(
                        ClientConfig.builder().server("http://127.0.0.1:9").build());
                Manager manager = PodGuardian.builder(nowhere)
                        .leaderElection("pod-guardian")
                        .build()) {
            derived = manager.rbac("pod-guardian");
        }
        assertThat(Main.run("rbac", "--leader-election", "--lease-namespace", "pod-guardian", "--name", "pod-guardian"))
                .as(err.toString(StandardCharsets.UTF_8))
                .isZero();
        String printed = out.toString(StandardCharsets.UTF_8);
        assertThat(printed).isEqualTo(derived);
        // deploy/README.md regenerates deploy/30-rbac.yaml with exactly this command
        Path deployed = Path.of("").toAbsolutePath().getParent().resolve("deploy/30-rbac.yaml");
        assertThat(printed).isEqualTo(Files.readString(deployed));
        assertThat(printed)
                .contains("kind: ClusterRole\n")
                .contains("resources: [\"podsets/status\"]")
                .contains("namespace: \"pod-guardian\"\nrules:\n- apiGroups: [\"coordination.k8s.io\"]\n"
                        + "  resources: [\"leases\"]");
    }

    @Test
    void withoutAClassForOneNamespaceItIsARole() {
        assertThat(Main.run("rbac", "--namespace", "shop")).isZero();
        String yaml = out.toString(StandardCharsets.UTF_8);
        assertThat(yaml)
                .contains("kind: Role\n")
                .doesNotContain("kind: ClusterRole")
                .contains("namespace: \"shop\"");
        assertThat(yaml).contains("resources: [\"podsets\"]").contains("resources: [\"pods\"]");
        assertThat(yaml).doesNotContain("leases");
    }

    @Test
    void podGuardianOptionsDoNotGoWithAClass() {
        assertThat(Main.run("rbac", "--class", SampleOperator.class.getName(), "--namespace", "x"))
                .isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--namespace configures pod-guardian");
        err.reset();
        assertThat(Main.run("rbac", "--lease-namespace", "x")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--lease-namespace needs --leader-election");
    }
}
