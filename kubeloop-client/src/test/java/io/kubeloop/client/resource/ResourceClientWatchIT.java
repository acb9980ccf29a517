package io.kubeloop.client.resource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.kubeloop.apiserver.EmbeddedApiServer;
import io.kubeloop.apiserver.fault.Failure;
import io.kubeloop.apiserver.fault.Latency;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.client.codec.Decoding;
import io.kubeloop.client.config.ClientConfig;
import io.kubeloop.client.errors.ExpiredException;
import io.kubeloop.client.errors.NotFoundException;
import io.kubeloop.client.errors.ServiceUnavailableException;
import io.kubeloop.client.transport.RetryPolicy;
import io.kubeloop.client.watch.Watch;
import io.kubeloop.client.watch.WatchEvent;
import io.kubeloop.client.watch.WatchIdleTimeoutException;
import io.kubeloop.clock.FakeClock;
import io.kubeloop.model.WatchEventType;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.UncheckedIOException;
import java.net.http.HttpTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ResourceClient#watch} over real HTTP against the embedded API server: typed events, selectors,
 * bookmarks, streaming lists, 410, server ends, setup retries and latency, the idle rule, client-side close.
 */
class ResourceClientWatchIT {

    private static final Duration WAIT = Duration.ofSeconds(20);

    private EmbeddedApiServer server;
    private KubernetesClient client;
    private ResourceClient<Pod> pods;

    @BeforeEach
    void start() {
        server = EmbeddedApiServer.builder()
                .bookmarkInterval(Duration.ofMillis(200))
                .start();
        client = KubernetesClient.create(config());
        pods = client.resources(Pod.class);
    }

    @AfterEach
    void stop() {
        server.faults().clear();
        client.close();
        server.close();
    }

    private ClientConfig config() {
        return ClientConfig.builder().server(server.url()).build();
    }

    static Pod pod(String name, Map<String, String> labels) {
        return new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .withLabels(labels)
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("c")
                .withImage("nginx")
                .endContainer()
                .endSpec()
                .build();
    }

    static <T> WatchEvent<T> next(Watch<T> watch) throws InterruptedException {
        WatchEvent<T> event = watch.next(WAIT);
        assertThat(event).as("an event within " + WAIT).isNotNull();
        return event;
    }

    /** The next change, skipping bookmarks (bounded). */
    static <T> WatchEvent.Change<T> nextChange(Watch<T> watch) throws InterruptedException {
        for (int i = 0; i < 1000; i++) {
            if (next(watch) instanceof WatchEvent.Change<T> c) {
                return c;
            }
        }
        throw new AssertionError("no change among 1000 events");
    }

    @Test
    void createUpdateDeleteArriveAsTypedPodsBetweenBookmarks() throws Exception {
        String rv = pods.list().resourceVersion();
        try (Watch<Pod> watch = pods.watch(WatchOptions.builder()
                .resourceVersion(rv)
                .allowWatchBookmarks(true)
                .build())) {
            Pod created = pods.create(pod("web-1", Map.of()));
            created.getMetadata().setLabels(Map.of("tier", "front"));
            pods.update(created);
            pods.delete("web-1");

            List<WatchEvent.Change<Pod>> changes = new ArrayList<>();
            List<WatchEvent.Bookmark<Pod>> bookmarks = new ArrayList<>();
            for (int i = 0; i < 1000 && (changes.size() < 3 || bookmarks.size() < 2); i++) {
                switch (next(watch)) {
                    case WatchEvent.Change<Pod> c -> changes.add(c);
                    case WatchEvent.Bookmark<Pod> b -> bookmarks.add(b);
                    case WatchEvent.Error<Pod> e -> throw new AssertionError("ERROR is never an event here: " + e);
                    case WatchEvent.Undecodable<Pod> u -> throw new AssertionError("every pod decodes: " + u);
                }
            }
            assertThat(changes)
                    .extracting(WatchEvent.Change::type)
                    .containsExactly(WatchEventType.ADDED, WatchEventType.MODIFIED, WatchEventType.DELETED);
            assertThat(changes)
                    .extracting(c -> c.object().getMetadata().getName())
                    .containsOnly("web-1");
            assertThat(changes.get(1).object().getMetadata().getLabels()).containsEntry("tier", "front");
            assertThat(changes.get(0).object().getSpec().getContainers().get(0).getImage())
                    .isEqualTo("nginx");
            assertThat(bookmarks).hasSizeGreaterThanOrEqualTo(2).allSatisfy(b -> assertThat(b.initialEventsEnd())
                    .isFalse());
            long lastChange =
                    Long.parseLong(changes.getLast().object().getMetadata().getResourceVersion());
            assertThat(Long.parseLong(bookmarks.getLast().resourceVersion())).isGreaterThanOrEqualTo(lastChange);
        }
    }

