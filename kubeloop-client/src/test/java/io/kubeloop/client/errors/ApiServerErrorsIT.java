package io.kubeloop.client.errors;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Status;
import io.kubeloop.apiserver.EmbeddedApiServer;
import io.kubeloop.apiserver.fault.Failure;
import io.kubeloop.client.transport.RetryDecision;
import io.kubeloop.client.transport.RetryPolicy;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.KeyStore;
import java.time.Duration;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Real error answers of the embedded API server, read with a plain {@link HttpClient} and mapped by
 * {@link KubernetesApiException#fromResponse}: each to its class, with the server's Status, reason, details,
 * causes and Retry-After.
 */
class ApiServerErrorsIT {

    private static final String CONFIGMAPS = "/api/v1/namespaces/default/configmaps";
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private static EmbeddedApiServer server;
    private static HttpClient http;

    @BeforeAll
    static void start() {
        server = EmbeddedApiServer.builder().rbac(true).start();
        http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    /** Sends the request; a non-2xx answer is returned as the typed exception, a 2xx answer's body as JSON. */
    private static Object call(HttpClient client, URI base, String method, String path, String body, String... headers)
            throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(base.resolve(path))
                .timeout(Duration.ofSeconds(20))
                .method(
                        method,
                        body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .header("Accept", "application/json");
        if (body != null) {
            b.header("Content-Type", "application/json");
        }
        for (int i = 0; i < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        HttpResponse<byte[]> r = client.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
        if (r.statusCode() / 100 == 2) {
            return JSON.readTree(r.body());
        }
        return KubernetesApiException.fromResponse(r.statusCode(), r.headers().map(), r.body(), method, path);
    }

    private static Object call(String method, String path, String body, String... headers) throws Exception {
        return call(http, server.url(), method, path, body, headers);
    }

    private static String configMap(String name, String resourceVersion) {
        return "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{"
                + (name == null ? "" : "\"name\":\"" + name + "\"")
                + (resourceVersion == null ? "" : ",\"resourceVersion\":\"" + resourceVersion + "\"")
                + "},\"data\":{\"k\":\"v\"}}";
    }

    @Test
    void notFoundCarriesTheObjectInItsDetails() throws Exception {
        Object r = call("GET", CONFIGMAPS + "/missing", null);

        assertThat(r).isExactlyInstanceOf(NotFoundException.class);
        NotFoundException e = (NotFoundException) r;
        assertThat(e.code()).isEqualTo(404);
        assertThat(e.hasServerStatus()).isTrue();
        assertThat(e.status().getDetails().getName()).isEqualTo("missing");
        assertThat(e.status().getDetails().getKind()).isEqualTo("configmaps");
        assertThat(e.getMessage())
                .isEqualTo(
                        "GET /api/v1/namespaces/default/configmaps/missing: 404 NotFound: configmaps \"missing\" not found");
    }

    @Test
    void createTwiceIsAlreadyExistsAndAStaleUpdateIsConflict() throws Exception {
        JsonNode created = (JsonNode) call("POST", CONFIGMAPS, configMap("twice", null));
        String rv = created.path("metadata").path("resourceVersion").asString();

        Object again = call("POST", CONFIGMAPS, configMap("twice", null));
        assertThat(again).isExactlyInstanceOf(AlreadyExistsException.class);
        assertThat(((KubernetesApiException) again).code()).isEqualTo(409);
        assertThat(((KubernetesApiException) again).serverMessage()).isEqualTo("configmaps \"twice\" already exists");

        // a real change (a no-op update keeps the resourceVersion, as in kube-apiserver)
        assertThat(call("PUT", CONFIGMAPS + "/twice", configMap("twice", rv).replace("\"v\"", "\"v2\"")))
                .isInstanceOf(JsonNode.class);
        Object stale = call("PUT", CONFIGMAPS + "/twice", configMap("twice", rv));
        assertThat(stale).isExactlyInstanceOf(ConflictException.class);
        assertThat(((KubernetesApiException) stale).serverMessage())
                .contains("Operation cannot be fulfilled on configmaps \"twice\"", "the object has been modified");
        assertThat(((KubernetesApiException) stale).reason()).isEqualTo("Conflict");
    }

    @Test
    void invalidCarriesItsFieldCauses() throws Exception {
        Object r = call("POST", CONFIGMAPS, configMap(null, null));

        assertThat(r).isExactlyInstanceOf(InvalidException.class);
        InvalidException e = (InvalidException) r;
        assertThat(e.code()).isEqualTo(422);
        assertThat(e.causes()).isNotEmpty().allSatisfy(c -> assertThat(c.reason())
                .isNotEmpty());
        assertThat(e.causes()).anySatisfy(c -> {
            assertThat(c.field()).isEqualTo("metadata.name");
            assertThat(c.reason()).isEqualTo("FieldValueRequired");
            assertThat(c.message()).startsWith("Required value");
        });
        assertThat(e.status().getDetails().getKind()).isEqualTo("ConfigMap");
        assertThat(e.getMessage()).startsWith("POST " + CONFIGMAPS + ": 422 Invalid: ConfigMap \"\" is invalid: ");
    }

    @Test
    void aListOrWatchFromACompactedResourceVersionIsExpired() throws Exception {
        JsonNode list = (JsonNode) call("GET", CONFIGMAPS, null);
        String oldRv = list.path("metadata").path("resourceVersion").asString();
        call("POST", CONFIGMAPS, configMap("after-the-list", null));
        server.compact();

        Object r = call("GET", CONFIGMAPS + "?resourceVersion=" + oldRv + "&resourceVersionMatch=Exact", null);
        assertThat(r).isExactlyInstanceOf(ExpiredException.class);
        ExpiredException e = (ExpiredException) r;
        assertThat(e.code()).isEqualTo(410);
        assertThat(e.reason()).isEqualTo("Expired");
        assertThat(e.isResourceVersionTooOld()).isTrue();

        // A watch from there answers 200 and one ERROR event; its Status maps the same way.
        String watchPath = CONFIGMAPS + "?watch=true&resourceVersion=" + oldRv;
        HttpResponse<InputStream> watch = http.send(
                HttpRequest.newBuilder(server.url().resolve(watchPath))
                        .timeout(Duration.ofSeconds(20))
                        .build(),
                HttpResponse.BodyHandlers.ofInputStream());
        assertThat(watch.statusCode()).isEqualTo(200);
        String line;
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(watch.body(), StandardCharsets.UTF_8))) {
            line = reader.readLine();
        }
        JsonNode event = JSON.readTree(line);
        assertThat(event.path("type").asString()).isEqualTo("ERROR");
        Status status = JSON.treeToValue(event.path("object"), Status.class);
        KubernetesApiException fromEvent = KubernetesApiException.fromWatchError(status, "GET", watchPath);
        assertThat(fromEvent).isExactlyInstanceOf(ExpiredException.class);
        assertThat(((ExpiredException) fromEvent).isResourceVersionTooOld()).isTrue();
        assertThat(fromEvent.getMessage()).startsWith("GET " + watchPath + ": 410 Expired: ");
    }

    @Test
    void anImpersonatedUserWithoutRightsIsForbidden() throws Exception {
        Object r = call("GET", "/api/v1/namespaces/default/pods", null, "Impersonate-User", "alice");

        assertThat(r).isExactlyInstanceOf(ForbiddenException.class);
        ForbiddenException e = (ForbiddenException) r;
        assertThat(e.code()).isEqualTo(403);
        assertThat(e.serverMessage())
                .isEqualTo("pods is forbidden: User \"alice\" cannot list resource \"pods\" in "
                        + "API group \"\" in the namespace \"default\"");
        assertThat(e.status().getDetails().getKind()).isEqualTo("pods");
    }

    @Test
    void aBadTokenIsUnauthorizedAndNoTokenAppearsInTheError() throws Exception {
        String good = "good-token-0123456789";
        String bad = "bad-token-9876543210";
        try (EmbeddedApiServer tls =
                EmbeddedApiServer.builder().tls().token("bob", good).start()) {
            KeyStore trust = KeyStore.getInstance("PKCS12");
            trust.load(null, null);
            trust.setCertificateEntry("kubeloop-ca", tls.certificateAuthority());
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(trust);
            SSLContext ssl = SSLContext.getInstance("TLS");
            ssl.init(null, tmf.getTrustManagers(), null);
            HttpClient https = HttpClient.newBuilder()
                    .sslContext(ssl)
                    .connectTimeout(Duration.ofSeconds(10))
                    .build();

            Object r = call(https, tls.url(), "GET", CONFIGMAPS, null, "Authorization", "Bearer " + bad);
            assertThat(r).isExactlyInstanceOf(UnauthorizedException.class);
            UnauthorizedException e = (UnauthorizedException) r;
            assertThat(e.code()).isEqualTo(401);
            assertThat(e.reason()).isEqualTo("Unauthorized");
            assertThat(e.getMessage()).isEqualTo("GET " + CONFIGMAPS + ": 401 Unauthorized: Unauthorized");
            assertThat(e.toString()).doesNotContain(bad, good);

            assertThat(call(https, tls.url(), "GET", CONFIGMAPS, null, "Authorization", "Bearer " + good))
                    .isInstanceOf(JsonNode.class);
        }
    }

    @Test
    void injectedTooManyRequestsAndServiceUnavailableCarryRetryAfterAndAreRetriedForReads() throws Exception {
        server.faults().fail(Failure.status(429).retryAfterSeconds(2).count(1).resource("configmaps"));
        Object r429 = call("GET", CONFIGMAPS, null);
        assertThat(r429).isExactlyInstanceOf(TooManyRequestsException.class);
        KubernetesApiException e429 = (KubernetesApiException) r429;
        assertThat(e429.code()).isEqualTo(429);
        assertThat(e429.retryAfterSeconds()).hasValue(2);

        server.faults().fail(Failure.status(503).retryAfterSeconds(3).count(1).resource("configmaps"));
        HttpResponse<byte[]> raw = http.send(
                HttpRequest.newBuilder(server.url().resolve(CONFIGMAPS)).build(),
                HttpResponse.BodyHandlers.ofByteArray());
        KubernetesApiException e503 = KubernetesApiException.fromResponse(
                raw.statusCode(), raw.headers().map(), raw.body(), "GET", CONFIGMAPS);
        assertThat(e503).isExactlyInstanceOf(ServiceUnavailableException.class);
        assertThat(e503.retryAfterSeconds()).hasValue(3);
        assertThat(RetryPolicy.defaults()
                        .onResponse("GET", 1, raw.statusCode(), raw.headers().map()))
                .isEqualTo(new RetryDecision.Retry(Duration.ofSeconds(3), "503 with Retry-After: 3"));
        assertThat(RetryPolicy.defaults()
                        .onResponse("POST", 1, raw.statusCode(), raw.headers().map())
                        .retry())
                .isFalse();

        server.faults().fail(Failure.status(500).count(1).resource("configmaps"));
        Object r500 = call("GET", CONFIGMAPS, null);
        assertThat(r500).isExactlyInstanceOf(InternalErrorException.class);
        assertThat(((KubernetesApiException) r500).retryAfterSeconds()).isEmpty();

        assertThat(call("GET", CONFIGMAPS, null))
                .as("the faults were counted out")
                .isInstanceOf(JsonNode.class);
    }
}
