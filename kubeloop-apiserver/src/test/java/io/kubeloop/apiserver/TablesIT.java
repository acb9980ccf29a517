package io.kubeloop.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubeloop.apiserver.ApiClient.Reply;
import io.kubeloop.apiserver.ApiClient.Watch;
import io.kubeloop.clock.FakeClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** Server-side tables over real HTTP, with kubectl's Accept header and a fake clock for the ages. */
class TablesIT extends EmbeddedServerTest {

    /** What {@code kubectl get} sends. */
    static final String TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io,"
            + "application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";

    private final FakeClock clock = new FakeClock();

    @Override
    EmbeddedApiServer.Builder configure(EmbeddedApiServer.Builder builder) {
        return builder.clock(clock);
    }

    private JsonNode runningPod(String ns, String name) {
        return api.createWithStatus("/api/v1/namespaces/" + ns + "/pods", """
                {"metadata":{"name":"%s","labels":{"app":"web"}},
                 "spec":{"nodeName":"node-1","containers":[{"name":"app","image":"nginx"}]},
                 "status":{"phase":"Running","podIP":"10.0.0.7","containerStatuses":[
                   {"name":"app","ready":true,"restartCount":0,"state":{"running":{}}}]}}
                """.formatted(name));
    }

    @Test
    void listOfPodsAsATable() {
        runningPod("default", "web-1");
        clock.step(Duration.ofSeconds(192));
        Reply reply = api.get("/api/v1/namespaces/default/pods?limit=500", TABLE);
        assertThat(reply.code()).isEqualTo(200);
        JsonNode table = reply.body();
        assertThat(table.get("kind").asString()).isEqualTo("Table");
        assertThat(table.get("apiVersion").asString()).isEqualTo("meta.k8s.io/v1");
        assertThat(table.get("metadata").get("resourceVersion").asString()).isNotEmpty();
        assertThat(table.get("columnDefinitions"))
                .extracting(c -> c.get("name").asString())
                .containsExactly(
                        "Name",
                        "Ready",
                        "Status",
                        "Restarts",
                        "Age",
                        "IP",
                        "Node",
                        "Nominated Node",
                        "Readiness Gates");
        assertThat(table.get("columnDefinitions"))
                .extracting(c -> c.get("priority").asInt())
                .containsExactly(0, 0, 0, 0, 0, 1, 1, 1, 1);
        JsonNode row = table.get("rows").get(0);
        assertThat(row.get("cells").toString())
                .isEqualTo(
                        "[\"web-1\",\"1/1\",\"Running\",\"0\",\"3m12s\",\"10.0.0.7\",\"node-1\",\"<none>\",\"<none>\"]");
        JsonNode object = row.get("object");
        assertThat(object.get("kind").asString()).isEqualTo("PartialObjectMetadata");
        assertThat(object.get("apiVersion").asString()).isEqualTo("meta.k8s.io/v1");
        assertThat(object.get("metadata").get("namespace").asString()).isEqualTo("default");
        assertThat(object.get("metadata").get("labels").get("app").asString()).isEqualTo("web");
        assertThat(object.has("spec")).isFalse();
    }

    @Test
    void plainJsonUnlessATableComesFirst() {
        runningPod("default", "web-1");
        assertThat(api.get("/api/v1/namespaces/default/pods").body().get("kind").asString())
                .isEqualTo("PodList");
        assertThat(api.get("/api/v1/namespaces/default/pods", "application/json")
                        .body()
                        .get("kind")
                        .asString())
                .isEqualTo("PodList");
        assertThat(api.get(
                                "/api/v1/namespaces/default/pods",
                                "application/json,application/json;as=Table;v=v1;g=meta.k8s.io")
                        .body()
                        .get("kind")
                        .asString())
                .isEqualTo("PodList");
        assertThat(api.get("/api/v1/namespaces/default/pods/web-1", "application/json, */*")
                        .body()
                        .get("kind")
                        .asString())
                .isEqualTo("Pod");
        JsonNode beta = api.get("/api/v1/namespaces/default/pods", "application/json;as=Table;v=v1beta1;g=meta.k8s.io")
                .body();
        assertThat(beta.get("apiVersion").asString()).isEqualTo("meta.k8s.io/v1beta1");
        assertThat(beta.get("rows").get(0).get("object").get("apiVersion").asString())
                .isEqualTo("meta.k8s.io/v1beta1");
        JsonNode unknownVersionSkipped = api.get(
                        "/api/v1/namespaces/default/pods",
                        "application/json;as=Table;v=v2;g=meta.k8s.io,application/json")
                .body();
        assertThat(unknownVersionSkipped.get("kind").asString()).isEqualTo("PodList");
    }

