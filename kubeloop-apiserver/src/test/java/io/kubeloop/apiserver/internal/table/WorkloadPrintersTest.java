package io.kubeloop.apiserver.internal.table;

import static io.kubeloop.apiserver.internal.table.TestObjects.NOW;
import static io.kubeloop.apiserver.internal.table.TestObjects.object;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Deployment, ReplicaSet, StatefulSet and DaemonSet cells. */
class WorkloadPrintersTest {

    private static final String TEMPLATE = "\"template\":{\"metadata\":{\"labels\":{\"app\":\"web\"}},\"spec\":{"
            + "\"nodeSelector\":{\"zone\":\"a\",\"disk\":\"ssd\"},"
            + "\"containers\":[{\"name\":\"nginx\",\"image\":\"nginx:1.25\"},{\"name\":\"log\",\"image\":\"busybox\"}]}}";

    @Test
    void deployment() {
        var deployment = object(
                "web",
                "\"spec\":{\"replicas\":3,\"selector\":{\"matchLabels\":{\"app\":\"web\","
                        + "\"tier\":\"front\"},\"matchExpressions\":[{\"key\":\"env\",\"operator\":\"In\",\"values\":"
                        + "[\"prod\",\"dev\"]}]}," + TEMPLATE + "},"
                        + "\"status\":{\"readyReplicas\":2,\"updatedReplicas\":3,\"availableReplicas\":1}");
        assertThat(new DeploymentPrinter().row(deployment, NOW).cells())
                .containsExactly(
                        "web",
                        "2/3",
                        3L,
                        1L,
                        "5m",
                        "nginx,log",
                        "nginx:1.25,busybox",
                        "app=web,env in (dev,prod),tier=front");
        assertThat(new DeploymentPrinter().columns())
                .extracting(Column::name)
                .containsExactly("Name", "Ready", "Up-to-date", "Available", "Age", "Containers", "Images", "Selector");
    }

    @Test
    void newDeploymentDefaultsToOneReplicaAndZeroStatus() {
        var deployment = object("web", "\"spec\":{" + TEMPLATE + "}");
        assertThat(new DeploymentPrinter().row(deployment, NOW).cells().subList(1, 4))
                .containsExactly("0/1", 0L, 0L);
        assertThat(new DeploymentPrinter().row(deployment, NOW).cells().get(7)).isEqualTo("");
    }

    @Test
    void deploymentWithAnInvalidSelectorOperator() {
        var deployment = object(
                "web", "\"spec\":{\"selector\":{\"matchExpressions\":[{\"key\":\"a\"," + "\"operator\":\"Near\"}]}}");
        assertThat(new DeploymentPrinter().row(deployment, NOW).cells().get(7)).isEqualTo("<invalid>");
    }

    @Test
    void replicaSet() {
        var rs = object(
                "web-6d4cf56db6",
                "\"spec\":{\"replicas\":2,\"selector\":{\"matchLabels\":{\"app\":\"web\"},"
                        + "\"matchExpressions\":[{\"key\":\"canary\",\"operator\":\"DoesNotExist\"},{\"key\":\"track\","
                        + "\"operator\":\"Exists\"},{\"key\":\"env\",\"operator\":\"NotIn\",\"values\":[\"test\"]}]},"
                        + TEMPLATE + "},\"status\":{\"replicas\":2,\"readyReplicas\":1}");
        assertThat(new ReplicaSetPrinter().row(rs, NOW).cells())
                .containsExactly(
                        "web-6d4cf56db6",
                        2L,
                        2L,
                        1L,
                        "5m",
                        "nginx,log",
                        "nginx:1.25,busybox",
                        "app=web,!canary,env notin (test),track");
        var noSelector = object("x", "\"spec\":{}");
        assertThat(new ReplicaSetPrinter().row(noSelector, NOW).cells().get(7)).isEqualTo("<none>");
    }

    @Test
    void statefulSet() {
        var sts = object("db", "\"spec\":{\"replicas\":3," + TEMPLATE + "},\"status\":{\"readyReplicas\":3}");
        assertThat(new StatefulSetPrinter().row(sts, NOW).cells())
                .containsExactly("db", "3/3", "5m", "nginx,log", "nginx:1.25,busybox");
    }

    @Test
    void daemonSet() {
        var ds = object(
                "agent",
                "\"spec\":{\"selector\":{\"matchLabels\":{\"app\":\"agent\"}}," + TEMPLATE + "},"
                        + "\"status\":{\"desiredNumberScheduled\":3,\"currentNumberScheduled\":3,\"numberReady\":2,"
                        + "\"updatedNumberScheduled\":3,\"numberAvailable\":2}");
        assertThat(new DaemonSetPrinter().row(ds, NOW).cells())
                .containsExactly(
                        "agent",
                        3L,
                        3L,
                        2L,
                        3L,
                        2L,
                        "disk=ssd,zone=a",
                        "5m",
                        "nginx,log",
                        "nginx:1.25,busybox",
                        "app=agent");
        var plain = object("plain", "\"spec\":{\"template\":{\"spec\":{\"containers\":[]}}}");
        assertThat(new DaemonSetPrinter().row(plain, NOW).cells().get(6)).isEqualTo("<none>");
    }
}
