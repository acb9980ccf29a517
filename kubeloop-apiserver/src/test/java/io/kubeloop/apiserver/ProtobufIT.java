package io.kubeloop.apiserver;

import static io.kubeloop.apiserver.ProtobufClient.PROTOBUF;
import static io.kubeloop.apiserver.ProtobufClient.encode;
import static org.assertj.core.api.Assertions.assertThat;

import io.kubeloop.apiserver.internal.protobuf.Envelope;
import io.kubeloop.apiserver.internal.protobuf.ProtoWriter;
import io.kubeloop.apiserver.internal.protobuf.WireReader;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Protobuf over HTTP, as Go typed clients and kubectl's imperative commands use it: protobuf request bodies on every
 * write, protobuf answers for clients that accept nothing else, and the Status every refusal gets.
 */
class ProtobufIT extends EmbeddedServerTest {

    private static final String DEPLOYMENTS = "/apis/apps/v1/namespaces/default/deployments";
    private static final String CONFIGMAPS = "/api/v1/namespaces/default/configmaps";
    private static final String DEPLOYMENT = """
            {"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","labels":{"app":"web"}},
             "spec":{"replicas":0,"selector":{"matchLabels":{"app":"web"}},"strategy":{},
              "template":{"metadata":{"labels":{"app":"web"}},
               "spec":{"containers":[{"name":"nginx","image":"nginx","resources":{},
                "ports":[{"containerPort":8080,"protocol":"TCP"}]}]}}},
             "status":{}}""";

    private ProtobufClient protobuf;

    @BeforeEach
    void client() {
        protobuf = new ProtobufClient(server.url());
    }

    private static ObjectNode json(String text) {
        return (ObjectNode) ApiClient.JSON.readTree(text);
    }

    @Test
    void createUpdateStatusAndScaleBodiesAreStoredAsTheirJson() {
        ProtobufClient.Reply created = protobuf.send("POST", DEPLOYMENTS, encode(DEPLOYMENT));
        assertThat(created.code()).as("%s", created.body()).isEqualTo(201);
        assertThat(created.isProtobuf())
                .as("a typed client accepts JSON, so it gets JSON")
                .isFalse();
        JsonNode stored = api.get(DEPLOYMENTS + "/web").body();
        assertThat(KubectlImperativeIT.defaultedOnly(
                        stored.get("spec"), json(DEPLOYMENT).get("spec"), "spec"))
                .as("replicas 0 kept, empty structs kept (the empty strategy defaulted)")
                .isEmpty();
        assertThat(stored.at("/spec/replicas").asInt()).isZero();
        assertThat(stored.at("/spec/template/spec/containers/0/resources")).isEqualTo(json("{}"));
        assertThat(stored.at("/metadata/labels")).isEqualTo(json(DEPLOYMENT).at("/metadata/labels"));

        ObjectNode update = (ObjectNode) stored.deepCopy();
        ((ObjectNode) update.get("spec")).put("replicas", 2);
        ProtobufClient.Reply updated = protobuf.send("PUT", DEPLOYMENTS + "/web", encode(update.toString()));
        assertThat(updated.code()).as("%s", updated.body()).isEqualTo(200);
        assertThat(api.get(DEPLOYMENTS + "/web").body().at("/spec/replicas").asInt())
                .isEqualTo(2);

        ObjectNode status = (ObjectNode) api.get(DEPLOYMENTS + "/web").body().deepCopy();
        status.putObject("status").put("replicas", 2).put("readyReplicas", 1);
        ProtobufClient.Reply statusPut = protobuf.send("PUT", DEPLOYMENTS + "/web/status", encode(status.toString()));
        assertThat(statusPut.code()).as("%s", statusPut.body()).isEqualTo(200);
        assertThat(api.get(DEPLOYMENTS + "/web")
                        .body()
                        .at("/status/readyReplicas")
                        .asInt())
                .isEqualTo(1);

        ProtobufClient.Reply scaled = protobuf.send("PUT", DEPLOYMENTS + "/web/scale", encode("""
                {"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"web","namespace":"default"},
                 "spec":{"replicas":7}}"""));
        assertThat(scaled.code()).as("%s", scaled.body()).isEqualTo(200);
        assertThat(scaled.body().at("/spec/replicas").asInt()).isEqualTo(7);
        assertThat(api.get(DEPLOYMENTS + "/web").body().at("/spec/replicas").asInt())
                .isEqualTo(7);

        // client-go encodes DeleteOptions in the version of the client that sends them: apps/v1 here
        ProtobufClient.Reply dryRunDelete = protobuf.send(
                "DELETE",
                DEPLOYMENTS + "/web",
                encode("{\"apiVersion\":\"apps/v1\",\"kind\":\"DeleteOptions\",\"dryRun\":[\"All\"]}"));
        assertThat(dryRunDelete.code()).as("%s", dryRunDelete.body()).isEqualTo(200);
        assertThat(api.get(DEPLOYMENTS + "/web").code())
                .as("a dry run deletes nothing")
                .isEqualTo(200);
    }

