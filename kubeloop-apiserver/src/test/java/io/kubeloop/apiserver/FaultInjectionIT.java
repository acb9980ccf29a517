package io.kubeloop.apiserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kubeloop.apiserver.ApiClient.Reply;
import io.kubeloop.apiserver.ApiClient.Watch;
import io.kubeloop.apiserver.fault.Failure;
import io.kubeloop.clock.FakeClock;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** Each fault over real HTTP: seen by a plain client while it is in force, gone when it ends. */
class FaultInjectionIT {

    private static final String PODS = "/api/v1/namespaces/default/pods";
    private static final String INFORMER = "informer-under-test/1.0";

    private final List<EmbeddedApiServer> servers = new ArrayList<>();
    private final ExecutorService async = Executors.newVirtualThreadPerTaskExecutor();

    @AfterEach
    void stop() {
        servers.forEach(EmbeddedApiServer::close);
        async.shutdownNow();
    }

    private EmbeddedApiServer start(EmbeddedApiServer.Builder builder) {
        EmbeddedApiServer server = builder.start();
        servers.add(server);
        return server;
    }

    private static String pod(String name) {
        return "{\"metadata\":{\"name\":\"" + name
                + "\"},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"nginx\"}]}}";
    }

    private CompletableFuture<Reply> later(java.util.function.Supplier<Reply> call) {
        return CompletableFuture.supplyAsync(call, async);
    }

