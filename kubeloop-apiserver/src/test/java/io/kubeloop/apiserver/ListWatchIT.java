package io.kubeloop.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubeloop.apiserver.ApiClient.Reply;
import io.kubeloop.apiserver.ApiClient.Watch;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** Lists and watches over real HTTP: selectors, paging, resourceVersion rules, 410s and watch streams. */
class ListWatchIT extends EmbeddedServerTest {

    private JsonNode pod(String ns, String name, String app, String node) {
        return api.create(
                "/api/v1/namespaces/" + ns + "/pods",
                "{\"metadata\":{\"name\":\"" + name
                        + "\",\"labels\":{\"app\":\"" + app + "\"}},\"spec\":{\"nodeName\":\"" + node
                        + "\",\"containers\":[{\"name\":\"c\",\"image\":\"nginx\"}]}}");
    }

    private static String rv(JsonNode object) {
        return object.get("metadata").get("resourceVersion").asString();
    }

    @Test
    void listsFilterByLabelAndFieldSelectorsAcrossNamespaces() {
        pod("default", "a", "web", "n1");
        pod("default", "b", "db", "n2");
        pod("kube-system", "c", "web", "n2");
        Reply all = api.get("/api/v1/pods");
        assertThat(all.body().get("kind").asString()).isEqualTo("PodList");
        assertThat(all.body().get("items")).hasSize(3);
        assertThat(all.body().get("items").get(0).has("kind"))
                .as("built-in items omit kind")
                .isFalse();

        Reply web = api.get("/api/v1/pods?labelSelector=app%20in%20(web)");
        assertThat(web.body().get("items"))
                .extracting(i -> i.get("metadata").get("name").asString())
                .containsExactly("a", "c");
        Reply onN2 = api.get("/api/v1/namespaces/default/pods?fieldSelector=spec.nodeName%3Dn2");
        assertThat(onN2.body().get("items"))
                .extracting(i -> i.get("metadata").get("name").asString())
                .containsExactly("b");
        Reply notWeb = api.get("/api/v1/pods?labelSelector=app!%3Dweb,!missing");
        assertThat(notWeb.body().get("items")).hasSize(1);

        Reply badLabel = api.get("/api/v1/pods?labelSelector=app%20in%20web");
        assertThat(badLabel.code()).isEqualTo(400);
        assertThat(badLabel.body().get("message").asString()).startsWith("unable to parse requirement");
        Reply badField = api.get("/api/v1/pods?fieldSelector=spec.foo%3Dbar");
        assertThat(badField.code()).isEqualTo(400);
        assertThat(badField.body().get("message").asString()).isEqualTo("field label not supported: spec.foo");
    }

    @Test
    void pagingKeepsTheFirstPagesSnapshot() {
        for (String name : new String[] {"a", "b", "c", "d", "e"}) {
            pod("default", name, "web", "n1");
        }
        Reply first = api.get("/api/v1/namespaces/default/pods?limit=2");
        JsonNode meta = first.body().get("metadata");
        assertThat(first.body().get("items")).hasSize(2);
        assertThat(meta.get("remainingItemCount").asLong()).isEqualTo(3);
        String listRv = meta.get("resourceVersion").asString();

        api.delete("/api/v1/namespaces/default/pods/d"); // writes between pages do not show
        pod("default", "f", "web", "n1");

        Reply second = api.get("/api/v1/namespaces/default/pods?limit=2&continue="
                + meta.get("continue").asString());
        assertThat(second.body().get("metadata").get("resourceVersion").asString())
                .isEqualTo(listRv);
        assertThat(second.body().get("items"))
                .extracting(i -> i.get("metadata").get("name").asString())
                .containsExactly("c", "d");
        Reply third = api.get("/api/v1/namespaces/default/pods?limit=2&continue="
                + second.body().get("metadata").get("continue").asString());
        assertThat(third.body().get("items"))
                .extracting(i -> i.get("metadata").get("name").asString())
                .containsExactly("e");
        assertThat(third.body().get("metadata").has("continue")).isFalse();

        assertThat(api.get("/api/v1/namespaces/default/pods?limit=2&continue=garbage")
                        .code())
                .isEqualTo(400);

        server.compact();
        Reply expired = api.get("/api/v1/namespaces/default/pods?limit=2&continue="
                + meta.get("continue").asString());
        assertThat(expired.code())
                .as("a continue token older than the compacted revision")
                .isEqualTo(410);
        assertThat(expired.body().get("reason").asString()).isEqualTo("Expired");
        assertThat(expired.body().get("message").asString())
                .startsWith("The provided continue parameter is too old to display a consistent list result.");
    }

