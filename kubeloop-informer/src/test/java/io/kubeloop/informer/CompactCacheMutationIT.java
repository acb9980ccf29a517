package io.kubeloop.informer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.kubeloop.apiserver.EmbeddedApiServer;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.client.codec.Decoding;
import io.kubeloop.client.config.ClientConfig;
import io.kubeloop.client.resource.ResourceClient;
import io.kubeloop.client.transport.RateLimiter;
import io.kubeloop.informer.cache.CacheMutationDetector;
import io.kubeloop.informer.cache.CacheMutationException;
import io.kubeloop.informer.reflector.ListerWatchers;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 15 §3 over real HTTP: an informer on {@link Decoding#compact()} whose handler mutates the objects it is
 * given. The parts its pods share (a container, a toleration) refuse the change, so the cache of another key, and
 * what later events decode, stay as the server sent them; a change to a part of the object's own (its labels) is
 * the object's alone, and the cache mutation detector names that one object.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CompactCacheMutationIT {

    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final String NS = "frozen";

    private static EmbeddedApiServer server;
    private static KubernetesClient client;
    private SharedIndexInformer<Pod> informer;

    @BeforeAll
    static void startServer() throws Exception {
        assertThat(CacheMutationDetector.isEnabled())
                .as("the suite runs with the cache mutation detector on")
                .isTrue();
        server = EmbeddedApiServer.builder().start();
        client = KubernetesClient.builder(
                        ClientConfig.builder().server(server.url()).build())
                .rateLimiter(RateLimiter.unlimited())
                .build();
        client.resources(Namespace.class)
                .create(new NamespaceBuilder()
                        .withNewMetadata()
                        .withName(NS)
                        .endMetadata()
                        .build());
    }

    @AfterAll
    static void stopServer() {
        client.close();
        server.close();
    }

    @AfterEach
    void stopInformer() {
        if (informer != null) {
            informer.stop();
        }
    }

    /** Pods of one template: the same container and toleration, written alike by the server. */
    private static Pod pod(String name) {
        return new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .addToLabels("app", "web")
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("c")
                .withImage("nginx:1.27")
                .withNewResources()
                .addToRequests("cpu", new Quantity("100m"))
                .endResources()
                .endContainer()
                .addNewToleration()
                .withKey("k")
                .withOperator("Exists")
                .endToleration()
                .endSpec()
                .build();
    }

    private static ResourceClient<Pod> pods() {
        return client.resources(Pod.class).inNamespace(NS);
    }

    @Test
    void aHandlerThatMutatesItsObjectCorruptsNoOtherKeyNorLaterEvents() {
        pods().create(pod("a"));
        pods().create(pod("b"));
        List<String> refusals = new CopyOnWriteArrayList<>();
        informer = SharedIndexInformer.builder(
                        ListerWatchers.forClient(pods().withDecoding(Decoding.compact())), Pod.class)
                .name("frozen")
                .build();
        informer.addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(Pod pod, boolean isInInitialList) {
                if (!pod.getMetadata().getName().equals("a")) {
                    return;
                }
                // the mistake of seed 001 §4.2: changing the cached object instead of a copy
                try {
                    pod.getSpec().getContainers().get(0).setImage("evil:2");
                } catch (UnsupportedOperationException e) {
                    refusals.add(e.getMessage());
                }
                try {
                    pod.getSpec().getTolerations().get(0).setValue("evil");
                } catch (UnsupportedOperationException e) {
                    refusals.add(e.getMessage());
                }
                try {
                    pod.getSpec()
                            .getContainers()
                            .get(0)
                            .getResources()
                            .getRequests()
                            .put("cpu", new Quantity("64"));
                } catch (UnsupportedOperationException e) {
                    refusals.add(e.getMessage());
                }
                pod.getSpec()
                        .getContainers()
                        .get(0)
                        .getResources()
                        .getRequests()
                        .get("cpu")
                        .setAmount("64");
                pod.getMetadata().getLabels().put("app", "evil"); // its own labels: only this object changes
            }
        });
        informer.start();
        assertThat(SharedIndexInformer.waitForCacheSync(WAIT, informer::hasSynced))
                .isTrue();
        await().atMost(WAIT).until(() -> refusals.size() == 3);
        assertThat(refusals.get(0)).contains("Container \"c\"", "setImage", "Decoding.compact()");
        assertThat(refusals.get(1)).contains("Toleration", "setValue", "Decoding.compact()");
        assertThat(refusals.get(2)).contains("Decoding.compact()");

        Pod a = informer.lister().namespace(NS).get("a").orElseThrow();
        Pod b = informer.lister().namespace(NS).get("b").orElseThrow();
        assertThat(b.getSpec().getContainers().get(0))
                .isSameAs(a.getSpec().getContainers().get(0));
        for (Pod p : List.of(a, b)) {
            assertThat(p.getSpec().getContainers().get(0).getImage()).isEqualTo("nginx:1.27");
            assertThat(p.getSpec()
                            .getContainers()
                            .get(0)
                            .getResources()
                            .getRequests()
                            .get("cpu"))
                    .isEqualTo(new Quantity("100m"));
            assertThat(p.getSpec().getTolerations().get(0).getValue()).isNull();
        }
        assertThat(b.getMetadata().getLabels()).containsEntry("app", "web");
        assertThat(a.getMetadata().getLabels()).containsEntry("app", "evil");

        // The detector finds the one change that was made, to a's own labels, and names a alone.
        assertThatThrownBy(CacheMutationDetector::checkNow)
                .isInstanceOf(CacheMutationException.class)
                .satisfies(e -> assertThat(((CacheMutationException) e).objects())
                        .singleElement()
                        .asString()
                        .startsWith("Pod frozen/a "));

        // Later events decode the same container text to what the server sent.
        pods().create(pod("c"));
        Pod b2 = new PodBuilder(pods().get("b").orElseThrow())
                .editMetadata()
                .addToLabels("tier", "front")
                .endMetadata()
                .build();
        pods().update(b2);
        await().atMost(WAIT)
                .until(() -> informer.lister().namespace(NS).get("c").isPresent()
                        && informer.lister()
                                .namespace(NS)
                                .get("b")
                                .orElseThrow()
                                .getMetadata()
                                .getLabels()
                                .containsKey("tier"));
        for (String name : List.of("b", "c")) {
            Pod p = informer.lister().namespace(NS).get(name).orElseThrow();
            assertThat(p.getSpec().getContainers().get(0).getImage()).isEqualTo("nginx:1.27");
            assertThat(p.getMetadata().getLabels()).containsEntry("app", "web");
        }
        assertThat(pods().get("a")
                        .orElseThrow()
                        .getSpec()
                        .getContainers()
                        .get(0)
                        .getImage())
                .isEqualTo("nginx:1.27");
    }
}