    /**
     * A field this server's schemas do not know (Kubernetes added it later) cannot be stored: it is dropped, and the
     * answer says so in a Warning header, which kubectl prints.
     */
    @Test
    void fieldsTheSchemasDoNotKnowAreDroppedWithAWarning() {
        byte[] body = encode("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"newer\"},"
                + "\"data\":{\"k\":\"v\"}}");
        byte[] withUnknown = withUnknownFields(body);
        ProtobufClient.Reply created = protobuf.send("POST", CONFIGMAPS, withUnknown);
        assertThat(created.code()).as("%s", created.body()).isEqualTo(201);
        assertThat(created.warnings()).hasSize(2).allSatisfy(w -> assertThat(w).startsWith("299 - \"unknown field"));
        assertThat(created.warnings().get(0)).contains("\\\"metadata.<field 77>\\\"");
        assertThat(created.warnings().get(1)).contains("\\\"<field 99>\\\"").contains("dropped");
        assertThat(api.get(CONFIGMAPS + "/newer").body().at("/data/k").asString())
                .isEqualTo("v");

        ProtobufClient.Reply known = protobuf.send(
                "POST",
                CONFIGMAPS,
                encode("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"plain\"}}"));
        assertThat(known.code()).isEqualTo(201);
        assertThat(known.warnings()).isEmpty();
    }

    /**
     * {@code body} with unknown fields added: 77 inside the object's metadata (field 1) and 99 at the object's top
     * level. (A ConfigMap's fields are all length-delimited: metadata = 1, data = 2.)
     */
    private static byte[] withUnknownFields(byte[] body) {
        Envelope envelope = Envelope.decode(body);
        WireReader object = new WireReader(envelope.raw());
        ProtoWriter rewritten = new ProtoWriter();
        while (object.next()) {
            int field = object.fieldNumber();
            byte[] value = object.readBytes();
            if (field == 1) {
                byte[] extra = new ProtoWriter().string(77, "x").toByteArray();
                byte[] metadata = java.util.Arrays.copyOf(value, value.length + extra.length);
                System.arraycopy(extra, 0, metadata, value.length, extra.length);
                value = metadata;
            }
            rewritten.bytes(field, value);
        }
        rewritten.varint(99, 1);
        return ProtoWriter.kubernetesBody(envelope.apiVersion(), envelope.kind(), rewritten.toByteArray());
    }