    @Test
    void resourceVersionRulesAndExpiry() {
        JsonNode a = pod("default", "a", "web", "n1");
        pod("default", "b", "web", "n1");
        Reply exact = api.get("/api/v1/namespaces/default/pods?limit=10&resourceVersion=" + rv(a));
        assertThat(exact.body().get("items"))
                .as("an exact list at a's revision")
                .hasSize(1);

        Reply forbidden = api.get("/api/v1/namespaces/default/pods?resourceVersionMatch=NotOlderThan");
        assertThat(forbidden.code()).isEqualTo(422);
        assertThat(forbidden.body().get("message").asString())
                .isEqualTo(
                        "ListOptions.meta.k8s.io \"\" is invalid: "
                                + "resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided");

        server.compact();
        Reply expired = api.get("/api/v1/namespaces/default/pods?limit=10&resourceVersion=" + rv(a));
        assertThat(expired.code()).isEqualTo(410);
        assertThat(expired.body().get("reason").asString()).isEqualTo("Expired");
        assertThat(expired.body().get("message").asString())
                .isEqualTo("The resourceVersion for the provided list is too old.");

        Reply future = api.get("/api/v1/namespaces/default/pods?resourceVersion=999999");
        assertThat(future.code()).isEqualTo(504);
    }

    @Test
    void watchWithoutResourceVersionStartsWithSyntheticAddsThenFollowsChanges() throws Exception {
        pod("default", "a", "web", "n1");
        try (Watch w = api.watch("/api/v1/namespaces/default/pods?watch=true")) {
            assertThat(w.code).isEqualTo(200);
            assertThat(w.contentType).isEqualTo("application/json");
            JsonNode added = w.next();
            assertThat(added.get("type").asString()).isEqualTo("ADDED");
            assertThat(added.get("object").get("kind").asString())
                    .as("kind on every event object")
                    .isEqualTo("Pod");
            assertThat(added.get("object").get("apiVersion").asString()).isEqualTo("v1");

            JsonNode b = pod("default", "b", "web", "n1");
            assertThat(w.next().get("type").asString()).isEqualTo("ADDED");
            JsonNode changed = b.deepCopy();
            ((tools.jackson.databind.node.ObjectNode) changed.get("metadata"))
                    .putObject("annotations")
                    .put("x", "y");
            api.put("/api/v1/namespaces/default/pods/b", changed.toString());
            JsonNode modified = w.next();
            assertThat(modified.get("type").asString()).isEqualTo("MODIFIED");
            assertThat(modified.get("object")
                            .get("metadata")
                            .get("annotations")
                            .get("x")
                            .asString())
                    .isEqualTo("y");
            api.delete("/api/v1/namespaces/default/pods/b?gracePeriodSeconds=0"); // bound: no grace period
            JsonNode deleted = w.next();
            assertThat(deleted.get("type").asString()).isEqualTo("DELETED");
            assertThat(deleted.get("object").get("metadata").get("name").asString())
                    .isEqualTo("b");
        }
    }

    @Test
    void watchFromAResourceVersionSendsOnlyLaterEventsAndLegacyPathsWork() throws Exception {
        JsonNode a = pod("default", "a", "web", "n1");
        pod("default", "b", "web", "n1");
        try (Watch w = api.watch("/api/v1/watch/namespaces/default/pods?resourceVersion=" + rv(a))) {
            JsonNode e = w.next();
            assertThat(e.get("type").asString()).isEqualTo("ADDED");
            assertThat(e.get("object").get("metadata").get("name").asString()).isEqualTo("b");
        }
    }

    @Test
    void aTooOldResourceVersionGivesAnErrorEventWith410() throws Exception {
        JsonNode a = pod("default", "a", "web", "n1");
        pod("default", "b", "web", "n1");
        server.compact();
        try (Watch w = api.watch("/api/v1/namespaces/default/pods?watch=1&resourceVersion=" + rv(a))) {
            assertThat(w.code).isEqualTo(200);
            JsonNode error = w.next();
            assertThat(error.get("type").asString()).isEqualTo("ERROR");
            assertThat(error.get("object").get("kind").asString()).isEqualTo("Status");
            assertThat(error.get("object").get("code").asInt()).isEqualTo(410);
            assertThat(error.get("object").get("reason").asString()).isEqualTo("Expired");
            assertThat(error.get("object").get("message").asString()).startsWith("too old resource version: " + rv(a));
            assertThat(w.endsWithoutMoreEvents()).isTrue();
        }
    }