    @Test
    void aCustomResourcesObjectsArriveAsGenericResourcesInAllNamespaces() throws Exception {
        client.genericResources("apiextensions.k8s.io/v1", "CustomResourceDefinition")
                .create(Decoding.standard().mapper().readValue("""
                {"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
                 "metadata":{"name":"widgets.example.com"},
                 "spec":{"group":"example.com","scope":"Namespaced",
                  "names":{"kind":"Widget","plural":"widgets","singular":"widget","listKind":"WidgetList"},
                  "versions":[{"name":"v1","served":true,"storage":true,
                   "schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}}
                """, GenericKubernetesResource.class));
        ResourceClient<GenericKubernetesResource> widgets = client.genericResources("example.com/v1", "Widget");
        client.resources(io.fabric8.kubernetes.api.model.Namespace.class)
                .create(new io.fabric8.kubernetes.api.model.NamespaceBuilder()
                        .withNewMetadata()
                        .withName("ops")
                        .endMetadata()
                        .build());

        try (Watch<GenericKubernetesResource> watch = widgets.inAnyNamespace().watch(WatchOptions.none())) {
            widgets.create(widget("w1", 1));
            GenericKubernetesResource w2 = widgets.inNamespace("ops").create(widget("w2", 2));
            w2.setAdditionalProperty("spec", Map.of("size", 3));
            widgets.inNamespace("ops").update(w2);
            widgets.delete("w1");

            List<WatchEvent.Change<GenericKubernetesResource>> changes = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                changes.add(nextChange(watch));
            }
            assertThat(changes)
                    .extracting(WatchEvent.Change::type)
                    .containsExactly(
                            WatchEventType.ADDED,
                            WatchEventType.ADDED,
                            WatchEventType.MODIFIED,
                            WatchEventType.DELETED);
            assertThat(changes)
                    .extracting(c -> c.object().getMetadata().getNamespace() + "/"
                            + c.object().getMetadata().getName())
                    .containsExactly("default/w1", "ops/w2", "ops/w2", "default/w1");
            assertThat(changes).allSatisfy(c -> {
                assertThat(c.object().getKind()).isEqualTo("Widget");
                assertThat(c.object().getApiVersion()).isEqualTo("example.com/v1");
            });
            assertThat(changes.get(2).object().<Integer>get("spec", "size")).isEqualTo(3);
        }
    }

    private static GenericKubernetesResource widget(String name, int size) {
        GenericKubernetesResource w = new GenericKubernetesResource();
        w.setApiVersion("example.com/v1");
        w.setKind("Widget");
        w.setMetadata(new ObjectMetaBuilder().withName(name).build());
        w.setAdditionalProperty("spec", Map.of("size", size));
        return w;
    }

    @Test
    void labelAndFieldSelectorsFilterTheEvents() throws Exception {
        String rv = pods.list().resourceVersion();
        try (Watch<Pod> web = pods.watch(WatchOptions.builder()
                        .resourceVersion(rv)
                        .labelSelector("app=web")
                        .build());
                Watch<Pod> named = pods.watch(WatchOptions.builder()
                        .resourceVersion(rv)
                        .fieldSelector("metadata.name=c")
                        .build())) {
            pods.create(pod("a", Map.of("app", "web")));
            pods.create(pod("b", Map.of("app", "db")));
            pods.create(pod("c", Map.of("app", "web")));

            assertThat(nextChange(web).object().getMetadata().getName()).isEqualTo("a");
            assertThat(nextChange(web).object().getMetadata().getName()).isEqualTo("c"); // b never arrives
            assertThat(nextChange(named).object().getMetadata().getName()).isEqualTo("c"); // the first is c
        }
    }

    @Test
    void aStreamingListEndsItsInitialEventsWithTheAnnotatedBookmark() throws Exception {
        pods.create(pod("a", Map.of()));
        pods.create(pod("b", Map.of()));
        try (Watch<Pod> watch = pods.watch(WatchOptions.builder()
                .sendInitialEvents(true)
                .resourceVersionMatch("NotOlderThan")
                .allowWatchBookmarks(true)
                .build())) {
            Set<String> initial = new HashSet<>();
            WatchEvent<Pod> event;
            int guard = 0;
            while ((event = next(watch)) instanceof WatchEvent.Change<Pod> c && guard++ < 100) {
                assertThat(c.type()).isEqualTo(WatchEventType.ADDED);
                initial.add(c.object().getMetadata().getName());
            }
            assertThat(initial).containsExactlyInAnyOrder("a", "b");
            assertThat(event).isInstanceOfSatisfying(WatchEvent.Bookmark.class, b -> assertThat(b.initialEventsEnd())
                    .isTrue());
        }
    }

    @Test
    void watchingFromACompactedResourceVersionFailsWithExpiredFromNext() throws Exception {
        String old = pods.list().resourceVersion();
        pods.create(pod("a", Map.of()));
        pods.create(pod("b", Map.of()));
        server.compact();

        try (Watch<Pod> watch =
                pods.watch(WatchOptions.builder().resourceVersion(old).build())) {
            assertThatThrownBy(() -> watch.next(WAIT))
                    .isInstanceOf(ExpiredException.class)
                    .hasMessageContaining("GET /api/v1/namespaces/default/pods")
                    .hasMessageContaining("too old resource version")
                    .satisfies(e -> assertThat(((ExpiredException) e).code()).isEqualTo(410));
            assertThat(watch.isDone()).isTrue();
            // Sticky: every later call, and iteration, fails the same way.
            assertThatThrownBy(watch::next).isInstanceOf(ExpiredException.class);
            assertThatThrownBy(() -> watch.iterator().hasNext()).isInstanceOf(ExpiredException.class);
        }
    }

    @Test
    void theServersTimeoutEndsTheWatchNormally() throws Exception {
        try (Watch<Pod> watch =
                pods.watch(WatchOptions.builder().timeoutSeconds(1).build())) {
            assertThat(watch.next(WAIT)).isNull();
            assertThat(watch.isDone()).isTrue();
            assertThat(watch.next()).isNull();
        }
    }

    @Test
    void closedWatchesEndNormally() throws Exception {
        try (Watch<Pod> watch = pods.watch(WatchOptions.builder()
                .resourceVersion(pods.list().resourceVersion())
                .build())) {
            pods.create(pod("a", Map.of()));
            assertThat(nextChange(watch).type()).isEqualTo(WatchEventType.ADDED);

            assertThat(server.faults().closeWatches("pods")).isEqualTo(1);

            assertThat(watch.next(WAIT)).isNull();
            assertThat(watch.isDone()).isTrue();
        }
    }

    @Test
    void closingTheClientEndsItsOpenWatchesAndReturnsPromptly() throws Exception {
        KubernetesClient closing = KubernetesClient.create(config());
        ResourceClient<Pod> p = closing.resources(Pod.class);
        Watch<Pod> watch = p.watch(WatchOptions.builder()
                .resourceVersion(p.list().resourceVersion())
                .build());
        pods.create(pod("seen", Map.of()));
        assertThat(nextChange(watch).object().getMetadata().getName()).isEqualTo("seen");

        // The watch is left open on purpose: closing the client must not wait for the server to end it.
        CompletableFuture<Void> close = CompletableFuture.runAsync(closing::close);
        close.get(10, TimeUnit.SECONDS);

        await().atMost(WAIT).until(() -> {
            try {
                return watch.next(Duration.ofMillis(100)) == null && watch.isDone();
            } catch (RuntimeException e) {
                return watch.isDone();
            }
        });
        watch.close();
    }

    @Test
    void theSetupIsRetriedOn503WithRetryAfterOnTheClientsClock() throws Exception {
        FakeClock clock = new FakeClock();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        String host = server.url().getHost() + ":" + server.port();
        try (KubernetesClient retrying = KubernetesClient.builder(config())
                .clock(clock)
                .meterRegistry(registry)
                .build()) {
            server.faults()
                    .fail(Failure.status(503)
                            .count(2)
                            .retryAfterSeconds(1)
                            .resource("pods")
                            .verb("watch"));
            ResourceClient<Pod> p = retrying.resources(Pod.class);
            String rv = p.list().resourceVersion();

            CompletableFuture<Watch<Pod>> opening = new CompletableFuture<>();
            Thread.ofVirtual().start(() -> {
                try {
                    opening.complete(
                            p.watch(WatchOptions.builder().resourceVersion(rv).build()));
                } catch (Throwable e) {
                    opening.completeExceptionally(e);
                }
            });
            for (int answered = 1; answered <= 2; answered++) {
                double expected = answered;
                // The 503 is counted before the wait begins and after the previous one ended: the waiter is its.
                await().atMost(WAIT).until(() -> clock.hasWaiters() && count(registry, "GET", "503", host) == expected);
                clock.step(Duration.ofMillis(999));
                assertThat(opening).as("Retry-After: 1 is not over").isNotDone();
                clock.step(Duration.ofMillis(1));
            }
            try (Watch<Pod> watch = opening.get(WAIT.toSeconds(), TimeUnit.SECONDS)) {
                p.create(pod("after-retries", Map.of()));
                assertThat(nextChange(watch).object().getMetadata().getName()).isEqualTo("after-retries");
            }
            assertThat(count(registry, "GET", "503", host)).isEqualTo(2);
        }
    }

    private static double count(SimpleMeterRegistry registry, String method, String code, String host) {
        var c = registry.find("rest.client.requests")
                .tags("method", method, "code", code, "host", host)
                .counter();
        return c == null ? 0 : c.count();
    }

    @Test
    void aSetupThatKeepsFailingIsTheTypedException() {
        try (KubernetesClient noRetries = KubernetesClient.builder(config())
                .retryPolicy(RetryPolicy.never())
                .build()) {
            server.faults()
                    .fail(Failure.status(503)
                            .count(1)
                            .retryAfterSeconds(1)
                            .resource("pods")
                            .verb("watch"));
            assertThatThrownBy(() -> noRetries.resources(Pod.class).watch(WatchOptions.none()))
                    .isInstanceOf(ServiceUnavailableException.class)
                    .hasMessageContaining("GET /api/v1/namespaces/default/pods?watch=true");
            assertThatThrownBy(() -> client.genericResources("example.com", "v1", "Nope", "nopes", true)
                            .watch(WatchOptions.none()))
                    .isInstanceOf(NotFoundException.class);
        }
    }

    @Test
    void latencyDelaysTheSetupWithinTheRequestTimeoutAndTheTimeoutBoundsOnlyTheHeaders() throws Exception {
        try (KubernetesClient shortTimeout = KubernetesClient.builder(config())
                .requestTimeout(Duration.ofSeconds(1))
                .retryPolicy(RetryPolicy.never())
                .build()) {
            ResourceClient<Pod> p = shortTimeout.resources(Pod.class);
            server.faults()
                    .latency(Latency.of(Duration.ofMillis(300)).resource("pods").verb("watch"));
            long start = System.nanoTime();
            try (Watch<Pod> watch =
                    p.watch(WatchOptions.builder().allowWatchBookmarks(true).build())) {
                assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(300));
                // The body outlives the 1 s request timeout: bookmarks keep arriving for 2 s.
                long bookmarks = 0;
                long until = System.nanoTime() + Duration.ofSeconds(2).toNanos();
                while (System.nanoTime() < until && bookmarks < 1000) {
                    assertThat(next(watch)).isInstanceOf(WatchEvent.Bookmark.class);
                    bookmarks++;
                }
                assertThat(bookmarks).isGreaterThanOrEqualTo(5);
                assertThat(watch.isDone()).isFalse();
            }

            server.faults().clear();
            server.faults()
                    .latency(Latency.of(Duration.ofSeconds(5)).resource("pods").verb("watch"));
            assertThatThrownBy(() -> p.watch(WatchOptions.none()))
                    .isInstanceOf(UncheckedIOException.class)
                    .hasMessageContaining("GET /api/v1/namespaces/default/pods?watch=true")
                    .hasRootCauseInstanceOf(HttpTimeoutException.class);
        }
    }

    @Test
    void aPartitionMakesTheIdleRuleFire() throws Exception {
        assertIdleRuleFiresUnder(() -> server.faults().partition(Duration.ofSeconds(60)));
    }

    @Test
    void aStallMakesTheIdleRuleFire() throws Exception {
        assertIdleRuleFiresUnder(() -> server.faults().stall(Duration.ofSeconds(60), "pods"));
    }

    /**
     * On the client's fake clock: bookmarks (every 200 ms of real time) keep a 1 s idle timeout at bay across
     * clock steps that add up to more than the timeout, until the fault silences the stream; then one step past
     * the timeout fires the rule.
     */
    private void assertIdleRuleFiresUnder(Runnable fault) throws Exception {
        FakeClock clock = new FakeClock();
        try (KubernetesClient idle = KubernetesClient.builder(config())
                .watchIdleTimeout(Duration.ofSeconds(1))
                .clock(clock)
                .build()) {
            ResourceClient<Pod> p = idle.resources(Pod.class);
            assertThat(p.watchIdleTimeout()).isEqualTo(Duration.ofSeconds(1));
            try (Watch<Pod> watch =
                    p.watch(WatchOptions.builder().allowWatchBookmarks(true).build())) {
                assertThat(watch.idleTimeout()).isEqualTo(Duration.ofSeconds(1));
                AtomicLong bookmarks = new AtomicLong();
                CompletableFuture<Throwable> failure = new CompletableFuture<>();
                Thread.ofVirtual().name("test-consumer").start(() -> {
                    try {
                        for (WatchEvent<Pod> ignored : watch) {
                            bookmarks.incrementAndGet();
                        }
                        failure.complete(null);
                    } catch (Throwable t) {
                        failure.complete(t);
                    }
                });
                for (int i = 0; i < 2; i++) {
                    clock.step(Duration.ofMillis(600));
                    // Three more bookmarks: the read in progress now began after the step.
                    long seen = bookmarks.get();
                    await().atMost(WAIT).until(() -> bookmarks.get() >= seen + 3);
                }
                assertThat(watch.isDone())
                        .as("1.2 s of clock time, but never 1 s without bytes")
                        .isFalse();

                fault.run();
                // A bookmark already on its way may still restart the timer: step until the silence has lasted 1 s.
                await().atMost(WAIT).until(() -> {
                    clock.step(Duration.ofMillis(500));
                    return watch.isDone();
                });

                assertThat(failure.get(WAIT.toSeconds(), TimeUnit.SECONDS))
                        .isInstanceOf(WatchIdleTimeoutException.class)
                        .hasMessageContaining("watch of pods in default received no bytes for");
            }
        }
    }

    @Test
    void closingTheWatchReleasesItsThreadAndTheServersWatchAtOnce() throws Exception {
        // Bookmarks every 200 ms: the server writes to the watch, and so notices when its client is gone.
        Watch<Pod> watch = pods.watch(WatchOptions.builder()
                .resourceVersion(pods.list().resourceVersion())
                .allowWatchBookmarks(true)
                .build());
        assertThat(openPodWatches()).isEqualTo(1);
        AtomicLong received = new AtomicLong();
        CompletableFuture<Long> consumed = new CompletableFuture<>();
        Thread.ofVirtual().start(() -> {
            try {
                while (watch.next() != null && received.incrementAndGet() < 100_000) {
                    // bookmarks, until close() makes next() return null
                }
                consumed.complete(received.get());
            } catch (Throwable t) {
                consumed.completeExceptionally(t);
            }
        });
        try {
            await().atMost(WAIT).until(() -> received.get() >= 2);

            Thread.ofVirtual().start(watch::close).join();

            assertThat(consumed.get(5, TimeUnit.SECONDS)).isBetween(2L, 99_999L);
            assertThat(watch.isDone()).isTrue();
        } finally {
            watch.close();
        }
        // The server notices the client is gone and ends its watch.
        await().atMost(WAIT).until(() -> openPodWatches() == 0);
        assertThat(server.faults().closeWatches("pods")).isZero();
    }

    @Test
    void overHttpsWithATokenKubeconfig(@TempDir Path dir) throws Exception {
        String token = "w4tch-t0k3n-long-enough";
        try (EmbeddedApiServer tls = EmbeddedApiServer.builder()
                        .tls()
                        .token("alice", token, "devs")
                        .bookmarkInterval(Duration.ofMillis(200))
                        .start();
                KubernetesClient alice = KubernetesClient.create(ClientConfig.fromKubeconfig(
                        Files.writeString(dir.resolve("alice.yaml"), tls.kubeconfigForToken(token))))) {
            ResourceClient<Pod> p = alice.resources(Pod.class);
            try (Watch<Pod> watch = p.watch(WatchOptions.builder()
                    .resourceVersion(p.list().resourceVersion())
                    .allowWatchBookmarks(true)
                    .build())) {
                p.create(pod("secure", Map.of()));
                WatchEvent.Change<Pod> added = nextChange(watch);
                assertThat(added.type()).isEqualTo(WatchEventType.ADDED);
                assertThat(added.object().getMetadata().getName()).isEqualTo("secure");
                assertThat(next(watch)).isInstanceOf(WatchEvent.Bookmark.class);
                assertThat(watch.toString()).doesNotContain(token);
            }

            // A token file rotated under the same mtime: only the 401 → invalidate → read again path sees it.
            Path tokenFile = Files.writeString(dir.resolve("token"), "stale-token-value");
            FileTime mtime = Files.getLastModifiedTime(tokenFile);
            String ca = "-----BEGIN CERTIFICATE-----\n"
                    + Base64.getMimeEncoder(64, "\n".getBytes())
                            .encodeToString(tls.certificateAuthority().getEncoded()) + "\n-----END CERTIFICATE-----\n";
            ClientConfig rotating = ClientConfig.builder()
                    .server(tls.url())
                    .certificateAuthorityPem(ca)
                    .tokenFile(tokenFile)
                    .build();
            Files.writeString(tokenFile, token);
            Files.setLastModifiedTime(tokenFile, mtime);
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            try (KubernetesClient rotated = KubernetesClient.builder(rotating)
                            .meterRegistry(registry)
                            .build();
                    Watch<Pod> watch = rotated.resources(Pod.class)
                            .watch(WatchOptions.builder()
                                    .allowWatchBookmarks(true)
                                    .build())) {
                // Without a resourceVersion the watch starts with the existing objects, as ADDED.
                assertThat(nextChange(watch).object().getMetadata().getName()).isEqualTo("secure");
                assertThat(registry.find("rest.client.requests")
                                .tags("method", "GET", "code", "401")
                                .counter()
                                .count())
                        .isEqualTo(1);
            }
        }
    }

    /** The server's {@code apiserver_longrunning_requests} for pods, scraped from its /metrics. */
    private int openPodWatches() throws Exception {
        try (java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient()) {
            String metrics = http.send(
                            java.net.http.HttpRequest.newBuilder(server.url().resolve("/metrics"))
                                    .build(),
                            java.net.http.HttpResponse.BodyHandlers.ofString())
                    .body();
            return metrics.lines()
                    .filter(l -> l.startsWith("apiserver_longrunning_requests{") && l.contains("resource=\"pods\""))
                    .mapToInt(l -> (int) Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
                    .sum();
        }
    }
}