    private static String metrics(EmbeddedApiServer server) throws Exception {
        return HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create(server.url() + "/metrics"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
    }

    private static String rv(JsonNode object) {
        return object.get("metadata").get("resourceVersion").asString();
    }

    @Test
    void theAdminPathIsNotFoundUnlessEnabledButTheJavaApiWorksAnyway() {
        EmbeddedApiServer server = start(EmbeddedApiServer.builder());
        ApiClient api = new ApiClient(server.url());
        Reply admin = api.post("/kubeloop/faults/fail", "{\"code\":503}");
        assertThat(admin.code()).isEqualTo(404);
        assertThat(admin.body().get("message").asString())
                .isEqualTo("the server could not find the requested resource");
        assertThat(api.get("/kubeloop/faults").code()).isEqualTo(404);

        server.faults().fail(Failure.status(503).count(1));
        assertThat(api.get(PODS).code()).isEqualTo(503);
        assertThat(api.get(PODS).code()).isEqualTo(200);
    }

    @Test
    void failsTheNextRequestsInScopeThenServesAgain() throws Exception {
        EmbeddedApiServer server = start(EmbeddedApiServer.builder().faultInjection(true));
        ApiClient api = new ApiClient(server.url());
        api.create(PODS, pod("a"));
        Reply started =
                api.post("/kubeloop/faults/fail", "{\"count\":2,\"code\":503,\"resource\":\"pods\",\"verb\":\"list\"}");
        assertThat(started.code()).as(started.raw()).isEqualTo(200);
        assertThat(started.body().get("started").get("fault").asString()).isEqualTo("fail");

        assertThat(api.get(PODS + "/a").code()).as("get is not in scope").isEqualTo(200);
        assertThat(api.get("/api/v1/namespaces/default/configmaps").code())
                .as("configmaps are not")
                .isEqualTo(200);
        Reply failed = api.get(PODS);
        assertThat(failed.code()).isEqualTo(503);
        assertThat(failed.body().get("kind").asString()).isEqualTo("Status");
        assertThat(failed.body().get("reason").asString()).isEqualTo("ServiceUnavailable");
        assertThat(api.get("/kubeloop/faults")
                        .body()
                        .get("faults")
                        .get(0)
                        .get("remainingCount")
                        .asInt())
                .isEqualTo(1);
        assertThat(api.get("/api/v1/pods").code())
                .as("all namespaces, still pods/list")
                .isEqualTo(503);
        assertThat(api.get(PODS).code()).isEqualTo(200);
        assertThat(api.get("/kubeloop/faults").body().get("faults")).isEmpty();

        String metrics = metrics(server);
        assertThat(metrics)
                .contains(
                        "kubeloop_apiserver_faults_injected_total{fault=\"fail\",resource=\"pods\",verb=\"list\"} 1.0")
                .contains(
                        "kubeloop_apiserver_fault_affected_requests_total{fault=\"fail\",resource=\"pods\",verb=\"list\"} 2.0")
                .contains("kubeloop_apiserver_faults_active{fault=\"fail\"} 0.0");
    }

    @Test
    void failuresCarryKubeApiserversStatusAndRetryAfter() throws Exception {
        EmbeddedApiServer server = start(EmbeddedApiServer.builder().faultInjection(true));
        ApiClient api = new ApiClient(server.url());
        HttpClient http = HttpClient.newHttpClient();
        HttpRequest list =
                HttpRequest.newBuilder(URI.create(server.url() + PODS)).build();

        api.post("/kubeloop/faults/fail", "{\"code\":429,\"retryAfterSeconds\":2,\"count\":1}");
        HttpResponse<String> tooMany = http.send(list, HttpResponse.BodyHandlers.ofString());
        assertThat(tooMany.statusCode()).isEqualTo(429);
        assertThat(tooMany.headers().firstValue("Retry-After")).contains("2");
        JsonNode status = ApiClient.JSON.readTree(tooMany.body());
        assertThat(status.get("reason").asString()).isEqualTo("TooManyRequests");
        assertThat(status.get("details").get("retryAfterSeconds").asInt()).isEqualTo(2);

        api.post("/kubeloop/faults/fail", "{\"code\":500,\"count\":1,\"verb\":\"create\"}");
        Reply internal = api.post(PODS, pod("x"));
        assertThat(internal.code()).isEqualTo(500);
        assertThat(internal.body().get("reason").asString()).isEqualTo("InternalError");
        assertThat(internal.body().get("message").asString()).startsWith("Internal error occurred: ");
        assertThat(api.get(PODS + "/x").code())
                .as("the failed create stored nothing")
                .isEqualTo(404);
        HttpResponse<String> fine = http.send(list, HttpResponse.BodyHandlers.ofString());
        assertThat(fine.statusCode()).isEqualTo(200);
        assertThat(fine.headers().firstValue("Retry-After")).isEmpty();
    }

    @Test
    void aFractionFailsTheSamePatternForTheSameSeedAndEndsWithItsDuration() {
        List<Integer> first = failurePattern(42);
        List<Integer> again = failurePattern(42);
        List<Integer> other = failurePattern(7);
        assertThat(first).contains(200, 500);
        assertThat(again).isEqualTo(first);
        assertThat(other).isNotEqualTo(first);
    }

    private List<Integer> failurePattern(long seed) {
        FakeClock clock = new FakeClock();
        EmbeddedApiServer server =
                start(EmbeddedApiServer.builder().clock(clock).faultSeed(seed).faultInjection(true));
        ApiClient api = new ApiClient(server.url());
        assertThat(api.post("/kubeloop/faults/fail", "{\"code\":500,\"fraction\":0.5,\"seconds\":30}")
                        .code())
                .isEqualTo(200);
        assertThat(api.get("/kubeloop/faults").body().get("seed").asLong()).isEqualTo(seed);
        List<Integer> codes = new ArrayList<>();
        for (int i = 0; i < 32; i++) {
            codes.add(api.get(PODS).code());
        }
        clock.step(Duration.ofSeconds(30));
        await().atMost(Duration.ofSeconds(10))
                .until(() -> api.get("/kubeloop/faults").body().get("faults").isEmpty());
        for (int i = 0; i < 10; i++) {
            assertThat(api.get(PODS).code()).as("after the duration").isEqualTo(200);
        }
        return codes;
    }

    @Test
    void latencyDelaysRequestsOnTheServersClockUntilCleared() throws Exception {
        FakeClock clock = new FakeClock();
        EmbeddedApiServer server =
                start(EmbeddedApiServer.builder().clock(clock).faultInjection(true));
        ApiClient api = new ApiClient(server.url());
        assertThat(api.post("/kubeloop/faults/latency", "{\"millis\":500,\"resource\":\"pods\"}")
                        .code())
                .isEqualTo(200);
        assertThat(api.get("/api/v1/namespaces/default/configmaps").code())
                .as("not in scope: no wait")
                .isEqualTo(200);

        CompletableFuture<Reply> delayed = later(() -> api.get(PODS));
        await().atMost(Duration.ofSeconds(10)).until(() -> clock.waiterCount() == 1);
        clock.step(Duration.ofMillis(499));
        assertThat(clock.waiterCount()).as("still waiting at 499 ms").isEqualTo(1);
        assertThat(delayed).isNotDone();
        clock.step(Duration.ofMillis(1));
        assertThat(delayed.get(10, java.util.concurrent.TimeUnit.SECONDS).code())
                .isEqualTo(200);

        CompletableFuture<Reply> cut = later(() -> api.get(PODS));
        await().atMost(Duration.ofSeconds(10)).until(() -> clock.waiterCount() == 1);
        assertThat(api.delete("/kubeloop/faults").body().get("cleared").asInt()).isEqualTo(1);
        assertThat(cut.get(10, java.util.concurrent.TimeUnit.SECONDS).code())
                .as("clear cuts a wait short")
                .isEqualTo(200);
        assertThat(api.get(PODS).code()).isEqualTo(200);
        assertThat(metrics(server))
                .contains(
                        "kubeloop_apiserver_fault_affected_requests_total{fault=\"latency\",resource=\"pods\",verb=\"list\"} 2.0");
    }

    @Test
    void aPartitionHidesEventsFromItsClientsThenDeliversThemAllInOrder() throws Exception {
        FakeClock clock = new FakeClock();
        EmbeddedApiServer server =
                start(EmbeddedApiServer.builder().clock(clock).faultInjection(true));
        ApiClient api = new ApiClient(server.url());
        String from = rv(api.create(PODS, pod("before")));
        try (Watch watch = api.watch(PODS + "?watch=true&resourceVersion=" + from, Map.of("User-Agent", INFORMER))) {
            Reply started =
                    api.post("/kubeloop/faults/partition", "{\"seconds\":30,\"userAgent\":\"informer-under-test\"}");
            assertThat(started.code()).as(started.raw()).isEqualTo(200);
            for (String name : List.of("p1", "p2", "p3")) {
                api.create(PODS, pod(name)); // another client: not cut off
            }
            CompletableFuture<Reply> held =
                    later(() -> api.request("GET", PODS, null, null, Map.of("User-Agent", INFORMER)));
            await().during(Duration.ofMillis(300))
                    .atMost(Duration.ofSeconds(5))
                    .until(() -> watch.available() == 0 && !held.isDone());
            assertThat(api.get("/kubeloop/faults")
                            .body()
                            .get("faults")
                            .get(0)
                            .get("fault")
                            .asString())
                    .isEqualTo("partition");

            clock.step(Duration.ofSeconds(30));
            for (String name : List.of("p1", "p2", "p3")) {
                JsonNode event = watch.next();
                assertThat(event.get("type").asString()).isEqualTo("ADDED");
                assertThat(event.get("object").get("metadata").get("name").asString())
                        .isEqualTo(name);
            }
            assertThat(held.get(10, java.util.concurrent.TimeUnit.SECONDS)
                            .body()
                            .get("items"))
                    .hasSize(4);
            api.create(PODS, pod("after"));
            assertThat(watch.next().get("object").get("metadata").get("name").asString())
                    .isEqualTo("after");
        }
        assertThat(api.get("/kubeloop/faults").body().get("faults")).isEmpty();
    }

    @Test
    void aPartitionOfEveryClientHoldsNewRequestsUntilClearedButNotTheAdminPath() throws Exception {
        FakeClock clock = new FakeClock();
        EmbeddedApiServer server =
                start(EmbeddedApiServer.builder().clock(clock).faultInjection(true));
        ApiClient api = new ApiClient(server.url());
        assertThat(api.post("/kubeloop/faults/partition", "{\"seconds\":3600}").code())
                .isEqualTo(200);
        CompletableFuture<Reply> version = later(() -> api.get("/version"));
        CompletableFuture<Reply> pods = later(() -> api.get(PODS));
        await().during(Duration.ofMillis(300))
                .atMost(Duration.ofSeconds(5))
                .until(() -> !version.isDone() && !pods.isDone());
        assertThat(api.get("/kubeloop/faults").code())
                .as("the admin path is exempt")
                .isEqualTo(200);
        assertThat(api.delete("/kubeloop/faults").body().get("cleared").asInt()).isEqualTo(1);
        assertThat(version.get(10, java.util.concurrent.TimeUnit.SECONDS).code())
                .isEqualTo(200);
        assertThat(pods.get(10, java.util.concurrent.TimeUnit.SECONDS).code()).isEqualTo(200);
        assertThat(metrics(server))
                .contains(
                        "kubeloop_apiserver_fault_affected_requests_total{fault=\"partition\",resource=\"\",verb=\"\"} 2.0");
    }

    @Test
    void aStallHoldsWatchEventsWhileWritesGoOnThenDeliversThemInOrder() throws Exception {
        FakeClock clock = new FakeClock();
        EmbeddedApiServer server =
                start(EmbeddedApiServer.builder().clock(clock).faultInjection(true));
        ApiClient api = new ApiClient(server.url());
        String from = rv(api.create(PODS, pod("before")));
        try (Watch pods = api.watch(PODS + "?watch=true&resourceVersion=" + from);
                Watch configmaps =
                        api.watch("/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=" + from)) {
            assertThat(api.post("/kubeloop/faults/stall", "{\"seconds\":10,\"resource\":\"pods\"}")
                            .code())
                    .isEqualTo(200);
            for (String name : List.of("s1", "s2", "s3")) {
                assertThat(api.post(PODS, pod(name)).code()).as("writes go on").isEqualTo(201);
            }
            assertThat(api.get(PODS).body().get("items")).as("reads go on").hasSize(4);
            api.create("/api/v1/namespaces/default/configmaps", "{\"metadata\":{\"name\":\"cm\"}}");
            assertThat(configmaps
                            .next()
                            .get("object")
                            .get("metadata")
                            .get("name")
                            .asString())
                    .as("other resources are not stalled")
                    .isEqualTo("cm");
            await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(5)).until(() -> pods.available() == 0);

            clock.step(Duration.ofSeconds(10));
            for (String name : List.of("s1", "s2", "s3")) {
                assertThat(pods.next().get("object").get("metadata").get("name").asString())
                        .isEqualTo(name);
            }
        }
    }

