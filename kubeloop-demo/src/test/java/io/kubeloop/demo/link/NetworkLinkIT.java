package io.kubeloop.demo.link;

import static io.kubeloop.testsupport.TestThreads.eventually;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.kubeloop.apiserver.EmbeddedApiServer;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.client.config.ClientConfig;
import io.kubeloop.client.resource.ResourceClient;
import io.kubeloop.client.resource.WatchOptions;
import io.kubeloop.client.transport.RetryPolicy;
import io.kubeloop.client.watch.Watch;
import io.kubeloop.client.watch.WatchEvent;
import io.kubeloop.client.watch.WatchException;
import io.kubeloop.demo.internal.link.NetworkLink;
import io.kubeloop.informer.InformerHealth;
import io.kubeloop.informer.SharedIndexInformer;
import io.kubeloop.informer.reflector.ListerWatchers;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** kubeloop's own client through the link to the embedded API server: watches end on a cut, requests fail fast. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NetworkLinkIT {

    private static final Duration FAST = Duration.ofSeconds(2);
    private static final String NS = "link";

    private static EmbeddedApiServer server;
    private static KubernetesClient admin;

    private NetworkLink link;
    private KubernetesClient linked;

    @BeforeAll
    static void startServer() {
        server = EmbeddedApiServer.builder().port(0).start();
        admin = KubernetesClient.create(
                ClientConfig.builder().server(server.url()).build());
        admin.resources(io.fabric8.kubernetes.api.model.Namespace.class)
                .create(new NamespaceBuilder()
                        .withNewMetadata()
                        .withName(NS)
                        .endMetadata()
                        .build());
    }

    @AfterAll
    static void stopServer() {
        admin.close();
        server.close();
    }

    @BeforeEach
    void openLink() throws Exception {
        link = NetworkLink.open("it", new InetSocketAddress(server.url().getHost(), server.port()));
        linked = KubernetesClient.builder(ClientConfig.builder()
                        .server("http://127.0.0.1:" + link.port())
                        .build())
                .retryPolicy(RetryPolicy.never())
                .userAgent("link-test")
                .build();
    }

    @AfterEach
    void closeLink() {
        linked.close();
        link.close();
    }

    private static ConfigMap configMap(String name) {
        return new ConfigMapBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace(NS)
                .endMetadata()
                .addToData("k", "v")
                .build();
    }

    private static String nameOf(WatchEvent<ConfigMap> event) {
        return event instanceof WatchEvent.Change<ConfigMap> c
                ? c.object().getMetadata().getName()
                : event.toString();
    }

    @Test
    void aWatchThroughTheLinkEndsOnCutAndWorksAgainAfterRestore() throws Exception {
        ResourceClient<ConfigMap> cms = linked.resources(ConfigMap.class).inNamespace(NS);
        ResourceClient<ConfigMap> adminCms = admin.resources(ConfigMap.class).inNamespace(NS);
        String rv = cms.list().resourceVersion();
        try (Watch<ConfigMap> watch =
                cms.watch(WatchOptions.builder().resourceVersion(rv).build())) {
            adminCms.create(configMap("before-cut"));
            assertThat(nameOf(watch.next(Duration.ofSeconds(10)))).isEqualTo("before-cut");
            assertThat(link.openConnections()).isPositive();

            link.cut();
            eventually().atMost(FAST).until(watch::isDone);
            assertThatThrownBy(watch::next)
                    .as("the watch fails with an I/O error, it does not end cleanly")
                    .isInstanceOf(WatchException.class);
        }

        assertTimeoutPreemptively(FAST, () -> assertThatThrownBy(cms::list).isInstanceOf(UncheckedIOException.class));
        assertTimeoutPreemptively(FAST, () -> assertThatThrownBy(() -> cms.create(configMap("during-cut")))
                .isInstanceOf(UncheckedIOException.class));
        adminCms.create(configMap("while-cut"));

        link.restore();
        String rv2 = cms.list().resourceVersion();
        assertThat(cms.get("while-cut")).isPresent();
        try (Watch<ConfigMap> watch =
                cms.watch(WatchOptions.builder().resourceVersion(rv2).build())) {
            cms.create(configMap("after-restore"));
            assertThat(nameOf(watch.next(Duration.ofSeconds(10)))).isEqualTo("after-restore");
        }
    }

    @Test
    void aWatchTheClientClosesLeavesNoConnectionBehind() throws Exception {
        ResourceClient<ConfigMap> cms = linked.resources(ConfigMap.class).inNamespace(NS);
        String rv = cms.list().resourceVersion();
        Watch<ConfigMap> watch =
                cms.watch(WatchOptions.builder().resourceVersion(rv).build());
        int open = link.openConnections(); // the watch's, and maybe an idle one of the pool
        assertThat(open).isPositive();
        watch.close();
        // the server writes nothing on this watch for a minute (no events, no bookmarks): the link must not wait
        // for a failed write to notice that the client has gone
        eventually().atMost(FAST).until(() -> link.openConnections() == open - 1);
    }

    @Test
    void anInformerThroughTheLinkCatchesUpOnWhatHappenedDuringACut() {
        // the link's client with the default retry policy, as the operator has
        try (KubernetesClient operatorClient = KubernetesClient.create(
                ClientConfig.builder().server("http://127.0.0.1:" + link.port()).build())) {
            SharedIndexInformer<ConfigMap> informer = SharedIndexInformer.builder(
                            ListerWatchers.forClient(
                                    operatorClient.resources(ConfigMap.class).inNamespace(NS)),
                            ConfigMap.class)
                    .name("link-configmaps")
                    .build();
            try {
                informer.start();
                assertThat(SharedIndexInformer.waitForCacheSync(Duration.ofSeconds(10), informer::hasSynced))
                        .isTrue();
                eventually().until(informer::isWatching);

                link.cut();
                // The reflector sees its watch fail at once and opens a new one; the client retries that GET on
                // the refused connections (1 s apart, 10 times) before the reflector itself backs off.
                admin.resources(ConfigMap.class).inNamespace(NS).create(configMap("created-while-cut"));
                await().during(Duration.ofMillis(500)).atMost(FAST).until(() -> informer.indexer()
                        .getByKey(NS + "/created-while-cut")
                        .isEmpty());
                assertThat(informer.health().state())
                        .isIn(InformerHealth.State.WATCHING, InformerHealth.State.BACKING_OFF);

                link.restore();
                // bounded by the reflector's backoff after a few failures (seconds), not by any timeout of the link
                await().atMost(Duration.ofSeconds(30)).until(() -> informer.indexer()
                        .getByKey(NS + "/created-while-cut")
                        .isPresent());
                eventually().until(informer::isWatching);
            } finally {
                informer.stop();
            }
        }
    }

    @Test
    void resetEndsTheWatchButTheClientGoesOn() throws Exception {
        ResourceClient<ConfigMap> cms = linked.resources(ConfigMap.class).inNamespace(NS);
        String rv = cms.list().resourceVersion();
        try (Watch<ConfigMap> watch =
                cms.watch(WatchOptions.builder().resourceVersion(rv).build())) {
            link.reset();
            eventually().atMost(FAST).until(watch::isDone);
        }
        assertThat(link.isCut()).isFalse();
        eventually().atMost(FAST).ignoreExceptions().until(() -> cms.list() != null);
        cms.create(configMap("after-reset"));
        assertThat(admin.resources(ConfigMap.class).inNamespace(NS).get("after-reset"))
                .isPresent();
    }
}
