package io.kubeloop.controller;

import static io.kubeloop.controller.ControllerHarness.eventually;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.kubeloop.apiserver.EmbeddedApiServer;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.client.config.ClientConfig;
import io.kubeloop.client.transport.RateLimiter;
import io.kubeloop.clock.FakeClock;
import io.micrometer.core.instrument.Counter;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A controller loses no reconcile of a final state when its connection to the API server is cut for 30 seconds (seed
 * 001 §7.3) or when the server's watch history is compacted under it (410 → relist). The server's faults run on a
 * {@link FakeClock} (the 30 s partition ends when the test steps it); the controller runs in real time. Changes are
 * made meanwhile by a plain {@link HttpClient}, whose User-Agent the partition (scoped to {@code kubeloop}) spares.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ControllerUnderFaultsIT {

    private static final String NS = "default";
    private static final String DELETED = "<deleted>";

    private final FakeClock serverClock = new FakeClock();
    private EmbeddedApiServer server;
    private KubernetesClient client;
    private Manager manager;
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final HttpClient writer = HttpClient.newHttpClient();
    /** What the reconciler last saw in the cache, per name: the data value "v", or {@link #DELETED}. */
    private final Map<String, String> seen = new ConcurrentHashMap<>();

    @BeforeEach
    void start() {
        server = EmbeddedApiServer.builder().clock(serverClock).start();
        client = KubernetesClient.builder(
                        ClientConfig.builder().server(server.url()).build())
                .rateLimiter(RateLimiter.unlimited())
                .build();
        manager = Manager.builder(client)
                .metricsPort(0)
                .healthProbePort(0)
                .namespace(NS)
                .meterRegistry(registry)
                .build();
        var configMaps = manager.informerFactory().informerFor(ConfigMap.class);
        manager.newControllerFor(ConfigMap.class).workers(2).complete(request -> {
            seen.put(
                    request.name(),
                    configMaps
                            .indexer()
                            .getByKey(request.toString())
                            .map(cm -> cm.getData().get("v"))
                            .orElse(DELETED));
            return Result.done();
        });
    }

    @AfterEach
    void stop() {
        manager.close();
        client.close();
        server.close();
    }

    private void write(String method, String path, String contentType, String body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(server.url() + path))
                .timeout(Duration.ofSeconds(10))
                .header("Content-Type", contentType);
        b.method(
                method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        HttpResponse<String> response = writer.send(b.build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode())
                .as("%s %s: %s", method, path, response.body())
                .isBetween(200, 299);
    }

    private void create(String name, String v) throws Exception {
        write(
                "POST",
                "/api/v1/namespaces/" + NS + "/configmaps",
                "application/json",
                "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"" + name
                        + "\"},\"data\":{\"v\":\"" + v + "\"}}");
    }

    private void set(String name, String v) throws Exception {
        write(
                "PATCH",
                "/api/v1/namespaces/" + NS + "/configmaps/" + name,
                "application/merge-patch+json",
                "{\"data\":{\"v\":\"" + v + "\"}}");
    }

    private void delete(String name) throws Exception {
        write("DELETE", "/api/v1/namespaces/" + NS + "/configmaps/" + name, "application/json", null);
    }

    private void startAndSee(String... names) throws Exception {
        manager.start();
        eventually().until(() -> {
            for (String n : names) {
                if (!"0".equals(seen.get(n))) {
                    return false;
                }
            }
            return true;
        });
    }

    /** Deletes one, edits one five times, creates one: the final state the controller must reach. */
    private void changeEverything() throws Exception {
        for (int v = 1; v <= 5; v++) {
            set("target", Integer.toString(v));
        }
        delete("doomed");
        create("born", "new");
    }

    private void assertFinalStateReconciled() {
        eventually()
                .until(() -> "5".equals(seen.get("target"))
                        && DELETED.equals(seen.get("doomed"))
                        && "new".equals(seen.get("born")));
    }

    @Test
    void aThirtySecondPartitionLosesNoFinalState() throws Exception {
        create("target", "0");
        create("doomed", "0");
        startAndSee("target", "doomed");

        server.faults().partition(Duration.ofSeconds(30), "kubeloop");
        changeEverything();
        assertThat(seen).containsEntry("target", "0"); // cut off: nothing arrived yet

        serverClock.step(Duration.ofSeconds(30)); // the cable is back
        assertFinalStateReconciled();
        create("after", "0");
        eventually().until(() -> "0".equals(seen.get("after")));
    }

    @Test
    void aCompactedHistoryForcesARelistThatLosesNoFinalState() throws Exception {
        create("target", "0");
        create("doomed", "0");
        startAndSee("target", "doomed");

        server.faults().stall(Duration.ofSeconds(60)); // the watch takes the first change and holds it
        changeEverything();
        server.faults().compact();
        // ending the held watch drops what it had not delivered; resuming after it gets 410 Expired
        assertThat(server.faults().closeWatches("configmaps")).isEqualTo(1);
        server.faults().clear();

        assertFinalStateReconciled();
        Counter expired =
                registry.find("reflector.relists").tag("reason", "expired").counter();
        assertThat(expired).as("relisted after 410").isNotNull();
        assertThat(expired.count()).isGreaterThanOrEqualTo(1);
    }
}