    @Test
    void deleteOptionsInProtobufAreObeyed() {
        JsonNode cm = api.create(CONFIGMAPS, "{\"metadata\":{\"name\":\"a\"},\"data\":{\"k\":\"v\"}}");
        api.create(CONFIGMAPS, "{\"metadata\":{\"name\":\"b\"}}");

        ProtobufClient.Reply dryRun = protobuf.send(
                "DELETE",
                CONFIGMAPS + "/a",
                encode("{\"apiVersion\":\"v1\",\"kind\":\"DeleteOptions\",\"dryRun\":[\"All\"]}"));
        assertThat(dryRun.code()).as("%s", dryRun.body()).isEqualTo(200);
        assertThat(api.get(CONFIGMAPS + "/a").code())
                .as("a dry run deletes nothing")
                .isEqualTo(200);

        ProtobufClient.Reply stale = protobuf.send("DELETE", CONFIGMAPS + "/a", encode("""
                {"apiVersion":"meta.k8s.io/v1","kind":"DeleteOptions","preconditions":{"uid":"not-the-uid"}}"""));
        assertThat(stale.code()).as("%s", stale.body()).isEqualTo(409);
        assertThat(stale.body().path("kind").asString()).isEqualTo("Status");

        ProtobufClient.Reply collectionDryRun = protobuf.send(
                "DELETE",
                CONFIGMAPS,
                encode("{\"apiVersion\":\"v1\",\"kind\":\"DeleteOptions\",\"dryRun\":[\"All\"]}"));
        assertThat(collectionDryRun.code()).as("%s", collectionDryRun.body()).isEqualTo(200);
        assertThat(api.get(CONFIGMAPS).body().path("items")).hasSize(3); // and kube-root-ca.crt

        ProtobufClient.Reply deleted = protobuf.send("DELETE", CONFIGMAPS + "/a", encode("""
                {"apiVersion":"v1","kind":"DeleteOptions","preconditions":{"uid":"%s"}}""".formatted(
                        cm.at("/metadata/uid").asString())));
        assertThat(deleted.code()).as("%s", deleted.body()).isEqualTo(200);
        assertThat(api.get(CONFIGMAPS + "/a").code()).isEqualTo(404);

        ProtobufClient.Reply notOptions = protobuf.send(
                "DELETE",
                CONFIGMAPS + "/b",
                encode("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"b\"}}"));
        assertThat(notOptions.code()).isEqualTo(400);
        assertThat(notOptions.body().path("message").asString())
                .isEqualTo("decoded object cannot be converted to DeleteOptions");
    }

    @Test
    void aClientAcceptingOnlyProtobufGetsObjectsListsAndErrorsInProtobuf() {
        for (String name : List.of("a", "b", "c")) {
            api.create(CONFIGMAPS, "{\"metadata\":{\"name\":\"" + name + "\"},\"data\":{\"k\":\"" + name + "\"}}");
        }
        ProtobufClient.Reply one = protobuf.get(CONFIGMAPS + "/b");
        assertThat(one.code()).isEqualTo(200);
        assertThat(one.isProtobuf()).isTrue();
        assertThat(one.body()).isEqualTo(api.get(CONFIGMAPS + "/b").body());

        ProtobufClient.Reply page = protobuf.get(CONFIGMAPS + "?limit=2");
        assertThat(page.isProtobuf()).isTrue();
        assertThat(page.body().path("kind").asString()).isEqualTo("ConfigMapList");
        assertThat(page.body().path("items")).hasSize(2);
        String next = page.body().at("/metadata/continue").asString();
        assertThat(next).as("the continue token survives protobuf").isNotEmpty();
        assertThat(page.body().at("/metadata/remainingItemCount").asInt())
                .as("c and the namespace's kube-root-ca.crt")
                .isEqualTo(2);
        ProtobufClient.Reply rest = protobuf.get(CONFIGMAPS + "?limit=2&continue=" + next);
        assertThat(rest.body().path("items").get(0).at("/metadata/name").asString())
                .isEqualTo("c");
        assertThat(rest.body().at("/metadata/resourceVersion").asString())
                .isEqualTo(page.body().at("/metadata/resourceVersion").asString());

        ProtobufClient.Reply missing = protobuf.get(CONFIGMAPS + "/nope");
        assertThat(missing.code()).isEqualTo(404);
        assertThat(missing.isProtobuf()).isTrue();
        assertThat(missing.body().path("kind").asString()).isEqualTo("Status");
        assertThat(missing.body().path("reason").asString()).isEqualTo("NotFound");
        assertThat(missing.body().path("message").asString()).isEqualTo("configmaps \"nope\" not found");

        ProtobufClient.Reply created = protobuf.send(
                "POST",
                CONFIGMAPS,
                PROTOBUF,
                encode("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"d\"}}"),
                PROTOBUF);
        assertThat(created.code()).isEqualTo(201);
        assertThat(created.isProtobuf()).isTrue();
        assertThat(created.body().at("/metadata/uid").asString()).isNotEmpty();
        ProtobufClient.Reply exists = protobuf.send(
                "POST",
                CONFIGMAPS,
                PROTOBUF,
                encode("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"d\"}}"),
                PROTOBUF);
        assertThat(exists.code()).isEqualTo(409);
        assertThat(exists.isProtobuf()).isTrue();
        assertThat(exists.body().path("reason").asString()).isEqualTo("AlreadyExists");

        ProtobufClient.Reply scale = protobuf.get(DEPLOYMENTS + "/none/scale");
        assertThat(scale.code()).isEqualTo(404);
        assertThat(scale.isProtobuf()).isTrue();
        ProtobufClient.Reply noRoute = protobuf.get("/api/v1/namespaces/default/nothings");
        assertThat(noRoute.code()).isEqualTo(404);
        assertThat(noRoute.isProtobuf()).as("a Status from the router too").isTrue();
        assertThat(noRoute.body().path("reason").asString()).isEqualTo("NotFound");
    }