    @Test
    void getOfOneObjectIsAOneRowTable() {
        JsonNode pod = runningPod("default", "web-1");
        Reply reply = api.get("/api/v1/namespaces/default/pods/web-1", TABLE);
        assertThat(reply.code()).isEqualTo(200);
        assertThat(reply.body().get("kind").asString()).isEqualTo("Table");
        assertThat(reply.body().get("metadata").get("resourceVersion").asString())
                .isEqualTo(pod.get("metadata").get("resourceVersion").asString());
        assertThat(reply.body().get("rows")).hasSize(1);
        assertThat(reply.body().get("rows").get(0).get("cells").get(0).asString())
                .isEqualTo("web-1");

        api.create("/apis/apps/v1/namespaces/default/deployments", """
                {"metadata":{"name":"web"},"spec":{"replicas":3,"selector":{"matchLabels":{"app":"web"}},
                 "template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[
                   {"name":"nginx","image":"nginx:1.25"}]}}}}
                """);
        JsonNode deploy = api.get("/apis/apps/v1/namespaces/default/deployments/web", TABLE)
                .body();
        assertThat(deploy.get("rows").get(0).get("cells").toString())
                .isEqualTo("[\"web\",\"0/3\",0,0,\"0s\",\"nginx\",\"nginx:1.25\",\"app=web\"]");
        JsonNode scale = api.get("/apis/apps/v1/namespaces/default/deployments/web/scale", TABLE)
                .body();
        assertThat(scale.get("columnDefinitions"))
                .extracting(c -> c.get("name").asString())
                .containsExactly("Name", "Desired", "Available", "Age");
        assertThat(scale.get("rows").get(0).get("cells").toString()).isEqualTo("[\"web\",3,0,\"0s\"]");

        assertThat(api.get("/api/v1/namespaces/default/pods/nope", TABLE).code())
                .isEqualTo(404);
    }

    @Test
    void includeObjectVariants() {
        runningPod("default", "web-1");
        String pods = "/api/v1/namespaces/default/pods";
        assertThat(api.get(pods + "?includeObject=None", TABLE)
                        .body()
                        .get("rows")
                        .get(0)
                        .get("object")
                        .isNull())
                .isTrue();
        JsonNode whole = api.get(pods + "?includeObject=Object", TABLE)
                .body()
                .get("rows")
                .get(0)
                .get("object");
        assertThat(whole.get("kind").asString()).isEqualTo("Pod");
        assertThat(whole.get("apiVersion").asString()).isEqualTo("v1");
        assertThat(whole.get("status").get("phase").asString()).isEqualTo("Running");
        JsonNode metadata = api.get(pods + "?includeObject=Metadata", TABLE)
                .body()
                .get("rows")
                .get(0)
                .get("object");
        assertThat(metadata.get("kind").asString()).isEqualTo("PartialObjectMetadata");

        Reply bad = api.get(pods + "?includeObject=All", TABLE);
        assertThat(bad.code()).isEqualTo(400);
        assertThat(bad.body().get("reason").asString()).isEqualTo("BadRequest");
        assertThat(bad.body().get("message").asString())
                .isEqualTo("Unable to convert to Table as requested: "
                        + "includeObject: Invalid value: \"All\": must be 'Metadata', 'Object', 'None', or empty");
        assertThat(api.get(pods + "?includeObject=All").code())
                .as("ignored without a Table Accept")
                .isEqualTo(200);
    }

    @Test
    void pagedAndAllNamespacesTables() {
        runningPod("default", "a");
        runningPod("kube-system", "b");
        runningPod("default", "c");
        JsonNode first = api.get("/api/v1/pods?limit=2", TABLE).body();
        assertThat(first.get("rows")).hasSize(2);
        assertThat(first.get("metadata").get("remainingItemCount").asLong()).isEqualTo(1);
        String next = first.get("metadata").get("continue").asString();
        JsonNode second =
                api.get("/api/v1/pods?limit=2&continue=" + next, TABLE).body();
        assertThat(second.get("rows")).hasSize(1);
        assertThat(second.get("metadata").has("continue")).isFalse();
        assertThat(first.get("rows"))
                .extracting(
                        r -> r.get("object").get("metadata").get("namespace").asString() + "/"
                                + r.get("cells").get(0).asString())
                .containsExactly("default/a", "default/c");
        assertThat(second.get("rows")
                        .get(0)
                        .get("object")
                        .get("metadata")
                        .get("namespace")
                        .asString())
                .isEqualTo("kube-system");
    }

