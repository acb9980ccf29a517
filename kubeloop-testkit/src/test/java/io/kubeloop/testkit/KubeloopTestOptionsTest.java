package io.kubeloop.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.kubeloop.apiserver.EmbeddedApiServer;
import io.kubeloop.apiserver.fault.Failure;
import io.kubeloop.apiserver.fault.Faults;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.client.config.ClientConfig;
import io.kubeloop.client.errors.ForbiddenException;
import io.kubeloop.client.errors.InternalErrorException;
import java.nio.file.Path;
import java.time.Duration;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.io.TempDir;
import org.junit.platform.testkit.engine.EngineExecutionResults;

/** The options: plain HTTP by default, TLS, RBAC (with TLS only), faults cleared after each method. */
class KubeloopTestOptionsTest {

    private static ConfigMap configMap(String name) {
        return new ConfigMapBuilder()
                .withNewMetadata()
                .withName(name)
                .endMetadata()
                .build();
    }

    @Sample
    @KubeloopTest
    static class Plain {
        @Test
        void test(EmbeddedApiServer server, KubernetesClient client) {
            assertThat(server.url().getScheme()).isEqualTo("http");
            client.resources(ConfigMap.class).create(configMap("c"));
        }
    }

    @Sample
    @KubeloopTest(tls = true, rbac = true)
    static class TlsAndRbac {
        @Test
        void test(
                EmbeddedApiServer server, KubernetesClient client, @TestNamespace String namespace, @TempDir Path dir) {
            assertThat(server.url().getScheme()).isEqualTo("https");
            assertThat(client.config().server()).isEqualTo(server.url());
            // the injected client is the administrator: RBAC lets it do anything
            client.resources(ConfigMap.class).create(configMap("c"));
            // another user, with no binding, is forbidden
            ClientConfig nobody = ClientConfig.fromKubeconfig(
                            server.writeKubeconfigFor(dir.resolve("nobody"), "nobody"))
                    .withNamespace(namespace);
            try (KubernetesClient other = KubernetesClient.create(nobody)) {
                assertThatThrownBy(() -> other.resources(ConfigMap.class).get("c"))
                        .isInstanceOf(ForbiddenException.class)
                        .hasMessageContaining("\"nobody\"");
            }
        }
    }

    @Test
    void plainHttpByDefaultAndTlsWithRbacOnRequest() {
        Samples.run(Plain.class).testEvents().assertStatistics(s -> s.started(1).succeeded(1));
        EngineExecutionResults tls = Samples.run(TlsAndRbac.class);
        assertThat(Samples.failures(tls.allEvents())).isEmpty();
        tls.testEvents().assertStatistics(s -> s.started(1).succeeded(1));
    }

    @Sample
    @KubeloopTest(rbac = true)
    static class RbacWithoutTls {
        @Test
        void test() {}
    }

    @Test
    void rbacWithoutTlsIsRefusedWithTheReason() {
        EngineExecutionResults results = Samples.run(RbacWithoutTls.class);
        results.testEvents().assertStatistics(s -> s.started(0));
        assertThat(Samples.failures(results.containerEvents()))
                .singleElement(InstanceOfAssertFactories.THROWABLE)
                .isInstanceOf(ExtensionConfigurationException.class)
                .hasMessageContaining("rbac = true) needs tls = true");
    }

    @Sample
    @KubeloopTest(faults = true)
    @TestMethodOrder(MethodOrderer.OrderAnnotation.class)
    static class WithFaults {
        @Test
        @Order(1)
        void breaksTheServer(Faults faults, KubernetesClient client) {
            faults.fail(Failure.status(500).resource("configmaps").verb("create"));
            assertThatThrownBy(() -> client.resources(ConfigMap.class).create(configMap("c")))
                    .isInstanceOf(InternalErrorException.class);
            // left in force: the extension must clear it before it deletes the namespace, which a partition holds
            faults.partition(Duration.ofMinutes(10));
            Samples.see("active", faults.active().size());
        }

        @Test
        @Order(2)
        void findsItWhole(Faults faults, KubernetesClient client) {
            Samples.see("active", faults.active().size());
            client.resources(ConfigMap.class).create(configMap("c"));
        }
    }

    @Test
    void faultsAreInjectedAndClearedAfterEachMethod() {
        EngineExecutionResults results = Samples.run(WithFaults.class);
        assertThat(Samples.failures(results.allEvents())).isEmpty();
        results.testEvents().assertStatistics(s -> s.started(2).succeeded(2));
        assertThat(Samples.seen("active")).containsExactly(2, 0);
    }
}