    @Test
    void aProtobufWatchSendsFramesWithBookmarksAndErrors() throws Exception {
        JsonNode a = api.create(CONFIGMAPS, "{\"metadata\":{\"name\":\"a\"}}");
        String rv = a.at("/metadata/resourceVersion").asString();
        try (ProtobufClient.FrameWatch watch =
                protobuf.watch(CONFIGMAPS + "?watch=true&allowWatchBookmarks=true&resourceVersion=" + rv)) {
            assertThat(watch.code).isEqualTo(200);
            assertThat(watch.contentType).isEqualTo(ProtobufClient.WATCH);
            JsonNode start = watch.next();
            assertThat(start.path("type").asString()).isEqualTo("BOOKMARK");
            assertThat(start.at("/object/metadata/resourceVersion").asString()).isEqualTo(rv);
            api.create(CONFIGMAPS, "{\"metadata\":{\"name\":\"b\"},\"data\":{\"x\":\"y\"}}");
            JsonNode added = watch.next();
            assertThat(added.path("type").asString()).isEqualTo("ADDED");
            assertThat(added.at("/object/data/x").asString()).isEqualTo("y");
            api.delete(CONFIGMAPS + "/b");
            assertThat(watch.next().path("type").asString()).isEqualTo("DELETED");
        }
        try (ProtobufClient.FrameWatch streamingList = protobuf.watch(CONFIGMAPS + "?watch=true&sendInitialEvents=true"
                + "&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true")) {
            JsonNode initial = streamingList.next();
            assertThat(initial.path("type").asString()).isEqualTo("ADDED");
            assertThat(initial.at("/object/metadata/name").asString()).isEqualTo("a");
            JsonNode seeded = streamingList.next();
            assertThat(seeded.at("/object/metadata/name").asString()).isEqualTo("kube-root-ca.crt");
            JsonNode end = streamingList.next();
            assertThat(end.path("type").asString()).isEqualTo("BOOKMARK");
            assertThat(end.at("/object/metadata/annotations/k8s.io~1initial-events-end")
                            .asString())
                    .isEqualTo("true");
        }
        server.compact();
        try (ProtobufClient.FrameWatch expired = protobuf.watch(CONFIGMAPS + "?watch=true&resourceVersion=" + rv)) {
            JsonNode error = expired.next();
            assertThat(error.path("type").asString()).isEqualTo("ERROR");
            assertThat(error.at("/object/kind").asString()).isEqualTo("Status");
            assertThat(error.at("/object/code").asInt()).isEqualTo(410);
            assertThat(error.at("/object/reason").asString()).isEqualTo("Expired");
        }
    }