    @Test
    void closeWatchesEndsStreamsCleanlyPerResourceOrAll() throws Exception {
        EmbeddedApiServer server = start(EmbeddedApiServer.builder().faultInjection(true));
        ApiClient api = new ApiClient(server.url());
        try (Watch pods = api.watch(PODS + "?watch=true");
                Watch configmaps = api.watch(
                        "/api/v1/namespaces/default/configmaps?watch=true&fieldSelector=metadata.name%3Dstill")) {
            await().atMost(Duration.ofSeconds(10))
                    .until(
                            () -> metrics(server)
                                    .contains(
                                            "apiserver_longrunning_requests{group=\"\",resource=\"configmaps\",verb=\"WATCH\",version=\"v1\"} 1.0"));
            Reply closed = api.post("/kubeloop/faults/close-watches", "{\"resource\":\"pods\"}");
            assertThat(closed.body().get("closed").asInt()).isEqualTo(1);
            assertThat(pods.endsWithoutMoreEvents()).isTrue();

            api.create("/api/v1/namespaces/default/configmaps", "{\"metadata\":{\"name\":\"still\"}}");
            assertThat(configmaps.next().get("type").asString())
                    .as("configmaps still watched")
                    .isEqualTo("ADDED");
            assertThat(api.post("/kubeloop/faults/close-watches", "")
                            .body()
                            .get("closed")
                            .asInt())
                    .isEqualTo(1);
            assertThat(configmaps.endsWithoutMoreEvents()).isTrue();
        }
        assertThat(metrics(server))
                .contains(
                        "kubeloop_apiserver_faults_injected_total{fault=\"close-watches\",resource=\"pods\",verb=\"\"} 1.0");
    }

