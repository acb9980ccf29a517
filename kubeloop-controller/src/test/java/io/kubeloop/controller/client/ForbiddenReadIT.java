package io.kubeloop.controller.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.kubeloop.apiserver.EmbeddedApiServer;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.client.config.ClientConfig;
import io.kubeloop.controller.ControllerClient;
import io.kubeloop.controller.Manager;
import io.kubeloop.testkit.KubeloopTest;
import io.kubeloop.testkit.TestNamespace;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A read of a type RBAC does not let the manager list: the lazily started informer cannot sync, and the read fails
 * within the cache sync timeout naming the type and the forbidden list, instead of hanging
 * (controller-runtime#550, #1653).
 */
@KubeloopTest(tls = true, rbac = true)
class ForbiddenReadIT {

    @Test
    void aForbiddenTypeFailsTheReadWithTheReason(
            KubernetesClient admin, EmbeddedApiServer server, @TestNamespace String ns, @TempDir Path dir)
            throws Exception {
        String user = "reader-" + ns;
        admin.resources(io.fabric8.kubernetes.api.model.rbac.ClusterRole.class)
                .create(new ClusterRoleBuilder()
                        .withNewMetadata()
                        .withName(user)
                        .endMetadata()
                        .addNewRule()
                        .withApiGroups("")
                        .withResources("configmaps")
                        .withVerbs("get", "list", "watch")
                        .endRule()
                        .build());
        admin.resources(io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding.class)
                .create(new ClusterRoleBindingBuilder()
                        .withNewMetadata()
                        .withName(user)
                        .endMetadata()
                        .withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", user)
                        .addNewSubject()
                        .withKind("User")
                        .withName(user)
                        .withApiGroup("rbac.authorization.k8s.io")
                        .endSubject()
                        .build());
        ClientConfig config = ClientConfig.fromKubeconfig(server.writeKubeconfigFor(dir.resolve("kubeconfig"), user));
        try (KubernetesClient client = KubernetesClient.create(config);
                Manager manager = Manager.builder(client)
                        .metricsPort(0)
                        .healthProbePort(0)
                        .cacheSyncTimeout(Duration.ofSeconds(2))
                        .build()) {
            manager.informerFactory().informerFor(ConfigMap.class);
            manager.start();
            ControllerClient cc = manager.client();
            assertThat(cc.list(ConfigMap.class, ns)).isNotNull();

            assertThatThrownBy(() -> cc.get(Secret.class, ns, "any"))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("Secret (secrets)")
                    .hasMessageContaining("timed out after PT2S")
                    .hasMessageContainingAll("last error", "orbidden");
        } finally {
            admin.resources(io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding.class)
                    .delete(user);
            admin.resources(io.fabric8.kubernetes.api.model.rbac.ClusterRole.class)
                    .delete(user);
        }
    }
}