    /**
     * JSON bodies of built-in kinds are type-checked as kube's decoder checks them (issue 17), so no stored object
     * can fail to fit its protobuf message: the body that used to make every protobuf read of the kind a 500 is a
     * 400, and protobuf lists and watches keep serving.
     */
    @Test
    void anObjectThatWouldNotFitItsProtobufMessageIsRefusedAtWrite() throws Exception {
        ApiClient.Reply refused =
                api.post(DEPLOYMENTS, "{\"metadata\":{\"name\":\"odd\"},\"spec\":{\"replicas\":\"three\"}}");
        assertThat(refused.code()).isEqualTo(400);
        assertThat(refused.body().path("message").asString())
                .endsWith("cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32");
        assertThat(api.get(DEPLOYMENTS + "/odd").code()).isEqualTo(404);
        assertThat(protobuf.get(DEPLOYMENTS).code())
                .as("the protobuf list still serves")
                .isEqualTo(200);
    }

    /** Which Accept headers get protobuf: only those that allow protobuf and nothing JSON. */
    @ParameterizedTest(name = "Accept: {0} -> {1}")
    @CsvSource(delimiter = '|', nullValues = "NONE", textBlock = """
            application/vnd.kubernetes.protobuf                                           | application/vnd.kubernetes.protobuf
            application/vnd.kubernetes.protobuf;q=0.8                                     | application/vnd.kubernetes.protobuf
            application/vnd.kubernetes.protobuf, application/json;q=0                     | application/vnd.kubernetes.protobuf
            application/vnd.kubernetes.protobuf,application/json                          | application/json
            application/json;q=0.1, application/vnd.kubernetes.protobuf                   | application/json
            application/vnd.kubernetes.protobuf, */*                                      | application/json
            application/vnd.kubernetes.protobuf;q=0                                       | application/json
            application/json;as=Table;v=v1;g=meta.k8s.io, application/vnd.kubernetes.protobuf | application/json
            NONE                                                                          | application/json
            """)
    void onlyAnAcceptThatExcludesJsonGetsProtobuf(String accept, String contentType) {
        api.create(CONFIGMAPS, "{\"metadata\":{\"name\":\"a\"}}");
        for (String path : List.of(CONFIGMAPS + "/a", CONFIGMAPS)) {
            ProtobufClient.Reply r = protobuf.send("GET", path, null, null, accept);
            assertThat(r.code()).isEqualTo(200);
            assertThat(r.contentType()).as(path).isEqualTo(contentType);
        }
    }

    /** kube-apiserver serves Tables in JSON and YAML only: a protobuf Table, with nothing else accepted, is a 406. */
    @Test
    void aProtobufTableIsNotAcceptable() {
        api.create(CONFIGMAPS, "{\"metadata\":{\"name\":\"a\"}}");
        ProtobufClient.Reply r = protobuf.send(
                "GET", CONFIGMAPS, null, null, "application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io");
        assertThat(r.code()).isEqualTo(406);
        assertThat(r.contentType()).isEqualTo("application/json");
    }

    @Test
    void malformedAndMismatchedBodiesAreBadRequests() {
        ProtobufClient.Reply noPrefix = protobuf.send("POST", CONFIGMAPS, "{\"metadata\":{\"name\":\"x\"}}".getBytes());
        assertThat(noPrefix.code()).isEqualTo(400);
        assertThat(noPrefix.body().path("reason").asString()).isEqualTo("BadRequest");
        assertThat(noPrefix.body().path("message").asString())
                .startsWith("the object provided is unrecognized (")
                .doesNotContain("metadata");

        byte[] whole = encode(DEPLOYMENT);
        ProtobufClient.Reply truncated =
                protobuf.send("POST", DEPLOYMENTS, java.util.Arrays.copyOf(whole, whole.length - 3));
        assertThat(truncated.code()).isEqualTo(400);
        assertThat(truncated.body().path("message").asString()).startsWith("the object provided is unrecognized (");

        ProtobufClient.Reply wrongKind = protobuf.send(
                "POST",
                DEPLOYMENTS,
                encode("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"x\"}}"));
        assertThat(wrongKind.code()).isEqualTo(400);
        assertThat(wrongKind.body().path("message").asString())
                .isEqualTo("the API version in the data (v1) does not match the expected API version (apps/v1)");

        ProtobufClient.Reply wrongScale = protobuf.send("PUT", DEPLOYMENTS + "/web/scale", encode(DEPLOYMENT));
        assertThat(wrongScale.code()).isEqualTo(400);
        assertThat(wrongScale.body().path("message").asString())
                .isEqualTo(
                        "the API version in the data (apps/v1) does not match the expected API version (autoscaling/v1)");
        assertThat(api.get("/version").code()).isEqualTo(200);
    }

