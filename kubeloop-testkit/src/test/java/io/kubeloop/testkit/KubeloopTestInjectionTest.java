package io.kubeloop.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Namespace;
import io.kubeloop.apiserver.EmbeddedApiServer;
import io.kubeloop.apiserver.fault.Faults;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.client.config.ClientConfig;
import io.kubeloop.informer.SharedIndexInformer;
import io.kubeloop.informer.SharedInformerFactory;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.platform.testkit.engine.EngineExecutionResults;

/** What test methods, lifecycle methods and constructors receive, and how namespaces isolate methods. */
class KubeloopTestInjectionTest {

    @Sample
    @KubeloopTest
    @TestMethodOrder(MethodOrderer.OrderAnnotation.class)
    static class Injected {
        Injected(EmbeddedApiServer server, KubernetesClient client) {
            Samples.see("constructor", client.config().namespace());
        }

        @BeforeAll
        static void beforeAll(EmbeddedApiServer server, KubernetesClient client, ClientConfig config) {
            Samples.see("beforeAll", client.config().namespace());
            Samples.see("beforeAll", config.namespace());
            Samples.see("beforeAll", client.config().server().equals(server.url()));
        }

        @BeforeEach
        void beforeEach(KubernetesClient client, @TestNamespace String namespace, SharedInformerFactory informers) {
            Samples.see("beforeEach client", client);
            Samples.see("beforeEach namespace", namespace);
            Samples.see("beforeEach informers", informers);
        }

        @Test
        @Order(1)
        void first(
                KubernetesClient client,
                @TestNamespace String namespace,
                ClientConfig config,
                SharedInformerFactory informers) {
            Samples.see("test client", client);
            Samples.see("test namespace", namespace);
            assertThat(client.config().namespace()).isEqualTo(namespace);
            assertThat(config.namespace()).isEqualTo(namespace);
            assertThat(client.resources(Namespace.class).get(namespace)).isPresent();
            // the client's default namespace is the method's
            client.resources(ConfigMap.class)
                    .create(new ConfigMapBuilder()
                            .withNewMetadata()
                            .withName("mine")
                            .endMetadata()
                            .build());
            assertThat(client.resources(ConfigMap.class).inNamespace(namespace).get("mine"))
                    .isPresent();
            // the informer factory is the one @BeforeEach got, on this namespace only
            Samples.see("test informers", informers);
            client.resources(ConfigMap.class)
                    .inNamespace("default")
                    .create(new ConfigMapBuilder()
                            .withNewMetadata()
                            .withName("elsewhere")
                            .endMetadata()
                            .build());
            SharedIndexInformer<ConfigMap> configMaps = informers.informerFor(ConfigMap.class);
            informers.start();
            assertThat(informers.waitForCacheSync(Duration.ofSeconds(30))).doesNotContainValue(false);
            // the namespace's own objects, and its kube-root-ca.crt as on a cluster (there before the test began)
            assertThat(configMaps.indexer().listKeys())
                    .containsExactlyInAnyOrder(namespace + "/mine", namespace + "/kube-root-ca.crt");
            Samples.see("informer", configMaps);
        }

        @Test
        @Order(2)
        void second(KubernetesClient client, @TestNamespace String namespace) {
            Samples.see("test client", client);
            Samples.see("test namespace", namespace);
            assertThat(client.resources(ConfigMap.class).get("mine"))
                    .as("not the first method's")
                    .isEmpty();
            // the first method's namespace is gone or on its way (deletion empties it first)
            String first = (String) Samples.seen("test namespace").getFirst();
            Optional<Namespace> old = client.resources(Namespace.class).get(first);
            Samples.see(
                    "first namespace after",
                    old.map(ns -> ns.getMetadata().getDeletionTimestamp() != null ? "terminating" : "still active")
                            .orElse("gone"));
        }

        @AfterEach
        void afterEach(KubernetesClient client, @TestNamespace String namespace) {
            Samples.see("afterEach client", client);
            Samples.see("afterEach namespace", namespace);
            assertThat(client.resources(Namespace.class).get(namespace))
                    .as("deleted only after @AfterEach")
                    .isPresent();
        }
    }

    @Test
    void eachMethodHasItsOwnNamespaceAndClientSharedWithItsLifecycleMethods() {
        EngineExecutionResults results = Samples.run(Injected.class);

        results.testEvents().assertStatistics(s -> s.started(2).succeeded(2));
        assertThat(Samples.seen("constructor")).containsOnly("default").hasSize(2);
        assertThat(Samples.seen("beforeAll")).containsExactly("default", "default", true);
        List<Object> namespaces = Samples.seen("test namespace");
        assertThat(namespaces).hasSize(2).doesNotHaveDuplicates();
        assertThat(namespaces).allSatisfy(ns -> assertThat((String) ns).matches("(first|second)-[a-z0-9]{5}"));
        assertThat(Samples.seen("beforeEach namespace")).isEqualTo(namespaces);
        assertThat(Samples.seen("afterEach namespace")).isEqualTo(namespaces);
        List<Object> clients = Samples.seen("test client");
        assertThat(clients.get(0)).isNotSameAs(clients.get(1));
        for (int i = 0; i < 2; i++) {
            assertThat(Samples.seen("beforeEach client").get(i)).isSameAs(clients.get(i));
            assertThat(Samples.seen("afterEach client").get(i)).isSameAs(clients.get(i));
        }
        assertThat(Samples.seen("first namespace after")).singleElement().isIn("terminating", "gone");
        assertThat(Samples.seen("beforeEach informers").getFirst())
                .isSameAs(Samples.seen("test informers").getFirst());
        assertThat(Samples.seen("beforeEach informers").get(1))
                .isNotSameAs(Samples.seen("test informers").getFirst());
        assertThat(((SharedIndexInformer<?>) Samples.seen("informer").getFirst()).isStopped())
                .as("shut down after its method")
                .isTrue();
    }

    @Sample
    @KubeloopTest
    static class WrongParameters {
        @Test
        void faultsWithoutFaults(Faults faults) {}

        @Test
        void namespaceOnAnInt(@TestNamespace int namespace) {}
    }

    @Sample
    @KubeloopTest
    static class NamespaceInBeforeAll {
        @BeforeAll
        static void beforeAll(@TestNamespace String namespace) {}

        @Test
        void test() {}
    }

    @Test
    void aParameterThatCannotBeGivenFailsWithWhatToDoInstead() {
        EngineExecutionResults wrong = Samples.run(WrongParameters.class);
        wrong.testEvents().assertStatistics(s -> s.started(2).failed(2));
        assertThat(Samples.failures(wrong.testEvents()))
                .allSatisfy(t -> assertThat(t).isInstanceOf(ParameterResolutionException.class))
                .extracting(Throwable::getMessage)
                .anySatisfy(m -> assertThat(m)
                        .contains("@KubeloopTest(faults = true)")
                        .contains(WrongParameters.class.getName()))
                .anySatisfy(m -> assertThat(m).contains("@TestNamespace goes on a String parameter"));

        EngineExecutionResults beforeAll = Samples.run(NamespaceInBeforeAll.class);
        assertThat(Samples.failures(beforeAll.containerEvents()))
                .singleElement(InstanceOfAssertFactories.THROWABLE)
                .isInstanceOf(ParameterResolutionException.class)
                .hasMessageContaining("per test method")
                .hasMessageContaining("namespace default");
    }
}
