package io.kubeloop.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The real kubectl against the pod and workload rules: what {@code kubectl run} and {@code kubectl create
 * deployment} store carries kube's defaults, and an invalid object or a forbidden pod update is refused with
 * kube's words.
 */
class KubectlWorkloadDefaultsIT extends KubectlTest {

    @Test
    void runAndCreateDeploymentStoreKubesDefaultsAndRefuseWhatKubeRefuses() throws Exception {
        assertThat(kubectl.run("run", "web", "--image=nginx:1.27").ok().out().strip())
                .isEqualTo("pod/web created");
        String pod = kubectl.run(
                        "get",
                        "pod",
                        "web",
                        "-o",
                        "jsonpath={.spec.containers[0].imagePullPolicy} {.spec.restartPolicy} {.spec.dnsPolicy} "
                                + "{.spec.schedulerName} {.spec.terminationGracePeriodSeconds} "
                                + "{.spec.serviceAccountName} {.spec.tolerations[*].key} {.status.phase} "
                                + "{.status.qosClass}")
                .ok()
                .out();
        assertThat(pod)
                .isEqualTo("IfNotPresent Always ClusterFirst default-scheduler 30 default "
                        + "node.kubernetes.io/not-ready node.kubernetes.io/unreachable Pending BestEffort");

        assertThat(kubectl.run("create", "deployment", "app", "--image=nginx")
                        .ok()
                        .out()
                        .strip())
                .isEqualTo("deployment.apps/app created");
        String deployment = kubectl.run(
                        "get",
                        "deployment",
                        "app",
                        "-o",
                        "jsonpath={.spec.strategy.type} {.spec.strategy.rollingUpdate.maxSurge} "
                                + "{.spec.revisionHistoryLimit} {.spec.progressDeadlineSeconds} "
                                + "{.spec.template.spec.containers[0].imagePullPolicy}")
                .ok()
                .out();
        assertThat(deployment).isEqualTo("RollingUpdate 25% 10 600 Always");

        var refused =
                kubectl.run("patch", "pod", "web", "--type=merge", "-p", "{\"spec\":{\"restartPolicy\":\"Never\"}}");
        assertThat(refused.exit()).isNotZero();
        assertThat(refused.err())
                .contains("The Pod \"web\" is invalid: spec: Forbidden: pod updates may not change fields other than");
        assertThat(kubectl.run("set", "image", "pod/web", "web=nginx:1.28")
                        .ok()
                        .out()
                        .strip())
                .isEqualTo("pod/web image updated");

        var invalid = kubectl.run("run", "bad", "--image=nginx", "--port=70000");
        assertThat(invalid.exit()).isNotZero();
        assertThat(invalid.err())
                .contains("The Pod \"bad\" is invalid: spec.containers[0].ports[0].containerPort: Invalid value: "
                        + "70000: must be between 1 and 65535, inclusive");
        assertThat(kubectl.run("get", "pod", "bad").exit()).isNotZero();
    }
}
