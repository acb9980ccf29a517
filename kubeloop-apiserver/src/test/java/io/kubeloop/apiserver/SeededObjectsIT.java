package io.kubeloop.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * The objects a real cluster has without anyone creating them: the {@code kubernetes} Service and Endpoints in
 * {@code default}, and in every namespace the {@code kube-root-ca.crt} ConfigMap and the {@code default}
 * ServiceAccount, also in namespaces created later and again after they are deleted; a terminating namespace still
 * goes away.
 */
class SeededObjectsIT {

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

    private static ConditionFactory eventually() {
        return Awaitility.await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(10));
    }

    @Test
    void theKubernetesServicePointsAtTheServerItself() {
        JsonNode svc = api.get("/api/v1/namespaces/default/services/kubernetes").body();
        assertThat(svc.at("/spec/clusterIP").asString()).isEqualTo("10.96.0.1");
        assertThat(svc.at("/spec/ports/0/name").asString()).isEqualTo("https");
        assertThat(svc.at("/spec/ports/0/port").asInt()).isEqualTo(443);
        assertThat(svc.at("/spec/ports/0/targetPort").asInt()).isEqualTo(server.port());
        assertThat(svc.at("/metadata/labels/component").asString()).isEqualTo("apiserver");
        JsonNode ep = api.get("/api/v1/namespaces/default/endpoints/kubernetes").body();
        assertThat(ep.at("/subsets/0/addresses/0/ip").asString()).isEqualTo("127.0.0.1");
        assertThat(ep.at("/subsets/0/ports/0/port").asInt()).isEqualTo(server.port());
        // a Service created later never gets its address
        JsonNode other = api.create(
                "/api/v1/namespaces/default/services",
                "{\"metadata\":{\"name\":\"other\"},\"spec\":{\"ports\":[{\"port\":80}]}}");
        assertThat(other.at("/spec/clusterIP").asString()).isNotEqualTo("10.96.0.1");
        ApiClient.Reply taken = api.post(
                "/api/v1/namespaces/default/services",
                "{\"metadata\":{\"name\":\"taken\"},\"spec\":{\"clusterIP\":\"10.96.0.1\",\"ports\":[{\"port\":80}]}}");
        assertThat(taken.code()).as(taken.raw()).isEqualTo(422);
    }

    @Test
    void everyNamespaceHasTheRootCaConfigMapAndTheDefaultServiceAccount() {
        for (String ns : new String[] {"default", "kube-system", "kube-public", "kube-node-lease"}) {
            JsonNode cm = api.get("/api/v1/namespaces/" + ns + "/configmaps/kube-root-ca.crt")
                    .body();
            assertThat(cm.at("/data").has("ca.crt")).as(ns).isTrue();
            assertThat(api.get("/api/v1/namespaces/" + ns + "/serviceaccounts/default")
                            .code())
                    .as(ns)
                    .isEqualTo(200);
        }
        api.create("/api/v1/namespaces", "{\"metadata\":{\"name\":\"seeded\"}}");
        eventually()
                .until(() -> api.get("/api/v1/namespaces/seeded/configmaps/kube-root-ca.crt")
                                        .code()
                                == 200
                        && api.get("/api/v1/namespaces/seeded/serviceaccounts/default")
                                        .code()
                                == 200);

        // deleted, they come back; changed, the CA is put back
        assertThat(api.delete("/api/v1/namespaces/seeded/serviceaccounts/default")
                        .code())
                .isEqualTo(200);
        assertThat(api.delete("/api/v1/namespaces/seeded/configmaps/kube-root-ca.crt")
                        .code())
                .isEqualTo(200);
        eventually()
                .until(() -> api.get("/api/v1/namespaces/seeded/configmaps/kube-root-ca.crt")
                                        .code()
                                == 200
                        && api.get("/api/v1/namespaces/seeded/serviceaccounts/default")
                                        .code()
                                == 200);
        api.request(
                "PATCH",
                "/api/v1/namespaces/seeded/configmaps/kube-root-ca.crt",
                "application/merge-patch+json",
                "{\"data\":{\"ca.crt\":\"tampered\"}}");
        eventually().until(() -> api.get("/api/v1/namespaces/seeded/configmaps/kube-root-ca.crt")
                .body()
                .at("/data/ca.crt")
                .asString()
                .isEmpty());

        // a terminating namespace gets nothing new and goes away
        assertThat(api.delete("/api/v1/namespaces/seeded").code()).isEqualTo(200);
        eventually().until(() -> api.get("/api/v1/namespaces/seeded").code() == 404);
        assertThat(api.get("/api/v1/namespaces/seeded/serviceaccounts/default").code())
                .isEqualTo(404);
    }

    @Test
    void overTlsTheRootCaConfigMapHoldsTheServersCa() throws Exception {
        java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("seeded-ca");
        try (EmbeddedApiServer tls = EmbeddedApiServer.builder().tls(dir).start()) {
            TlsClient client = TlsClient.fromKubeconfig(tls.kubeconfig());
            JsonNode cm = client.request("GET", "/api/v1/namespaces/default/configmaps/kube-root-ca.crt", null, null)
                    .body();
            String pem = cm.at("/data/ca.crt").asString();
            assertThat(pem).startsWith("-----BEGIN CERTIFICATE-----");
            java.security.cert.X509Certificate parsed =
                    (java.security.cert.X509Certificate) java.security.cert.CertificateFactory.getInstance("X.509")
                            .generateCertificate(new java.io.ByteArrayInputStream(pem.getBytes()));
            assertThat(parsed).isEqualTo(tls.certificateAuthority());
        }
    }
}