    @Test
    void selectorWatchesSeeObjectsEnterAndLeave() throws Exception {
        JsonNode a = pod("default", "a", "web", "n1");
        try (Watch w = api.watch(
                "/api/v1/namespaces/default/pods?watch=true&labelSelector=app%3Dweb&resourceVersion=" + rv(a))) {
            JsonNode moved = a.deepCopy();
            ((tools.jackson.databind.node.ObjectNode) moved.get("metadata").get("labels")).put("app", "db");
            api.put("/api/v1/namespaces/default/pods/a", moved.toString());
            JsonNode left = w.next();
            assertThat(left.get("type").asString()).as("stopped matching").isEqualTo("DELETED");

            JsonNode back = api.get("/api/v1/namespaces/default/pods/a").body().deepCopy();
            ((tools.jackson.databind.node.ObjectNode) back.get("metadata").get("labels")).put("app", "web");
            api.put("/api/v1/namespaces/default/pods/a", back.toString());
            assertThat(w.next().get("type").asString()).as("started matching").isEqualTo("ADDED");
        }
    }

    @Test
    void watchOfOneObjectAndTimeoutSeconds() throws Exception {
        pod("default", "a", "web", "n1");
        pod("default", "b", "web", "n1");
        try (Watch w = api.watch(
                "/api/v1/namespaces/default/pods?watch=true&fieldSelector=metadata.name%3Db" + "&timeoutSeconds=1")) {
            JsonNode e = w.next();
            assertThat(e.get("object").get("metadata").get("name").asString()).isEqualTo("b");
            assertThat(w.endsWithoutMoreEvents())
                    .as("the stream ends after timeoutSeconds")
                    .isTrue();
        }
        try (Watch w = api.watch("/api/v1/watch/namespaces/default/pods/a?timeoutSeconds=1")) {
            assertThat(w.next().get("object").get("metadata").get("name").asString())
                    .isEqualTo("a");
            assertThat(w.endsWithoutMoreEvents()).isTrue();
        }
    }

    @Test
    void periodicBookmarksCarryTheLatestRevision() throws Exception {
        server.close();
        server = EmbeddedApiServer.builder()
                .bookmarkInterval(Duration.ofMillis(200))
                .start();
        api = new ApiClient(server.url());
        JsonNode a = pod("default", "a", "web", "n1");
        try (Watch w = api.watch(
                "/api/v1/namespaces/default/pods?watch=true&allowWatchBookmarks=true&resourceVersion=" + rv(a))) {
            JsonNode start = w.next();
            assertThat(start.get("type").asString())
                    .as("a watch from N that allows bookmarks starts with one at N")
                    .isEqualTo("BOOKMARK");
            assertThat(start.get("object")
                            .get("metadata")
                            .get("resourceVersion")
                            .asString())
                    .isEqualTo(rv(a));
            JsonNode b = pod("default", "b", "web", "n1");
            assertThat(w.next().get("type").asString()).isEqualTo("ADDED");
            JsonNode bookmark = w.next();
            assertThat(bookmark.get("type").asString()).isEqualTo("BOOKMARK");
            assertThat(bookmark.get("object")
                            .get("metadata")
                            .get("resourceVersion")
                            .asString())
                    .isEqualTo(rv(b));
        }
    }

    @Test
    void streamingListEndsItsInitialEventsWithAnAnnotatedBookmark() throws Exception {
        pod("default", "a", "web", "n1");
        try (Watch w = api.watch("/api/v1/namespaces/default/pods?watch=1&sendInitialEvents=true"
                + "&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan&resourceVersion=")) {
            assertThat(w.next().get("type").asString()).isEqualTo("ADDED");
            JsonNode bookmark = w.next();
            assertThat(bookmark.get("type").asString()).isEqualTo("BOOKMARK");
            assertThat(bookmark.get("object").get("kind").asString()).isEqualTo("Pod");
            assertThat(bookmark.get("object")
                            .get("metadata")
                            .get("annotations")
                            .get("k8s.io/initial-events-end")
                            .asString())
                    .isEqualTo("true");
        }
        Reply invalid = api.get("/api/v1/namespaces/default/pods?watch=1&sendInitialEvents=true");
        assertThat(invalid.code()).isEqualTo(422);
    }
}
