package io.kubeloop.informer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.kubeloop.apiserver.EmbeddedApiServer;
import io.kubeloop.apiserver.fault.Failure;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.client.config.ClientConfig;
import io.kubeloop.client.resource.ResourceClient;
import io.kubeloop.client.transport.RateLimiter;
import io.kubeloop.client.watch.WatchIdleTimeoutException;
import io.kubeloop.clock.FakeClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * One {@link FakeClock} drives a whole client + informer stack against the embedded API server over real HTTP: the
 * watch idle rule, a 429's Retry-After and the client-side rate limit all wait on the clock the test steps, and on
 * nothing else. Every real-time wait here is Awaitility polling for the other threads to catch up (a scheduling
 * hop), never a wait for a timer to expire.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class OneClockIT {

    private static final Duration WAIT = Duration.ofSeconds(30);
    /** The client's watch idle timeout, on the fake clock. */
    private static final Duration IDLE = Duration.ofMinutes(5);

    private final FakeClock clock = new FakeClock();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final List<Throwable> watchErrors = new CopyOnWriteArrayList<>();
    private EmbeddedApiServer server;
    /** The stack under test: everything on {@link #clock}. */
    private KubernetesClient client;
    /** The test's own hands on the server: system clock, no limit. */
    private KubernetesClient admin;

    private SharedInformerFactory factory;
    private SharedIndexInformer<ConfigMap> configMaps;
    private String host;

    @BeforeEach
    void start() {
        // Bookmarks every hour of real time: none arrives during the test, so the watch is silent unless written to.
        server = EmbeddedApiServer.builder()
                .bookmarkInterval(Duration.ofHours(1))
                .start();
        host = server.url().getHost() + ":" + server.port();
        ClientConfig config = ClientConfig.builder().server(server.url()).build();
        admin = KubernetesClient.builder(config)
                .rateLimiter(RateLimiter.unlimited())
                .build();
        client = KubernetesClient.builder(config)
                .clock(clock)
                .rateLimit(1, 3) // one request a second, three at once
                .watchIdleTimeout(IDLE)
                .meterRegistry(registry)
                .build();
        factory = SharedInformerFactory.builder(client).namespace("default").build(); // the client's clock
        configMaps = factory.informerFor(ConfigMap.class);
        configMaps.setWatchErrorHandler((reflector, error) -> watchErrors.add(error));
        factory.start();
        await().atMost(WAIT).until(configMaps::hasSynced);
        assertThat(client.clock()).isSameAs(clock);
    }

    @AfterEach
    void stop() {
        if (factory != null) {
            factory.shutdown();
        }
        client.close();
        admin.close();
        server.close();
    }

    @Test
    void theWatchIdleRuleA429sRetryAfterAndTheRateLimitAllWaitOnTheOneFakeClock() throws Exception {
        ResourceClient<ConfigMap> cms = admin.resources(ConfigMap.class);
        cms.create(configMap("before-idle"));
        await().atMost(WAIT).until(() -> cached("before-idle"));
        double watchesOpened = requests("GET", "200");

        // 1. The watch goes silent. 4m59s of clock time is not idle; the fifth minute closes it, on this thread,
        //    and the informer watches again at once, from where it was.
        clock.step(IDLE.minusSeconds(1));
        assertThat(watchErrors).isEmpty();
        clock.step(Duration.ofSeconds(1));
        await().atMost(WAIT).until(() -> !watchErrors.isEmpty()); // the reflector's thread hears of it
        assertThat(watchErrors).singleElement().isInstanceOf(WatchIdleTimeoutException.class);
        await().atMost(WAIT).until(() -> requests("GET", "200") == watchesOpened + 1);
        cms.create(configMap("after-idle"));
        await().atMost(WAIT).until(() -> cached("after-idle"));
        assertThat(requests("GET", "200")).as("watched again, not relisted").isEqualTo(watchesOpened + 1);

        // 2. The next watch is answered 429 with Retry-After: 7. The client retries it after 7 s of clock time
        //    and not a nanosecond before.
        server.faults()
                .fail(Failure.status(429)
                        .count(1)
                        .retryAfterSeconds(7)
                        .resource("configmaps")
                        .verb("watch"));
        // The server may still hold the idle watch the client dropped (it notices at its next write): 1 or 2.
        assertThat(server.faults().closeWatches("configmaps")).isPositive();
        // The 429 is counted before the retry's wait begins, and nothing else waits on the clock: the waiter is it.
        await().atMost(WAIT).until(() -> requests("GET", "429") == 1 && clock.hasWaiters());
        clock.step(Duration.ofSeconds(7).minusNanos(1));
        assertThat(clock.hasWaiters())
                .as("Retry-After has not passed: the retry still waits")
                .isTrue();
        assertThat(requests("GET", "200")).isEqualTo(watchesOpened + 1);
        clock.step(Duration.ofNanos(1));
        await().atMost(WAIT).until(() -> requests("GET", "200") == watchesOpened + 2);
        cms.create(configMap("after-429"));
        await().atMost(WAIT).until(() -> cached("after-429"));
        assertThat(watchErrors)
                .as("the transport retried; the informer never saw the 429")
                .hasSize(1);

        // 3. The stack's client writes five objects through its rate limit (1/s, burst 3). The bucket refilled
        //    while the clock stood 7 s on; the watch just took one token, so two writes go at once, and then
        //    each one waits a second of clock time for its token.
        CompletableFuture<Void> writes = CompletableFuture.runAsync(
                () -> {
                    for (int i = 1; i <= 5; i++) {
                        client.resources(ConfigMap.class).create(configMap("limited-" + i));
                    }
                },
                runnable -> Thread.ofVirtual().name("test-writer").start(runnable));
        for (int created = 2; created < 5; created++) {
            double expected = created;
            // A write is counted before the next one takes its token and waits: the waiter is the writer.
            await().atMost(WAIT).until(() -> requests("POST", "201") == expected && clock.hasWaiters());
            clock.step(Duration.ofMillis(999));
            assertThat(requests("POST", "201"))
                    .as("no token before a second has passed")
                    .isEqualTo(expected);
            assertThat(writes).isNotDone();
            clock.step(Duration.ofMillis(1));
        }
        writes.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertThat(requests("POST", "201")).isEqualTo(5);
        for (int i = 1; i <= 5; i++) {
            String name = "limited-" + i;
            await().atMost(WAIT).until(() -> cached(name));
        }
        assertThat(registry.find("rest.client.rate.limiter.duration")
                        .tags("verb", "POST")
                        .timer()
                        .max(TimeUnit.MILLISECONDS))
                .as("the waits were clock time: exactly one second each")
                .isEqualTo(1000);
    }

    private boolean cached(String name) {
        return configMaps.indexer().getByKey("default/" + name).isPresent();
    }

    private double requests(String method, String code) {
        var c = registry.find("rest.client.requests")
                .tags("method", method, "code", code, "host", host)
                .counter();
        return c == null ? 0 : c.count();
    }

    private static ConfigMap configMap(String name) {
        return new ConfigMapBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace("default")
                .endMetadata()
                .addToData("k", "v")
                .build();
    }
}
