package io.kubeloop.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubeloop.apiserver.ApiClient.Watch;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/** {@code /metrics} in Prometheus text with kube-apiserver's names and labels. */
class MetricsIT extends EmbeddedServerTest {

    @Override
    EmbeddedApiServer.Builder configure(EmbeddedApiServer.Builder builder) {
        return builder.bookmarkInterval(Duration.ofMillis(100));
    }

    private String scrape() throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create(server.url() + "/metrics"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("Content-Type").orElse("")).startsWith("text/plain; version=0.0.4");
        return r.body();
    }

    @Test
    void requestsAreCountedByVerbResourceAndCode() throws Exception {
        api.create("/api/v1/namespaces/default/configmaps", "{\"metadata\":{\"name\":\"a\"}}");
        api.get("/api/v1/namespaces/default/configmaps/a");
        api.get("/api/v1/namespaces/default/configmaps/missing");
        api.get("/api/v1/namespaces/default/configmaps");
        String text = scrape();
        assertThat(text)
                .containsPattern(
                        "apiserver_request_total\\{[^}]*code=\"201\"[^}]*resource=\"configmaps\"[^}]*verb=\"POST\"[^}]*\\} 1")
                .containsPattern(
                        "apiserver_request_total\\{[^}]*code=\"200\"[^}]*resource=\"configmaps\"[^}]*verb=\"GET\"[^}]*\\} 1")
                .containsPattern(
                        "apiserver_request_total\\{[^}]*code=\"404\"[^}]*resource=\"configmaps\"[^}]*verb=\"GET\"[^}]*\\} 1")
                .containsPattern(
                        "apiserver_request_total\\{[^}]*code=\"200\"[^}]*resource=\"configmaps\"[^}]*verb=\"LIST\"[^}]*\\} 1")
                .contains("apiserver_request_duration_seconds_bucket{")
                // a, and the kube-root-ca.crt of each of the four namespaces
                .containsPattern("apiserver_storage_objects\\{resource=\"configmaps\"\\} 5")
                .containsPattern("apiserver_storage_objects\\{resource=\"namespaces\"\\} 4");
    }

    @Test
    @SuppressWarnings("try") // the watch is held open for the body and closed after it; the body never names it
    void openWatchesAreALongRunningGauge() throws Exception {
        // With bookmarks allowed, the server's periodic bookmark finds the closed connection.
        try (Watch w = api.watch("/api/v1/namespaces/default/pods?watch=true&allowWatchBookmarks=true")) {
            Awaitility.await()
                    .atMost(Duration.ofSeconds(10))
                    .until(
                            () -> scrape().matches(
                                            "(?s).*apiserver_longrunning_requests\\{[^}]*resource=\"pods\"[^}]*verb=\"WATCH\"[^}]*\\} 1.*"));
        }
        Awaitility.await()
                .atMost(Duration.ofSeconds(10))
                .until(
                        () -> scrape().matches(
                                        "(?s).*apiserver_longrunning_requests\\{[^}]*resource=\"pods\"[^}]*verb=\"WATCH\"[^}]*\\} 0.*"));
    }
}
