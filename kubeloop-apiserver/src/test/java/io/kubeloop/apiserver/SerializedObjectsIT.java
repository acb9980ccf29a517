package io.kubeloop.apiserver;

import static io.kubeloop.apiserver.Widgets.CRD;
import static io.kubeloop.apiserver.Widgets.CRD_PATH;
import static io.kubeloop.apiserver.Widgets.WIDGETS;
import static io.kubeloop.apiserver.Widgets.WIDGETS_BETA;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The server serializes each stored object once and reuses the bytes in lists, watch events and GETs. These tests
 * hold those answers, byte for byte, to what a plain Jackson mapper writes for the same object, taken from an
 * answer the cache does not make (the body of the create, update or delete that wrote it), and check that a
 * newer version is never answered with an older version's bytes.
 */
class SerializedObjectsIT extends EmbeddedServerTest {

    /** A plain mapper, independent of the server's. */
    private static final JsonMapper PLAIN = JsonMapper.builder().build();

    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    /** One object of the byte-identity table: where it is created, and where it is read (list, GET, watch). */
    private record Case(String description, String collection, String body, String readCollection) {}

    @Test
    void listGetAndWatchAnswersAreByteForByteWhatJacksonWritesForTheStoredObject() throws Exception {
        api.create("/api/v1/namespaces", "{\"metadata\":{\"name\":\"bytes\"}}");
        ApiClient.Reply crd = api.request("POST", CRD_PATH, "application/yaml", CRD);
        assertThat(crd.code()).as(crd.raw()).isEqualTo(201);
        String widget = """
                {"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"%s","labels":{"a":"b"}},
                 "spec":{"size":"small","replicas":3,"extra":{"nested":[1,2.5,true,null,"x"]}}}""";
        List<Case> cases = List.of(
                new Case(
                        "a pod with managedFields",
                        "/api/v1/namespaces/bytes/pods?fieldManager=tester",
                        """
                        {"metadata":{"name":"p","labels":{"app":"web"},"annotations":{"note":"a \\"quoted\\" value"}},
                         "spec":{"containers":[{"name":"c","image":"nginx","ports":[{"containerPort":80}],
                          "resources":{"limits":{"cpu":"500m","memory":"128Mi"}}}]}}""",
                        "/api/v1/namespaces/bytes/pods"),
                new Case(
                        "a configmap with unicode and escapes",
                        "/api/v1/namespaces/bytes/configmaps",
                        """
                        {"metadata":{"name":"u"},"data":{"greeting":"héllo wörld ✓ 日本語 😀",
                         "escapes":"quote \\" backslash \\\\ slash / newline \\n tab \\t control \\u0001 nul \\u0000 del \\u007f",
                         "html":"<a href='x'>&amp;</a> \\u2028 \\u2029"}}""",
                        "/api/v1/namespaces/bytes/configmaps"),
                new Case("a custom resource at its storage version", WIDGETS, widget.formatted("w1"), WIDGETS),
                new Case(
                        "a custom resource read at another served version",
                        WIDGETS,
                        widget.formatted("w2"),
                        WIDGETS_BETA),
                new Case(
                        "a custom resource written at another served version, read at its storage version",
                        WIDGETS_BETA,
                        widget.formatted("w3").replace("example.com/v1", "example.com/v1beta1"),
                        WIDGETS),
                new Case(
                        "a cluster-scoped object",
                        "/apis/rbac.authorization.k8s.io/v1/clusterroles",
                        """
                        {"metadata":{"name":"bytes-reader"},"rules":[{"apiGroups":[""],"resources":["pods"],
                         "verbs":["get","list","watch"]}]}""",
                        "/apis/rbac.authorization.k8s.io/v1/clusterroles"));

        for (Case c : cases) {
            ApiClient.Reply created = api.post(c.collection(), c.body());
            assertThat(created.code())
                    .as("%s: %s", c.description(), created.raw())
                    .isEqualTo(201);
            ObjectNode stored = (ObjectNode) PLAIN.readTree(created.raw());
            assertThat(PLAIN.writeValueAsString(stored))
                    .as("%s: the create answer is Jackson's serialization", c.description())
                    .isEqualTo(created.raw());
            // The object as the read path serves it: a custom resource's apiVersion is the one read at.
            ObjectNode served = stored.deepCopy();
            served.put("apiVersion", apiVersionOf(c.readCollection(), stored));
            String name = stored.at("/metadata/name").asString();
            String rv = stored.at("/metadata/resourceVersion").asString();

            byte[] get = getBytes(c.readCollection() + "/" + name);
            assertThat(new String(get, StandardCharsets.UTF_8))
                    .as("%s: GET", c.description())
                    .isEqualTo(PLAIN.writeValueAsString(served));

            byte[] list = getBytes(c.readCollection() + "?fieldSelector=metadata.name%3D" + name);
            ObjectNode expectedList = listOf(c.readCollection(), list, served);
            assertThat(new String(list, StandardCharsets.UTF_8))
                    .as("%s: list", c.description())
                    .isEqualTo(PLAIN.writeValueAsString(expectedList));

            try (RawWatch watch = watch(c.readCollection() + "?watch=true&fieldSelector=metadata.name%3D" + name)) {
                assertThat(watch.nextLine())
                        .as("%s: watch event", c.description())
                        .isEqualTo(eventLine("ADDED", served));
            }
            assertThat(api.get(c.readCollection() + "/" + name)
                            .body()
                            .at("/metadata/resourceVersion")
                            .asString())
                    .as("%s: unchanged meanwhile, so all answers showed the created version", c.description())
                    .isEqualTo(rv);
        }

        // Several items: separators and every item's fields as Jackson writes them.
        api.create(
                "/api/v1/namespaces/bytes/pods",
                "{\"metadata\":{\"name\":\"q\"},\"spec\":{\"containers\":"
                        + "[{\"name\":\"c\",\"image\":\"busybox\",\"command\":[\"sh\",\"-c\",\"echo \\\"hi\\\"\"]}]}}");
        byte[] pods = getBytes("/api/v1/namespaces/bytes/pods");
        List<ObjectNode> items = new ArrayList<>();
        for (String name : List.of("p", "q")) {
            items.add((ObjectNode) PLAIN.readTree(getBytes("/api/v1/namespaces/bytes/pods/" + name)));
        }
        assertThat(new String(pods, StandardCharsets.UTF_8))
                .isEqualTo(PLAIN.writeValueAsString(
                        listOf("/api/v1/namespaces/bytes/pods", pods, items.toArray(ObjectNode[]::new))));

        // A page: its metadata carries the continue token and remainingItemCount before the items.
        byte[] page = getBytes("/api/v1/namespaces/bytes/pods?limit=1");
        ObjectNode expectedPage = listOf("/api/v1/namespaces/bytes/pods", page, items.get(0));
        ((ObjectNode) expectedPage.get("metadata"))
                .put("continue", PLAIN.readTree(page).at("/metadata/continue").asString())
                .put("remainingItemCount", 1);
        assertThat(new String(page, StandardCharsets.UTF_8)).isEqualTo(PLAIN.writeValueAsString(expectedPage));
    }

