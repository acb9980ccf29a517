package io.kubeloop.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import tools.jackson.databind.JsonNode;

/**
 * Random hostile requests against one running server: bodies (valid objects, objects with hostile values at
 * random places, random JSON, random bytes), patches of every type (random JSON patch operations, strategic merge
 * directives, merge patches), query parameters with bad values, and paths. The invariants (issue 17 §4):
 * <ul>
 *   <li>every answer is a kube {@code Status} or a valid object: its JSON parses and has a {@code kind};</li>
 *   <li>no 500 (nothing is injected here);</li>
 *   <li>a refused request changes nothing: the store's revision (a list's resourceVersion) is the same after it;</li>
 *   <li>{@code /readyz} stays up.</li>
 * </ul>
 * Bounded: a fixed number of tries, each a handful of requests, well under the suite's 20 s budget.
 */
class HostileRequestFuzzProperties {

    private static final String NS = "fuzz";
    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static EmbeddedApiServer server;

    private static final Map<String, String> VALID = Map.of(
            "/api/v1/namespaces/fuzz/configmaps",
            "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"a\",\"labels\":{\"x\":\"y\"}},"
                    + "\"data\":{\"k\":\"v\"}}",
            "/api/v1/namespaces/fuzz/secrets",
            "{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"metadata\":{\"name\":\"a\"},\"data\":{\"k\":\"dg==\"}}",
            "/apis/apps/v1/namespaces/fuzz/deployments",
            "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"a\"},\"spec\":{\"replicas\":1,"
                    + "\"selector\":{\"matchLabels\":{\"app\":\"a\"}},\"template\":{\"metadata\":{\"labels\":{\"app\":"
                    + "\"a\"}},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"i\"}]}}}}");

    @BeforeContainer
    static void start() throws Exception {
        server = EmbeddedApiServer.builder().start();
        send(
                "POST",
                "/api/v1/namespaces",
                "application/json",
                "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"" + NS + "\"}}");
        for (Map.Entry<String, String> e : VALID.entrySet()) {
            assertThat(send("POST", e.getKey(), "application/json", e.getValue())
                            .statusCode())
                    .isEqualTo(201);
        }
    }

    @AfterContainer
    static void stop() {
        server.close();
    }

    record Request(String method, String path, String query, String contentType, String body) {
        @Override
        public String toString() {
            String b = body == null ? "null" : body.length() > 300 ? body.substring(0, 300) + "…" : body;
            return method + " " + path + (query.isEmpty() ? "" : "?" + query) + " [" + contentType + "] " + b;
        }
    }