    @Test
    void compactMakesAResumeFromAnOlderResourceVersionExpire() throws Exception {
        EmbeddedApiServer server = start(EmbeddedApiServer.builder().faultInjection(true));
        ApiClient api = new ApiClient(server.url());
        String old = rv(api.create(PODS, pod("a")));
        api.create(PODS, pod("b"));
        Reply compacted = api.post("/kubeloop/faults/compact", "");
        assertThat(compacted.code()).as(compacted.raw()).isEqualTo(200);
        assertThat(compacted.body().get("compactedRevision").asLong()).isGreaterThan(Long.parseLong(old));
        try (Watch watch = api.watch(PODS + "?watch=true&resourceVersion=" + old)) {
            JsonNode error = watch.next();
            assertThat(error.get("type").asString()).isEqualTo("ERROR");
            assertThat(error.get("object").get("code").asInt()).isEqualTo(410);
        }
        assertThat(api.get(PODS + "?resourceVersion=" + old + "&resourceVersionMatch=Exact")
                        .code())
                .isEqualTo(410);
    }

    @Test
    void badBodiesGet400NamingTheField() {
        EmbeddedApiServer server = start(EmbeddedApiServer.builder().faultInjection(true));
        ApiClient api = new ApiClient(server.url());
        assertBad(api, "fail", "{}", "code is required: 429, 500 or 503");
        assertBad(api, "fail", "{\"code\":404}", "code must be 429, 500 or 503, was 404");
        assertBad(api, "fail", "{\"code\":503,\"verb\":\"frob\"}", "verb must be one of get, list, watch");
        assertBad(api, "fail", "{\"code\":503,\"fraction\":1.5}", "fraction must be between 0 and 1, was 1.5");
        assertBad(api, "fail", "{\"code\":503,\"count\":0}", "count must be at least 1, was 0");
        assertBad(api, "fail", "{\"code\":503,\"cuont\":1}", "unknown field \"cuont\"");
        assertBad(api, "fail", "{\"code\":\"503\"}", "code must be an integer, was \"503\"");
        assertBad(api, "fail", "[1]", "the body must be a JSON object");
        assertBad(api, "fail", "{\"code\":", "the body is not valid JSON");
        assertBad(api, "latency", "{\"millis\":-1}", "millis must not be negative, was -1");
        assertBad(api, "latency", "{\"millis\":5,\"jitterMillis\":\"x\"}", "jitterMillis must be an integer");
        assertBad(api, "partition", "{}", "seconds is required");
        assertBad(api, "partition", "{\"seconds\":0}", "seconds must be a positive number");
        assertBad(api, "stall", "{\"seconds\":5,\"resource\":\"\"}", "resource must be a resource name");
        assertBad(api, "compact", "{\"resource\":\"pods\"}", "unknown field \"resource\": this fault takes no fields");
        assertThat(api.get("/kubeloop/faults").body().get("faults"))
                .as("nothing started")
                .isEmpty();
        assertThat(api.post("/kubeloop/faults/unplug", "{}").code()).isEqualTo(404);
        assertThat(api.get("/kubeloop/faults/fail").code()).isEqualTo(405);
    }

    private static void assertBad(ApiClient api, String fault, String body, String message) {
        Reply r = api.post("/kubeloop/faults/" + fault, body);
        assertThat(r.code()).as("%s %s: %s", fault, body, r.raw()).isEqualTo(400);
        assertThat(r.body().get("reason").asString()).isEqualTo("BadRequest");
        assertThat(r.body().get("message").asString()).startsWith(message);
    }
}