    @Test
    void unknownContentTypesAreRefusedListingProtobufForBuiltInKinds() {
        ApiClient.Reply r = api.request("POST", CONFIGMAPS, "text/plain", "{}");
        assertThat(r.code()).isEqualTo(415);
        assertThat(r.body().path("message").asString())
                .isEqualTo("the body of the request was in an unknown format "
                        + "- accepted media types include: application/json, application/yaml, "
                        + "application/vnd.kubernetes.protobuf");
    }

    @Test
    void customResourcesAndDefinitionsStayJsonOnly() {
        ProtobufClient.Reply crdInProtobuf = protobuf.send(
                "POST", Widgets.CRD_PATH, PROTOBUF, new byte[] {'k', '8', 's', 0}, ProtobufClient.TYPED_CLIENT_ACCEPT);
        assertThat(crdInProtobuf.code()).isEqualTo(415);
        assertThat(crdInProtobuf.body().path("message").asString())
                .isEqualTo("the body of the request was in an "
                        + "unknown format - accepted media types include: application/json, application/yaml");
        assertThat(api.request("POST", Widgets.CRD_PATH, "application/yaml", Widgets.CRD)
                        .code())
                .isEqualTo(201);
        api.create(Widgets.WIDGETS, Widgets.widget("w1", 1));

        ProtobufClient.Reply widget = protobuf.send(
                "POST", Widgets.WIDGETS, PROTOBUF, new byte[] {'k', '8', 's', 0}, ProtobufClient.TYPED_CLIENT_ACCEPT);
        assertThat(widget.code()).isEqualTo(415);
        assertThat(widget.body().path("message").asString())
                .isEqualTo(crdInProtobuf.body().path("message").asString());
        ApiClient.Reply plain = api.request("POST", Widgets.WIDGETS, "text/plain", "{}");
        assertThat(plain.code()).isEqualTo(415);
        assertThat(plain.body().path("message").asString())
                .as("protobuf is not listed for custom resources")
                .isEqualTo(crdInProtobuf.body().path("message").asString());

        for (String path :
                List.of(Widgets.WIDGETS + "/w1", Widgets.WIDGETS, Widgets.WIDGETS + "?watch=true", Widgets.CRD_PATH)) {
            ProtobufClient.Reply onlyProtobuf = protobuf.get(path);
            assertThat(onlyProtobuf.code()).as(path).isEqualTo(406);
            assertThat(onlyProtobuf.isProtobuf()).as("a 406 is JSON").isFalse();
            assertThat(onlyProtobuf.body().path("reason").asString()).isEqualTo("NotAcceptable");
            assertThat(onlyProtobuf.body().path("message").asString())
                    .isEqualTo("only the following media types are accepted: application/json");
        }
        ProtobufClient.Reply scale = protobuf.get(Widgets.WIDGETS + "/w1/scale");
        assertThat(scale.code())
                .as("a custom resource's Scale is autoscaling/v1, which has protobuf")
                .isEqualTo(200);
        assertThat(scale.isProtobuf()).isTrue();
        assertThat(scale.body().at("/spec/replicas").asInt()).isEqualTo(1);
        ProtobufClient.Reply typedClient =
                protobuf.send("GET", Widgets.WIDGETS + "/w1", null, null, ProtobufClient.TYPED_CLIENT_ACCEPT);
        assertThat(typedClient.code()).isEqualTo(200);
        assertThat(typedClient.isProtobuf()).isFalse();
    }
}
