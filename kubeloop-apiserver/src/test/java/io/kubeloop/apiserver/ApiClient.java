package io.kubeloop.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Iterator;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** A tiny raw HTTP client for integration tests: every call goes over a real socket to the server. */
final class ApiClient {

    record Reply(int code, JsonNode body, String raw) {}

    static final JsonMapper JSON = JsonMapper.builder().build();

    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final URI base;

    ApiClient(URI base) {
        this.base = base;
    }

    Reply get(String path) {
        return send(HttpRequest.newBuilder(uri(path)).GET());
    }

    /** A GET with an Accept header, e.g. kubectl's Table Accept. */
    Reply get(String path, String accept) {
        return send(HttpRequest.newBuilder(uri(path)).header("Accept", accept).GET());
    }

    Reply post(String path, String body) {
        return send(HttpRequest.newBuilder(uri(path))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)));
    }

    Reply put(String path, String body) {
        return send(HttpRequest.newBuilder(uri(path))
                .header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(body)));
    }

    Reply delete(String path) {
        return send(HttpRequest.newBuilder(uri(path)).DELETE());
    }

    Reply request(String method, String path, String contentType, String body) {
        return request(method, path, contentType, body, java.util.Map.of());
    }

    /** A request with extra headers, e.g. a User-Agent. */
    Reply request(String method, String path, String contentType, String body, java.util.Map<String, String> headers) {
        HttpRequest.Builder b = HttpRequest.newBuilder(uri(path))
                .method(
                        method,
                        body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (contentType != null) {
            b.header("Content-Type", contentType);
        }
        headers.forEach(b::header);
        return send(b);
    }

    /** Creates and asserts 201; returns the stored object. */
    JsonNode create(String collectionPath, String body) {
        Reply r = post(collectionPath, body);
        assertThat(r.code()).as("create %s: %s", collectionPath, r.raw()).isEqualTo(201);
        return r.body();
    }

    /**
     * Creates and then writes the body's {@code status} through {@code /status}, as a kubelet or a controller would:
     * kube-apiserver resets the status of a new Pod or workload ({@code phase: Pending}, or empty). Returns the
     * stored object.
     */
    JsonNode createWithStatus(String collectionPath, String body) {
        JsonNode created = create(collectionPath, body);
        String name = created.get("metadata").get("name").asString();
        tools.jackson.databind.node.ObjectNode withStatus = (tools.jackson.databind.node.ObjectNode) created.deepCopy();
        withStatus.set("status", JSON.readTree(body).get("status"));
        Reply r = put(collectionPath + "/" + name + "/status", withStatus.toString());
        assertThat(r.code())
                .as("status of %s/%s: %s", collectionPath, name, r.raw())
                .isEqualTo(200);
        return r.body();
    }

    /** A watch whose lines are read on a background thread; take them with {@link Watch#next}. */
    Watch watch(String path) {
        return watch(path, (String) null);
    }

    /** A watch sent with an Accept header (null for none). */
    Watch watch(String path, String accept) {
        return watch(path, accept == null ? java.util.Map.of() : java.util.Map.of("Accept", accept));
    }

    /** A watch sent with extra headers, e.g. a User-Agent. */
    Watch watch(String path, java.util.Map<String, String> headers) {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri(path)).GET();
        headers.forEach(request::header);
        HttpResponse<Stream<String>> response;
        try {
            response = http.send(request.build(), HttpResponse.BodyHandlers.ofLines());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        return new Watch(response);
    }

    static final class Watch implements AutoCloseable {
        private static final JsonNode END = JSON.createObjectNode().put("type", "END");
        final int code;
        final String contentType;
        private final BlockingQueue<JsonNode> lines = new LinkedBlockingQueue<>();
        private final Stream<String> stream;

        Watch(HttpResponse<Stream<String>> response) {
            this.code = response.statusCode();
            this.contentType = response.headers().firstValue("Content-Type").orElse("");
            this.stream = response.body();
            Thread.ofVirtual().start(() -> {
                try {
                    Iterator<String> it = stream.iterator();
                    while (it.hasNext()) {
                        lines.add(JSON.readTree(it.next()));
                    }
                } catch (RuntimeException closed) {
                    // the test closed the stream
                } finally {
                    lines.add(END);
                }
            });
        }

        /** The next event, waiting at most 10 s; fails if none comes. */
        JsonNode next() throws InterruptedException {
            JsonNode line = lines.poll(10, TimeUnit.SECONDS);
            assertThat(line).as("a watch event within 10 s").isNotNull();
            assertThat(line).as("the watch ended early").isNotSameAs(END);
            return line;
        }

        /** How many lines (events, or the end) have arrived and not been taken. */
        int available() {
            return lines.size();
        }

        /** True if the stream ends within 10 s with no further event. */
        boolean endsWithoutMoreEvents() throws InterruptedException {
            JsonNode line = lines.poll(10, TimeUnit.SECONDS);
            return line == END;
        }

        @Override
        public void close() {
            stream.close();
        }
    }

    private URI uri(String path) {
        return URI.create(base + path);
    }

    private Reply send(HttpRequest.Builder b) {
        try {
            HttpResponse<String> r =
                    http.send(b.timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
            JsonNode body = r.body().isEmpty() ? null : JSON.readTree(r.body());
            return new Reply(r.statusCode(), body, r.body());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
