package io.kubeloop.apiserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kubeloop.apiserver.fault.Failure;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import tools.jackson.databind.JsonNode;

/**
 * An {@link AdminEndpoint} over real HTTP: what it is given (method, subpath, decoded query, body), its answer as
 * JSON, its exceptions as kube Status objects, served with fault injection off and untouched by injected faults.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AdminEndpointIT {

    /** What the endpoint saw: one line per call. */
    private final List<String> calls = new CopyOnWriteArrayList<>();

    private EmbeddedApiServer server;
    private ApiClient api;

    @BeforeAll
    void start() {
        server = EmbeddedApiServer.builder()
                .adminEndpoint("things", this::things)
                .start(); // fault injection off: the endpoint is served all the same
        api = new ApiClient(server.url());
    }

    @AfterAll
    void stop() {
        server.close();
    }

    private String things(String method, String subpath, Map<String, String> query, String body) {
        calls.add(method + " [" + subpath + "] " + query + " [" + body + "]");
        return switch (subpath) {
            case "" -> "{\"things\":[\"a\",\"b\"]}";
            case "/bad" -> throw new IllegalArgumentException("count must be a positive integer, was \"x\"");
            case "/missing" -> throw new NoSuchElementException("no thing named \"missing\"");
            case "/readonly" -> throw new UnsupportedOperationException("things/readonly takes GET only");
            case "/broken" -> throw new IllegalStateException("the thing broke");
            default -> "[1,2]";
        };
    }

    @Test
    void theEndpointGetsTheRequestAndItsAnswerIsSentAsJson() {
        ApiClient.Reply root = api.get("/kubeloop/things");
        assertThat(root.code()).isEqualTo(200);
        assertThat(root.body().get("things").get(1).asString()).isEqualTo("b");

        ApiClient.Reply below = api.request(
                "POST", "/kubeloop/things/x/y%20z/?n=1&label=a%3Db&n=2&flag", "application/json", "{\"k\":1}");
        assertThat(below.code()).isEqualTo(200);
        assertThat(below.body().isArray()).isTrue();
        assertThat(calls).containsSubsequence("GET [] {} []", "POST [/x/y z] {n=1, label=a=b, flag=} [{\"k\":1}]");
    }

    @Test
    void exceptionsAreStatusObjects() {
        assertStatus(api.get("/kubeloop/things/bad"), 400, "BadRequest", "count must be a positive integer, was \"x\"");
        assertStatus(api.get("/kubeloop/things/missing"), 404, "NotFound", "no thing named \"missing\"");
        assertStatus(
                api.request("PUT", "/kubeloop/things/readonly", null, null),
                405,
                "MethodNotAllowed",
                "things/readonly takes GET only");
        assertStatus(
                api.get("/kubeloop/things/broken"),
                500,
                "InternalError",
                "Internal error occurred: IllegalStateException: the thing broke");
        ApiClient.Reply other = api.get("/kubeloop/thingsandmore");
        assertThat(other.code()).as("only the name itself and paths below it").isEqualTo(404);
        assertThat(api.get("/kubeloop/faults").code())
                .as("the fault admin path stays off")
                .isEqualTo(404);
    }

    @Test
    void injectedFaultsDoNotTouchTheEndpoint() {
        server.faults().fail(Failure.status(503));
        try {
            assertThat(api.get("/api/v1/namespaces").code()).isEqualTo(503);
            assertThat(api.get("/kubeloop/things").code()).isEqualTo(200);
        } finally {
            server.faults().clear();
        }
    }

    @Test
    void onlyTheAdministratorMayUseIt() throws Exception {
        try (EmbeddedApiServer secure = EmbeddedApiServer.builder()
                .tls()
                .adminEndpoint("things", this::things)
                .start()) {
            TlsClient admin = TlsClient.fromKubeconfig(secure.kubeconfig());
            assertThat(admin.request("GET", "/kubeloop/things", null, null).code())
                    .isEqualTo(200);
            int before = calls.size();
            TlsClient alice = TlsClient.fromKubeconfig(secure.kubeconfigFor("alice", "devs"));
            assertStatus(
                    alice.request("POST", "/kubeloop/things/x", "application/json", "{}"),
                    403,
                    "Forbidden",
                    "forbidden: User \"alice\" cannot use the admin API /kubeloop/things: it is for members of "
                            + "system:masters");
            assertThat(calls).as("the endpoint never saw alice's request").hasSize(before);
        }
    }

    @Test
    void namesAreOnePathSegmentAndNotTheFaultPath() {
        EmbeddedApiServer.Builder b = EmbeddedApiServer.builder();
        assertThatThrownBy(() -> b.adminEndpoint("Nodes", this::things))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("[a-z][a-z0-9-]*");
        assertThatThrownBy(() -> b.adminEndpoint("a/b", this::things)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> b.adminEndpoint("faults", this::things))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("/kubeloop/faults");
        b.adminEndpoint("cluster-1", this::things);
        assertThatThrownBy(() -> b.adminEndpoint("cluster-1", this::things))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("already");
    }

    @Test
    void theClockIsTheBuildersOrTheSystemClock() {
        io.kubeloop.clock.FakeClock fake = new io.kubeloop.clock.FakeClock();
        try (EmbeddedApiServer s = EmbeddedApiServer.builder().clock(fake).start()) {
            assertThat(s.clock()).isSameAs(fake);
        }
        assertThat(server.clock()).isSameAs(io.kubeloop.clock.Clock.system());
    }

    private static void assertStatus(ApiClient.Reply reply, int code, String reason, String message) {
        assertThat(reply.code()).as(reply.raw()).isEqualTo(code);
        JsonNode status = reply.body();
        assertThat(status.get("kind").asString()).isEqualTo("Status");
        assertThat(status.get("reason").asString()).isEqualTo(reason);
        assertThat(status.get("message").asString()).isEqualTo(message);
    }
}
