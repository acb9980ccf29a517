package io.kubeloop.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * kube's strategies for Services, Namespaces, Secrets and ConfigMaps: their defaults, their validation with kube's
 * messages and field paths, and their immutable fields. Every refused write leaves nothing stored (or the stored
 * object as it was).
 */
class CoreStrategiesIT {

    private static final String SERVICES = "/api/v1/namespaces/default/services";
    private static final String SECRETS = "/api/v1/namespaces/default/secrets";
    private static final String CONFIGMAPS = "/api/v1/namespaces/default/configmaps";
    private static final String NAMESPACES = "/api/v1/namespaces";

    private static EmbeddedApiServer server;
    private static ApiClient api;

    @BeforeAll
    static void start() {
        server = EmbeddedApiServer.builder().start();
        api = new ApiClient(server.url());
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    private static JsonNode assertInvalid(ApiClient.Reply reply, String field, String collection, String name) {
        assertThat(reply.code()).as(reply.raw()).isEqualTo(422);
        assertThat(reply.body().path("reason").asString()).isEqualTo("Invalid");
        assertThat(reply.body().at("/details/causes").findValuesAsString("field"))
                .as(reply.raw())
                .contains(field);
        if (name != null) {
            assertThat(api.get(collection + "/" + name).code())
                    .as("nothing stored")
                    .isEqualTo(404);
        }
        return reply.body();
    }

    private static String service(String name, String ports, String extraSpec) {
        return "{\"metadata\":{\"name\":\"" + name + "\"},\"spec\":{\"ports\":" + ports + extraSpec + "}}";
    }

    private static ApiClient.Reply mergePatch(String path, String patch) {
        return api.request("PATCH", path, "application/merge-patch+json", patch);
    }

    private static String b64(String s) {
        return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8));
    }

    // ---- Service

    @Test
    void serviceNamesAreDns1035Labels() {
        for (String name : new String[] {"a.b", "1abc"}) {
            JsonNode invalid = assertInvalid(
                    api.post(SERVICES, service(name, "[{\"port\":80}]", "")), "metadata.name", SERVICES, name);
            assertThat(invalid.path("message").asString())
                    .isEqualTo("Service \"" + name + "\" is invalid: metadata.name: Invalid value: \"" + name + "\": a "
                            + "DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
                            + "alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or "
                            + "'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')");
        }
    }

    @Test
    void aServiceIsDefaultedAsKubeDefaultsIt() {
        JsonNode svc = api.create(SERVICES, service("defaults", "[{\"port\":80}]", ""));
        JsonNode spec = svc.path("spec");
        assertThat(spec.path("type").asString()).isEqualTo("ClusterIP");
        assertThat(spec.path("sessionAffinity").asString()).isEqualTo("None");
        assertThat(spec.path("internalTrafficPolicy").asString()).isEqualTo("Cluster");
        assertThat(spec.path("ipFamilyPolicy").asString()).isEqualTo("SingleStack");
        assertThat(spec.path("ipFamilies").toString()).isEqualTo("[\"IPv4\"]");
        assertThat(spec.has("externalTrafficPolicy")).isFalse();
        assertThat(spec.path("ports").get(0).toString())
                .isEqualTo("{\"port\":80,\"protocol\":\"TCP\",\"targetPort\":80}");
        assertThat(svc.path("status").toString()).isEqualTo("{\"loadBalancer\":{}}");

        JsonNode nodePort = api.create(
                SERVICES, service("np", "[{\"port\":80,\"targetPort\":\"http\"}]", ",\"type\":\"NodePort\""));
        assertThat(nodePort.at("/spec/externalTrafficPolicy").asString()).isEqualTo("Cluster");
        assertThat(nodePort.at("/spec/ports/0/targetPort").asString()).isEqualTo("http");
        JsonNode lb = api.create(SERVICES, service("lb", "[{\"port\":80}]", ",\"type\":\"LoadBalancer\""));
        assertThat(lb.at("/spec/allocateLoadBalancerNodePorts").asBoolean()).isTrue();
    }

    @Test
    void servicePortsAndTypeAreValidated() {
        assertInvalid(api.post(SERVICES, service("noports", "[]", "")), "spec.ports", SERVICES, "noports");
        JsonNode unnamed = assertInvalid(
                api.post(SERVICES, service("unnamed", "[{\"port\":80},{\"port\":81}]", "")),
                "spec.ports[0].name",
                SERVICES,
                "unnamed");
        assertThat(unnamed.at("/details/causes").findValuesAsString("field"))
                .containsExactly("spec.ports[0].name", "spec.ports[1].name");
        JsonNode duplicate = assertInvalid(
                api.post(SERVICES, service("dup", "[{\"name\":\"a\",\"port\":80},{\"name\":\"a\",\"port\":80}]", "")),
                "spec.ports[1].name",
                SERVICES,
                "dup");
        assertThat(duplicate.at("/details/causes").findValuesAsString("field")).contains("spec.ports[1]");
        JsonNode range = assertInvalid(
                api.post(SERVICES, service("range", "[{\"port\":70000}]", "")),
                "spec.ports[0].port",
                SERVICES,
                "range");
        assertThat(range.path("message").asString())
                .contains("spec.ports[0].port: Invalid value: 70000: must be between 1 and 65535, inclusive");
        JsonNode protocol = assertInvalid(
                api.post(SERVICES, service("proto", "[{\"port\":80,\"protocol\":\"ICMP\"}]", "")),
                "spec.ports[0].protocol",
                SERVICES,
                "proto");
        assertThat(protocol.path("message").asString())
                .isEqualTo("Service \"proto\" is invalid: spec.ports[0].protocol: Unsupported value: \"ICMP\": "
                        + "supported values: \"SCTP\", \"TCP\", \"UDP\"");
        JsonNode type = assertInvalid(
                api.post(SERVICES, service("kind", "[{\"port\":80}]", ",\"type\":\"Bogus\"")),
                "spec.type",
                SERVICES,
                "kind");
        assertThat(type.path("message").asString())
                .contains("Unsupported value: \"Bogus\": supported values: \"ClusterIP\", \"ExternalName\", "
                        + "\"LoadBalancer\", \"NodePort\"");
        assertInvalid(
                api.post(SERVICES, service("extname", "[]", ",\"type\":\"ExternalName\"")),
                "spec.externalName",
                SERVICES,
                "extname");
    }

    // ---- Namespace

    @Test
    void aNamespaceIsActiveWithTheKubernetesFinalizerAndItsNameLabel() {
        JsonNode ns = api.create(NAMESPACES, "{\"metadata\":{\"name\":\"strategy-ns\"}}");
        assertThat(ns.at("/status/phase").asString()).isEqualTo("Active");
        assertThat(ns.at("/spec/finalizers").toString()).isEqualTo("[\"kubernetes\"]");
        assertThat(ns.at("/metadata/labels/kubernetes.io~1metadata.name").asString())
                .isEqualTo("strategy-ns");
        assertThat(ns.at("/metadata").has("generation")).isFalse();
        JsonNode dots = assertInvalid(
                api.post(NAMESPACES, "{\"metadata\":{\"name\":\"a.b\"}}"), "metadata.name", NAMESPACES, "a.b");
        assertThat(dots.path("message").asString())
                .isEqualTo(
                        "Namespace \"a.b\" is invalid: metadata.name: Invalid value: \"a.b\": must not contain dots");
        assertInvalid(
                api.post(NAMESPACES, "{\"metadata\":{\"name\":\"fin\"},\"spec\":{\"finalizers\":[\"mine\"]}}"),
                "spec.finalizers",
                NAMESPACES,
                "fin");
    }

    // ---- Secret

    @Test
    void aSecretIsOpaqueByDefaultAndStringDataIsMergedIntoData() {
        JsonNode secret = api.create(
                SECRETS,
                "{\"metadata\":{\"name\":\"sd\"},\"data\":{\"a\":\"" + b64("old") + "\",\"b\":\"" + b64("kept")
                        + "\"},\"stringData\":{\"a\":\"new\",\"c\":\"plain\"}}");
        assertThat(secret.path("type").asString()).isEqualTo("Opaque");
        assertThat(secret.has("stringData")).isFalse();
        assertThat(secret.at("/data/a").asString()).isEqualTo(b64("new"));
        assertThat(secret.at("/data/b").asString()).isEqualTo(b64("kept"));
        assertThat(secret.at("/data/c").asString()).isEqualTo(b64("plain"));
        assertThat(api.get(SECRETS + "/sd").body().has("stringData")).isFalse();
    }

    @Test
    void secretKeysValuesAndSizeAreValidated() {
        JsonNode key = assertInvalid(
                api.post(SECRETS, "{\"metadata\":{\"name\":\"key\"},\"data\":{\"a b\":\"" + b64("x") + "\"}}"),
                "data[a b]",
                SECRETS,
                "key");
        assertThat(key.path("message").asString())
                .isEqualTo("Secret \"key\" is invalid: data[a b]: Invalid value: \"a b\": a valid config key must "
                        + "consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or "
                        + "'key-name', regex used for validation is '[-._a-zA-Z0-9]+')");
        ApiClient.Reply base64 =
                api.post(SECRETS, "{\"metadata\":{\"name\":\"b64\"},\"data\":{\"a\":\"not base64!\"}}");
        assertThat(base64.code()).as(base64.raw()).isEqualTo(400);
        assertThat(base64.body().path("reason").asString()).isEqualTo("BadRequest");
        assertThat(base64.body().path("message").asString()).contains("illegal base64 data at input byte 3");
        assertThat(api.get(SECRETS + "/b64").code()).isEqualTo(404);
        String half = "x".repeat(512 * 1024 + 1);
        JsonNode big = assertInvalid(
                api.post(
                        SECRETS,
                        "{\"metadata\":{\"name\":\"big\"},\"stringData\":{\"a\":\"" + half + "\",\"b\":\"" + half
                                + "\"}}"),
                "data",
                SECRETS,
                "big");
        assertThat(big.path("message").asString())
                .isEqualTo("Secret \"big\" is invalid: data: Too long: may not be more than 1048576 bytes");
        JsonNode tls = assertInvalid(
                api.post(
                        SECRETS,
                        "{\"metadata\":{\"name\":\"tls\"},\"type\":\"kubernetes.io/tls\",\"stringData\":"
                                + "{\"tls.crt\":\"c\"}}"),
                "data[tls.key]",
                SECRETS,
                "tls");
        assertThat(tls.path("message").asString())
                .isEqualTo("Secret \"tls\" is invalid: data[tls.key]: Required value");
    }

    @Test
    void aSecretsTypeIsImmutableAndAnImmutableSecretsDataToo() {
        api.create(SECRETS, "{\"metadata\":{\"name\":\"frozen\"},\"immutable\":true,\"stringData\":{\"a\":\"1\"}}");
        JsonNode data =
                assertInvalid(mergePatch(SECRETS + "/frozen", "{\"stringData\":{\"a\":\"2\"}}"), "data", null, null);
        assertThat(data.path("message").asString())
                .isEqualTo("Secret \"frozen\" is invalid: data: Forbidden: field is immutable when `immutable` is set");
        assertInvalid(mergePatch(SECRETS + "/frozen", "{\"immutable\":false}"), "immutable", null, null);
        assertThat(api.get(SECRETS + "/frozen").body().at("/data/a").asString()).isEqualTo(b64("1"));
        // labels of an immutable secret may change
        assertThat(mergePatch(SECRETS + "/frozen", "{\"metadata\":{\"labels\":{\"x\":\"y\"}}}")
                        .code())
                .isEqualTo(200);

        api.create(SECRETS, "{\"metadata\":{\"name\":\"typed\"},\"stringData\":{\"a\":\"1\"}}");
        JsonNode type =
                assertInvalid(mergePatch(SECRETS + "/typed", "{\"type\":\"example.com/other\"}"), "type", null, null);
        assertThat(type.path("message").asString())
                .isEqualTo("Secret \"typed\" is invalid: type: Invalid value: \"example.com/other\": field is "
                        + "immutable");
    }

    // ---- ConfigMap

    @Test
    void configMapKeysAndSizeAreValidatedAndImmutableMeansImmutable() {
        assertInvalid(
                api.post(CONFIGMAPS, "{\"metadata\":{\"name\":\"key\"},\"data\":{\"..a\":\"x\"}}"),
                "data[..a]",
                CONFIGMAPS,
                "key");
        JsonNode both = assertInvalid(
                api.post(
                        CONFIGMAPS,
                        "{\"metadata\":{\"name\":\"both\"},\"data\":{\"a\":\"x\"},\"binaryData\":{\"a\":\"" + b64("y")
                                + "\"}}"),
                "binaryData[a]",
                CONFIGMAPS,
                "both");
        assertThat(both.path("message").asString())
                .isEqualTo("ConfigMap \"both\" is invalid: binaryData[a]: Invalid value: \"a\": duplicate key in both "
                        + "data and binaryData");
        String half = "x".repeat(512 * 1024 + 1);
        JsonNode big = assertInvalid(
                api.post(
                        CONFIGMAPS,
                        "{\"metadata\":{\"name\":\"big\"},\"data\":{\"a\":\"" + half + "\",\"b\":\"" + half + "\"}}"),
                "[]",
                CONFIGMAPS,
                "big");
        assertThat(big.path("message").asString())
                .isEqualTo("ConfigMap \"big\" is invalid: []: Too long: may not be more than 1048576 bytes");
        ApiClient.Reply binary =
                api.post(CONFIGMAPS, "{\"metadata\":{\"name\":\"bin\"},\"binaryData\":{\"a\":\"abc\"}}");
        assertThat(binary.code()).as(binary.raw()).isEqualTo(400);

        api.create(CONFIGMAPS, "{\"metadata\":{\"name\":\"frozen\"},\"immutable\":true,\"data\":{\"a\":\"1\"}}");
        JsonNode frozen =
                assertInvalid(mergePatch(CONFIGMAPS + "/frozen", "{\"data\":{\"a\":\"2\"}}"), "data", null, null);
        assertThat(frozen.path("message").asString())
                .isEqualTo("ConfigMap \"frozen\" is invalid: data: Forbidden: field is immutable when `immutable` is "
                        + "set");
        assertInvalid(
                mergePatch(CONFIGMAPS + "/frozen", "{\"binaryData\":{\"b\":\"" + b64("z") + "\"}}"),
                "binaryData",
                null,
                null);
        assertThat(api.get(CONFIGMAPS + "/frozen").body().at("/data/a").asString())
                .isEqualTo("1");
    }
}
