package io.kubeloop.client.watch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.kubeloop.apiserver.EmbeddedApiServer;
import io.kubeloop.client.codec.Decoding;
import io.kubeloop.clock.FakeClock;
import io.kubeloop.model.WatchEventType;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Watches and lists of pods over real HTTP against the embedded API server, with a plain JDK HttpClient. */
class WatchIT {

    private static final String PODS = "/api/v1/namespaces/default/pods";
    private static final Duration WAIT = Duration.ofSeconds(20);

    private EmbeddedApiServer server;
    private final HttpClient http =
            HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @BeforeEach
    void start() {
        server = EmbeddedApiServer.builder()
                .bookmarkInterval(Duration.ofMillis(200))
                .start();
    }

    @AfterEach
    void stop() {
        server.faults().clear();
        server.close();
    }

    @Test
    void createUpdateDeleteArriveAsTypedPodsBetweenBookmarks() throws Exception {
        String rv = listResourceVersion();
        try (Watch<Pod> watch =
                watch("?watch=true&allowWatchBookmarks=true&resourceVersion=" + rv, Duration.ofMinutes(1))) {
            Pod created = Decoding.standard().mapper().readValue(send("POST", PODS, pod("web-1")), Pod.class);
            created.getMetadata().setLabels(java.util.Map.of("tier", "front"));
            send("PUT", PODS + "/web-1", Decoding.standard().mapper().writeValueAsString(created));
            send("DELETE", PODS + "/web-1", null);

            List<WatchEvent.Change<Pod>> changes = new ArrayList<>();
            List<WatchEvent.Bookmark<Pod>> bookmarks = new ArrayList<>();
            boolean bookmarkAfterLastChange = false; // periodic bookmarks may also come between the changes
            for (int events = 0; (changes.size() < 3 || !bookmarkAfterLastChange) && events < 1_000; events++) {
                switch (next(watch)) {
                    case WatchEvent.Change<Pod> c -> changes.add(c);
                    case WatchEvent.Bookmark<Pod> b -> {
                        bookmarks.add(b);
                        bookmarkAfterLastChange = changes.size() == 3;
                    }
                    case WatchEvent.Error<Pod> e -> throw new AssertionError("unexpected " + e);
                    case WatchEvent.Undecodable<Pod> u -> throw new AssertionError("unexpected " + u);
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
            List<Long> rvs = changes.stream()
                    .map(c -> Long.parseLong(c.object().getMetadata().getResourceVersion()))
                    .toList();
            assertThat(rvs).isSorted().doesNotHaveDuplicates();
            assertThat(bookmarks)
                    .allSatisfy(b -> assertThat(b.initialEventsEnd()).isFalse());
            assertThat(Long.parseLong(bookmarks.getLast().resourceVersion())).isGreaterThanOrEqualTo(rvs.getLast());
        }
    }

    @Test
    void aStreamingListEndsItsInitialEventsWithTheAnnotatedBookmark() throws Exception {
        send("POST", PODS, pod("a"));
        send("POST", PODS, pod("b"));
        try (Watch<Pod> watch = watch(
                "?watch=1&sendInitialEvents=true&allowWatchBookmarks=true" + "&resourceVersionMatch=NotOlderThan",
                Duration.ofMinutes(1))) {
            Set<String> initial = new HashSet<>();
            WatchEvent<Pod> event;
            while ((event = next(watch)) instanceof WatchEvent.Change<Pod> c) {
                assertThat(c.type()).isEqualTo(WatchEventType.ADDED);
                initial.add(c.object().getMetadata().getName());
            }
            assertThat(initial).containsExactlyInAnyOrder("a", "b");
            assertThat(event).isInstanceOfSatisfying(WatchEvent.Bookmark.class, b -> assertThat(b.initialEventsEnd())
                    .isTrue());
        }
    }

    @Test
    void watchingFromACompactedResourceVersionGivesA410ErrorEventThenTheEnd() throws Exception {
        String old = listResourceVersion();
        send("POST", PODS, pod("a"));
        send("POST", PODS, pod("b"));
        server.compact();

        try (Watch<Pod> watch = watch("?watch=true&resourceVersion=" + old, Duration.ofMinutes(1))) {
            WatchEvent<Pod> event = next(watch);
            assertThat(event).isInstanceOfSatisfying(WatchEvent.Error.class, e -> {
                assertThat(e.status().getCode()).isEqualTo(410);
                assertThat(e.status().getReason()).isEqualTo("Expired");
                assertThat(e.status().getMessage()).contains("too old resource version");
            });
            assertThat(watch.next(WAIT)).isNull();
            assertThat(watch.isDone()).isTrue();
        }
    }

    @Test
    void theServersTimeoutEndsTheWatchNormally() throws Exception {
        try (Watch<Pod> watch = watch("?watch=true&timeoutSeconds=1", Duration.ofMinutes(1))) {
            assertThat(watch.next(WAIT)).isNull();
            assertThat(watch.isDone()).isTrue();
        }
    }

    @Test
    void closedWatchesEndNormally() throws Exception {
        try (Watch<Pod> watch = watch("?watch=true&resourceVersion=" + listResourceVersion(), Duration.ofMinutes(1))) {
            send("POST", PODS, pod("a"));
            assertThat(next(watch).type()).isEqualTo(WatchEventType.ADDED);

            assertThat(server.faults().closeWatches("pods")).isEqualTo(1);

            assertThat(watch.next(WAIT)).isNull();
            assertThat(watch.isDone()).isTrue();
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
     * On a fake clock: bookmarks (every 200 ms of real time) keep a 1 s idle timeout at bay across clock steps
     * that add up to more than the timeout, until the fault silences the stream; then one step past the timeout
     * fires the rule.
     */
    private void assertIdleRuleFiresUnder(Runnable fault) throws Exception {
        FakeClock clock = new FakeClock();
        HttpResponse<InputStream> response = http.send(
                get(PODS + "?watch=true&allowWatchBookmarks=true&resourceVersion=" + listResourceVersion()),
                BodyHandlers.ofInputStream());
        try (Watch<Pod> watch = Watch.builder(response.body(), Pod.class)
                .idleTimeout(Duration.ofSeconds(1))
                .clock(clock)
                .description("watch of pods")
                .start()) {
            AtomicLong bookmarks = new AtomicLong();
            CompletableFuture<Throwable> failure = new CompletableFuture<>();
            Thread consumer = Thread.ofVirtual().name("test-consumer").start(() -> {
                try {
                    while (watch.next() != null) {
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

            assertThat(failure.get(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS))
                    .isInstanceOf(WatchIdleTimeoutException.class)
                    .hasMessageContaining("received no bytes for");
            consumer.join(WAIT);
            assertThat(consumer.isAlive()).isFalse();
        }
    }

    @Test
    void closeFromAnotherThreadReleasesTheReaderAndTheConnectionAtOnce() throws Exception {
        AtomicReference<Thread> reader = new AtomicReference<>();
        HttpResponse<InputStream> response = http.send(
                get(PODS + "?watch=true&resourceVersion=" + listResourceVersion()), BodyHandlers.ofInputStream());
        Watch<Pod> watch = Watch.builder(response.body(), Pod.class)
                .threadFactory(r -> {
                    Thread t = Thread.ofVirtual().name("it-watch-reader").unstarted(r);
                    reader.set(t);
                    return t;
                })
                .start();
        CompletableFuture<WatchEvent<Pod>> blocked = new CompletableFuture<>();
        Thread.ofVirtual().start(() -> {
            try {
                blocked.complete(watch.next());
            } catch (Throwable t) {
                blocked.completeExceptionally(t);
            }
        });
        await().atMost(WAIT).until(() -> reader.get().getState() == Thread.State.WAITING);

        Thread.ofVirtual().start(watch::close).join();

        await().atMost(Duration.ofSeconds(5)).until(blocked::isDone);
        assertThat(blocked.get()).isNull();
        await().atMost(Duration.ofSeconds(5)).until(() -> !reader.get().isAlive());
        // The server notices the client is gone (when it writes the next event) and ends its watch: its
        // open-watch gauge drops to 0 with nothing else closing the watch.
        await().atMost(WAIT).until(() -> {
            send("POST", PODS, pod("probe-" + System.nanoTime()));
            return openPodWatches() == 0;
        });
        assertThat(server.faults().closeWatches("pods")).isZero();
    }

    /** The server's {@code apiserver_longrunning_requests} for pods, scraped from its /metrics. */
    private int openPodWatches() throws Exception {
        return send("GET", "/metrics", null)
                .lines()
                .filter(l -> l.startsWith("apiserver_longrunning_requests{") && l.contains("resource=\"pods\""))
                .mapToInt(l -> (int) Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
                .sum();
    }

    private Watch<Pod> watch(String query, Duration idleTimeout) throws Exception {
        HttpResponse<InputStream> response = http.send(get(PODS + query), BodyHandlers.ofInputStream());
        assertThat(response.statusCode()).isEqualTo(200);
        return Watch.builder(response.body(), Pod.class)
                .idleTimeout(idleTimeout)
                .description("watch of pods")
                .start();
    }

    private static WatchEvent<Pod> next(Watch<Pod> watch) throws InterruptedException {
        WatchEvent<Pod> event = watch.next(WAIT);
        assertThat(event).as("an event within " + WAIT).isNotNull();
        return event;
    }

    private String listResourceVersion() throws Exception {
        return Decoding.standard()
                .mapper()
                .readTree(send("GET", PODS, null))
                .path("metadata")
                .path("resourceVersion")
                .asString();
    }

    private HttpRequest get(String path) {
        return HttpRequest.newBuilder(URI.create(server.url() + path)).GET().build();
    }

    private String send(String method, String path, String body) throws Exception {
        HttpRequest.Builder b =
                HttpRequest.newBuilder(URI.create(server.url() + path)).header("Content-Type", "application/json");
        b.method(
                method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        HttpResponse<String> response = http.send(b.build(), BodyHandlers.ofString());
        assertThat(response.statusCode())
                .as(method + " " + path + ": " + response.body())
                .isBetween(200, 299);
        return response.body();
    }

    private static String pod(String name) {
        return "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"" + name + "\"},"
                + "\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"nginx\"}]}}";
    }
}