    @Test
    void updatesAreNeverAnsweredWithAnOlderVersionsBytes() throws Exception {
        String path = "/api/v1/namespaces/default/configmaps";
        ApiClient.Reply created = api.post(path, "{\"metadata\":{\"name\":\"counter\"},\"data\":{\"n\":\"0\"}}");
        assertThat(created.code()).isEqualTo(201);
        String rv =
                PLAIN.readTree(created.raw()).at("/metadata/resourceVersion").asString();
        try (RawWatch watch = watch(path + "?watch=true&resourceVersion=" + rv);
                RawWatch byName =
                        watch(path + "?watch=true&fieldSelector=metadata.name%3Dcounter&resourceVersion=" + rv)) {
            for (int i = 1; i <= 20; i++) {
                // Read every form first, so each version's bytes are cached before the next write.
                assertThat(getBytes(path + "/counter")).isNotEmpty();
                assertThat(getBytes(path)).isNotEmpty();
                ApiClient.Reply updated = api.request(
                        "PATCH", path + "/counter", "application/merge-patch+json", "{\"data\":{\"n\":\"" + i + "\"}}");
                assertThat(updated.code()).as(updated.raw()).isEqualTo(200);
                ObjectNode stored = (ObjectNode) PLAIN.readTree(updated.raw());
                assertThat(stored.at("/data/n").asString()).isEqualTo(Integer.toString(i));

                assertThat(new String(getBytes(path + "/counter"), StandardCharsets.UTF_8))
                        .as("GET after update %d", i)
                        .isEqualTo(updated.raw());
                byte[] list = getBytes(path + "?fieldSelector=metadata.name%3Dcounter");
                assertThat(new String(list, StandardCharsets.UTF_8))
                        .as("list after update %d", i)
                        .isEqualTo(PLAIN.writeValueAsString(listOf(path, list, stored)));
                assertThat(watch.nextLine()).as("watch event of update %d", i).isEqualTo(eventLine("MODIFIED", stored));
                assertThat(byName.nextLine())
                        .as("filtered watch event of update %d", i)
                        .isEqualTo(eventLine("MODIFIED", stored));
            }
            ApiClient.Reply deleted = api.delete(path + "/counter");
            assertThat(deleted.code()).as(deleted.raw()).isEqualTo(200);
            ObjectNode last = (ObjectNode) PLAIN.readTree(deleted.raw());
            assertThat(last.at("/data/n").asString()).as("the last state").isEqualTo("20");
            assertThat(watch.nextLine())
                    .as("the DELETED event carries the last state")
                    .isEqualTo(eventLine("DELETED", last));
            assertThat(byName.nextLine())
                    .as("the filtered DELETED event carries the last state")
                    .isEqualTo(eventLine("DELETED", last));
        }
    }

