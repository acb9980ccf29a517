package io.kubeloop.apiserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * An informer that logs in with a minted client certificate, under RBAC: with {@code get} alone its list is
 * refused with kube's 403 and it never syncs; once a Role grants {@code list} and {@code watch}, it syncs on
 * its next retry and then sees changes.
 */
class Fabric8SecureInformerIT {

    private final EmbeddedApiServer server =
            EmbeddedApiServer.builder().tls().rbac(true).start();
    private final KubernetesClient admin = client(server.kubeconfig());
    private final KubernetesClient alice = client(server.kubeconfigFor("alice", "devs"));

    @AfterEach
    void stop() {
        alice.close();
        admin.close();
        server.close();
    }

    private static KubernetesClient client(String kubeconfig) {
        return new KubernetesClientBuilder()
                .withConfig(Config.fromKubeconfig(kubeconfig))
                .build();
    }

    private void role(String... verbs) {
        admin.rbac()
                .roles()
                .inNamespace("default")
                .resource(new io.fabric8.kubernetes.api.model.rbac.RoleBuilder()
                        .withNewMetadata()
                        .withName("cm")
                        .endMetadata()
                        .addNewRule()
                        .withApiGroups("")
                        .withResources("configmaps")
                        .withVerbs(verbs)
                        .endRule()
                        .build())
                .createOr(existing -> existing.update());
    }

    @Test
    void anInformerWithoutListAndWatchNeverSyncsUntilTheyAreGranted() {
        admin.configMaps()
                .inNamespace("default")
                .resource(new ConfigMapBuilder()
                        .withNewMetadata()
                        .withName("a")
                        .endMetadata()
                        .addToData("k", "v")
                        .build())
                .create();
        role("get");
        admin.rbac()
                .roleBindings()
                .inNamespace("default")
                .resource(new io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder()
                        .withNewMetadata()
                        .withName("alice")
                        .endMetadata()
                        .withNewRoleRef("rbac.authorization.k8s.io", "Role", "cm")
                        .addNewSubject()
                        .withKind("User")
                        .withName("alice")
                        .endSubject()
                        .build())
                .create();
        assertThat(alice.configMaps().inNamespace("default").withName("a").get().getData())
                .containsEntry("k", "v");

        List<Throwable> failures = new CopyOnWriteArrayList<>();
        SharedIndexInformer<ConfigMap> informer =
                alice.configMaps().inNamespace("default").runnableInformer(0);
        informer.exceptionHandler((started, t) -> {
            failures.add(t);
            return true; // keep retrying, as a controller would
        });
        informer.start();
        try {
            await().atMost(Duration.ofSeconds(20)).until(() -> !failures.isEmpty());
            Throwable first = failures.get(0);
            KubernetesClientException refused = (KubernetesClientException)
                    (first instanceof KubernetesClientException
                            ? first
                            : first.getCause()); // fabric8 hands over the list's CompletionException
            assertThat(refused.getCode()).isEqualTo(403);
            assertThat(refused.getStatus().getMessage())
                    .isEqualTo("configmaps is forbidden: User \"alice\" cannot "
                            + "list resource \"configmaps\" in API group \"\" in the namespace \"default\"");
            assertThat(informer.hasSynced()).isFalse();

            role("get", "list", "watch");
            await().atMost(Duration.ofSeconds(40)).until(informer::hasSynced);
            assertThat(informer.getStore().listKeys()).containsExactly("default/a", "default/kube-root-ca.crt");
            admin.configMaps()
                    .inNamespace("default")
                    .resource(new ConfigMapBuilder()
                            .withNewMetadata()
                            .withName("b")
                            .endMetadata()
                            .build())
                    .create();
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> informer.getStore().getByKey("default/b") != null);
        } finally {
            informer.close();
        }
    }
}