    private static HttpResponse<String> send(String method, String pathAndQuery, String contentType, String body)
            throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(server.url() + pathAndQuery))
                .timeout(Duration.ofSeconds(10))
                .method(
                        method,
                        body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (contentType != null) {
            b.header("Content-Type", contentType);
        }
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The store's revision: a list's resourceVersion is the latest write's. */
    private static String revision() throws Exception {
        HttpResponse<String> list = send("GET", "/api/v1/namespaces/" + NS + "/configmaps", null, null);
        return ApiClient.JSON
                .readTree(list.body())
                .get("metadata")
                .get("resourceVersion")
                .stringValue();
    }

    @Property(tries = 150, shrinking = ShrinkingMode.BOUNDED)
    void everyAnswerIsAStatusOrAnObjectAndRefusalsChangeNothing(@ForAll("requests") Request r) throws Exception {
        String before = revision();
        HttpResponse<String> reply =
                send(r.method(), r.path() + (r.query().isEmpty() ? "" : "?" + r.query()), r.contentType(), r.body());
        int code = reply.statusCode();
        assertThat(code).as("%s → %s", r, reply.body()).isNotEqualTo(500).isBetween(200, 599);
        JsonNode answer = ApiClient.JSON.readTree(reply.body());
        assertThat(answer.path("kind").asString(""))
                .as("%s → %s", r, reply.body())
                .isNotEmpty();
        if (code >= 400) {
            assertThat(answer.path("kind").asString()).isEqualTo("Status");
            assertThat(answer.path("code").asInt()).isEqualTo(code);
            assertThat(revision()).as("a refused request stored nothing: %s", r).isEqualTo(before);
        }
        HostileInputIT.assertReady(server);
        if (r.method().equals("DELETE") && code < 300) { // keep a target for the next tries
            String collection = r.path().substring(0, r.path().lastIndexOf('/'));
            if (VALID.containsKey(collection)) {
                send("POST", collection, "application/json", VALID.get(collection));
            }
        }
    }

    // ---- generators ----------------------------------------------------------------------------------------

    @Provide
    Arbitrary<Request> requests() {
        Arbitrary<String> collection =
                Arbitraries.of(VALID.keySet().stream().sorted().toList());
        Arbitrary<String> suffix = Arbitraries.of(
                "",
                "/a",
                "/a",
                "/a",
                "/b",
                "/a/status",
                "/a/scale",
                "/A",
                "/a.b",
                "/-",
                "/a/nope",
                "/" + "n".repeat(300));
        Arbitrary<String> method = Arbitraries.of("GET", "POST", "PUT", "PATCH", "PATCH", "PATCH", "DELETE");
        Arbitrary<String> contentType = Arbitraries.of(
                "application/json",
                "application/yaml",
                "application/merge-patch+json",
                "application/json-patch+json",
                "application/strategic-merge-patch+json",
                "application/apply-patch+yaml",
                "text/plain",
                "application/json; charset=utf-8");
        return Combinators.combine(collection, suffix, method, query(), contentType, Arbitraries.integers())
                .flatAs((c, s, m, q, ct, seed) -> body(c, ct)
                        .map(b -> new Request(
                                m,
                                c + s,
                                q,
                                m.equals("GET") || m.equals("DELETE") && seed % 2 == 0 ? null : ct,
                                m.equals("GET") ? null : b)));
    }

    private static Arbitrary<String> query() {
        Arbitrary<String> name = Arbitraries.of(
                "dryRun",
                "fieldManager",
                "fieldValidation",
                "force",
                "labelSelector",
                "fieldSelector",
                "limit",
                "continue",
                "resourceVersion",
                "resourceVersionMatch",
                "propagationPolicy",
                "gracePeriodSeconds",
                "pretty",
                "timeoutSeconds",
                "allowWatchBookmarks");
        Arbitrary<String> value = Arbitraries.of(
                "",
                "All",
                "Strict",
                "Warn",
                "bogus",
                "true",
                "maybe",
                "-1",
                "0",
                "1",
                "12",
                "1e400",
                "9223372036854775808",
                "a=b",
                "a in (b",
                "metadata.name=a",
                "spec.x=y",
                "Foreground",
                "Orphan",
                "NotOlderThan",
                "Exact",
                "k8s",
                "x".repeat(200),
                "%2F",
                "é");
        return Combinators.combine(name, value)
                .as((n, v) -> n + "=" + URLEncoder.encode(v, StandardCharsets.UTF_8))
                .list()
                .ofMaxSize(3)
                .map(l -> String.join("&", l));
    }

    /** Values placed where a field was, to break types, sizes and nesting. */
    private static Arbitrary<String> hostileValue() {
        return Arbitraries.of(
                "\"oops\"",
                "42",
                "1e400",
                "-1",
                "null",
                "[]",
                "{}",
                "true",
                "[{}]",
                "{\"$patch\":\"delete\"}",
                "\"" + "x".repeat(10_000) + "\"",
                "[".repeat(600) + "]".repeat(600),
                "{\"a\":".repeat(300) + "1" + "}".repeat(300),
                "\"\\u0000\"",
                "9223372036854775808",
                "0.5");
    }

    private static final List<String> FIELDS = List.of(
            "/metadata",
            "/metadata/name",
            "/metadata/labels",
            "/metadata/annotations",
            "/metadata/namespace",
            "/metadata/resourceVersion",
            "/metadata/uid",
            "/metadata/finalizers",
            "/metadata/generateName",
            "/data",
            "/data/k",
            "/spec",
            "/spec/replicas",
            "/spec/selector",
            "/spec/template/spec/containers",
            "/spec/template/spec/containers/0",
            "/spec/template/spec/containers/0/name",
            "/kind",
            "/apiVersion",
            "/status",
            "/x");

    private static Arbitrary<String> body(String collection, String contentType) {
        String valid = VALID.get(collection);
        Arbitrary<String> field = Arbitraries.of(FIELDS);
        Arbitrary<String> replaced = Combinators.combine(field, hostileValue()).as((f, v) -> replaceAt(valid, f, v));
        Arbitrary<String> jsonPatch = Combinators.combine(
                        Arbitraries.of("add", "remove", "replace", "move", "copy", "test", "frob"),
                        field,
                        field,
                        hostileValue())
                .as((op, path, from, v) -> "{\"op\":\"" + op + "\",\"path\":\"" + path + "\",\"from\":\"" + from
                        + "\",\"value\":" + v + "}")
                .list()
                .ofMinSize(1)
                .ofMaxSize(12)
                .map(ops -> "[" + String.join(",", ops) + "]");
        Arbitrary<String> smp = Combinators.combine(
                        field,
                        Arbitraries.of(
                                "{\"$patch\":\"frob\"}",
                                "{\"$patch\":\"delete\"}",
                                "{\"$patch\":\"replace\"}",
                                "[{\"$patch\":" + "\"delete\"}]",
                                "[{\"name\":\"c\",\"$patch\":\"merge\"}]",
                                "{\"$retainKeys\":\"x\"}",
                                "{\"$setElementOrder/containers\":\"x\"}",
                                "{\"$setElementOrder/containers\":[{\"x\":1}]}",
                                "{\"$deleteFromPrimitiveList/finalizers\":{}}",
                                "[[1]]",
                                "[1,\"a\",{}]"))
                .as((f, v) -> replaceAt("{}", f.equals("/x") ? "/spec" : f, v));
        Arbitrary<String> junk = Arbitraries.oneOf(
                Arbitraries.strings().ofMaxLength(40),
                Arbitraries.of("", "{", "[", "null", "\"s\"", "1", "{\"a\":1,\"a\":2}", "- a\n- b", "a: *x", "{}"));
        return Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(2, Arbitraries.just(valid)),
                net.jqwik.api.Tuple.of(5, replaced),
                net.jqwik.api.Tuple.of(contentType.contains("json-patch") ? 6 : 1, jsonPatch),
                net.jqwik.api.Tuple.of(contentType.contains("strategic") ? 6 : 1, smp),
                net.jqwik.api.Tuple.of(2, junk));
    }

    /** {@code doc} with the member at {@code pointer} (parents created as objects) set to the raw JSON {@code value}. */
    private static String replaceAt(String doc, String pointer, String value) {
        JsonNode root = ApiClient.JSON.readTree(doc);
        tools.jackson.databind.node.ObjectNode parent = (tools.jackson.databind.node.ObjectNode) root;
        String[] tokens = pointer.substring(1).split("/");
        for (int i = 0; i < tokens.length - 1; i++) {
            JsonNode next = parent.get(tokens[i]);
            if (next == null || !next.isObject()) {
                next = parent.putObject(tokens[i]);
            }
            parent = (tools.jackson.databind.node.ObjectNode) next;
        }
        String marker = "\"__HOSTILE__\"";
        parent.put(tokens[tokens.length - 1], "__HOSTILE__");
        return root.toString().replace(marker, value); // raw, so that values Jackson would not build stay raw
    }
}