    @Test
    void everyWatcherOfAResourceGetsTheSameBytesForAnEvent() throws Exception {
        ApiClient.Reply crd = api.request("POST", CRD_PATH, "application/yaml", CRD);
        assertThat(crd.code()).as(crd.raw()).isEqualTo(201);
        String rv = api.get(WIDGETS).body().at("/metadata/resourceVersion").asString();
        List<RawWatch> storageVersion = new ArrayList<>();
        List<RawWatch> otherVersion = new ArrayList<>();
        try {
            for (int i = 0; i < 6; i++) {
                storageVersion.add(watch(WIDGETS + "?watch=true&resourceVersion=" + rv));
                otherVersion.add(watch(WIDGETS_BETA + "?watch=true&resourceVersion=" + rv));
            }
            ApiClient.Reply created = api.post(WIDGETS, Widgets.widget("shared", 1));
            assertThat(created.code()).as(created.raw()).isEqualTo(201);
            ObjectNode stored = (ObjectNode) PLAIN.readTree(created.raw());
            ObjectNode beta = stored.deepCopy().put("apiVersion", "example.com/v1beta1");
            for (RawWatch w : storageVersion) {
                assertThat(w.nextLine()).isEqualTo(eventLine("ADDED", stored));
            }
            for (RawWatch w : otherVersion) {
                assertThat(w.nextLine()).isEqualTo(eventLine("ADDED", beta));
            }
        } finally {
            storageVersion.forEach(RawWatch::close);
            otherVersion.forEach(RawWatch::close);
        }
    }

    /** The apiVersion {@code collection} serves: its group/version from the path, for the apis groups. */
    private static String apiVersionOf(String collection, JsonNode stored) {
        if (!collection.startsWith("/apis/")) {
            return stored.get("apiVersion").asString();
        }
        String[] parts = collection.split("/");
        return parts[2] + "/" + parts[3];
    }

    /**
     * The list a plain mapper writes for {@code items} as {@code collection} serves them: built-in items without
     * apiVersion and kind, custom resource items (example.com) with both, as kube-apiserver serves them; the list's
     * resourceVersion taken from the answer (it is the store's revision at the list).
     */
    private static ObjectNode listOf(String collection, byte[] answer, ObjectNode... items) {
        JsonNode actual = PLAIN.readTree(answer);
        ObjectNode list = PLAIN.createObjectNode();
        list.put("kind", items[0].get("kind").asString() + "List");
        list.put("apiVersion", apiVersionOf(collection, items[0]));
        list.putObject("metadata")
                .put("resourceVersion", actual.at("/metadata/resourceVersion").asString());
        var array = list.putArray("items");
        for (ObjectNode item : items) {
            ObjectNode copy = item.deepCopy();
            if (!collection.startsWith("/apis/example.com/")) {
                copy.remove("apiVersion");
                copy.remove("kind");
            }
            array.add(copy);
        }
        return list;
    }

    /** A watch event line as a plain mapper writes it, with its newline. */
    private static String eventLine(String type, ObjectNode object) {
        ObjectNode event = PLAIN.createObjectNode();
        event.put("type", type);
        event.set("object", object);
        return PLAIN.writeValueAsString(event) + "\n";
    }

    private byte[] getBytes(String path) {
        try {
            HttpResponse<byte[]> r = http.send(
                    HttpRequest.newBuilder(URI.create(server.url() + path))
                            .timeout(Duration.ofSeconds(30))
                            .GET()
                            .build(),
                    HttpResponse.BodyHandlers.ofByteArray());
            assertThat(r.statusCode())
                    .as("GET %s: %s", path, new String(r.body(), StandardCharsets.UTF_8))
                    .isEqualTo(200);
            return r.body();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private RawWatch watch(String path) {
        try {
            HttpResponse<InputStream> r = http.send(
                    HttpRequest.newBuilder(URI.create(server.url() + path))
                            .GET()
                            .build(),
                    HttpResponse.BodyHandlers.ofInputStream());
            assertThat(r.statusCode()).as("watch %s", path).isEqualTo(200);
            return new RawWatch(r.body());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** A watch stream read as raw lines (bytes up to and including each newline, decoded only to compare). */
    private static final class RawWatch implements AutoCloseable {
        private static final String END = "<end>";
        private final InputStream body;
        private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();

        RawWatch(InputStream body) {
            this.body = body;
            InputStream in = new java.io.BufferedInputStream(body);
            Thread.ofVirtual().start(() -> {
                try {
                    ByteArrayOutputStream line = new ByteArrayOutputStream();
                    for (int b; (b = in.read()) >= 0; ) {
                        line.write(b);
                        if (b == '\n') {
                            lines.add(line.toString(StandardCharsets.UTF_8));
                            line.reset();
                        }
                    }
                } catch (IOException closed) {
                    // the test closed the stream
                } finally {
                    lines.add(END);
                }
            });
        }

        /** The next line, with its newline, waiting at most 10 s. */
        String nextLine() throws InterruptedException {
            String line = lines.poll(10, TimeUnit.SECONDS);
            assertThat(line).as("a watch event within 10 s").isNotNull().isNotEqualTo(END);
            return line;
        }

        @Override
        public void close() {
            try {
                body.close();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