    @Test
    void otherKindsGetTheirPrinterOrTheDefaultTable() {
        JsonNode namespaces = api.get("/api/v1/namespaces", TABLE).body();
        assertThat(namespaces.get("columnDefinitions"))
                .extracting(c -> c.get("name").asString())
                .containsExactly("Name", "Status", "Age");
        assertThat(namespaces.get("rows"))
                .extracting(r -> r.get("cells").get(1).asString())
                .containsOnly("Active");
        JsonNode empty =
                api.get("/apis/apps/v1/namespaces/default/deployments", TABLE).body();
        assertThat(empty.get("rows")).isEmpty();
        assertThat(empty.get("columnDefinitions")).hasSize(8);
    }

    @Test
    void watchSendsOneRowTablesWithColumnDefinitionsOnlyFirst() throws Exception {
        JsonNode a = runningPod("default", "a");
        String rv = a.get("metadata").get("resourceVersion").asString();
        try (Watch w = api.watch("/api/v1/namespaces/default/pods?watch=true&resourceVersion=" + rv, TABLE)) {
            assertThat(w.code).isEqualTo(200);
            assertThat(w.contentType).isEqualTo("application/json");
            runningPod("default", "b");
            JsonNode added = w.next();
            assertThat(added.get("type").asString()).isEqualTo("ADDED");
            JsonNode first = added.get("object");
            assertThat(first.get("kind").asString()).isEqualTo("Table");
            assertThat(first.get("columnDefinitions")).hasSize(9);
            assertThat(first.get("rows")).hasSize(1);
            assertThat(first.get("rows").get(0).get("cells").get(0).asString()).isEqualTo("b");
            assertThat(first.get("metadata").get("resourceVersion").asString()).isNotEqualTo(rv);
            assertThat(w.next().get("type").asString())
                    .as("b's running status, written through /status")
                    .isEqualTo("MODIFIED");

            api.delete("/api/v1/namespaces/default/pods/a?gracePeriodSeconds=0"); // bound: no grace period
            JsonNode deleted = w.next();
            assertThat(deleted.get("type").asString()).isEqualTo("DELETED");
            JsonNode later = deleted.get("object");
            assertThat(later.get("kind").asString()).isEqualTo("Table");
            assertThat(later.has("columnDefinitions")).isTrue();
            assertThat(later.get("columnDefinitions").isNull())
                    .as("no headers after the first event")
                    .isTrue();
            assertThat(later.get("rows").get(0).get("cells").get(0).asString()).isEqualTo("a");
            assertThat(later.get("rows").get(0).get("object").get("kind").asString())
                    .isEqualTo("PartialObjectMetadata");
        }
    }

    @Test
    void watchErrorsStayStatusObjects() throws Exception {
        JsonNode a = runningPod("default", "a");
        runningPod("default", "b");
        server.compact();
        String rv = a.get("metadata").get("resourceVersion").asString();
        try (Watch w = api.watch("/api/v1/namespaces/default/pods?watch=1&resourceVersion=" + rv, TABLE)) {
            JsonNode error = w.next();
            assertThat(error.get("type").asString()).isEqualTo("ERROR");
            assertThat(error.get("object").get("kind").asString()).isEqualTo("Status");
            assertThat(error.get("object").get("code").asInt()).isEqualTo(410);
        }
        Reply bad = api.get("/api/v1/namespaces/default/pods?watch=1&includeObject=x", TABLE);
        assertThat(bad.code())
                .as("a bad includeObject fails before the stream starts")
                .isEqualTo(400);
    }

    @Test
    void bookmarksOfATableWatchAreTablesToo() throws Exception {
        runningPod("default", "a");
        try (Watch w = api.watch(
                "/api/v1/namespaces/default/pods?watch=1&sendInitialEvents=true"
                        + "&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true",
                TABLE)) {
            JsonNode added = w.next();
            assertThat(added.get("object").get("columnDefinitions")).hasSize(9);
            JsonNode bookmark = w.next();
            assertThat(bookmark.get("type").asString()).isEqualTo("BOOKMARK");
            assertThat(bookmark.get("object").get("kind").asString()).isEqualTo("Table");
            assertThat(bookmark.get("object")
                            .get("metadata")
                            .get("resourceVersion")
                            .asString())
                    .isNotEmpty();
            assertThat(bookmark.get("object")
                            .get("rows")
                            .get(0)
                            .get("object")
                            .get("metadata")
                            .get("annotations")
                            .get("k8s.io/initial-events-end")
                            .asString())
                    .isEqualTo("true");
        }
    }
}
