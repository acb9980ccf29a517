package io.kubeloop.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
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
}
