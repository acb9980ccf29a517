package io.kubeloop.apiserver.fault;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.kubeloop.apiserver.internal.auth.RequestUser;
import io.kubeloop.apiserver.internal.auth.UserInfo;
import io.kubeloop.clock.Clock;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Only an admin identity may use the admin path. Authentication is what sets a request's identity; here a
 * stand-in for it sets the identity named in a test header, in front of the real admin handler, over real HTTP.
 */
class FaultAdminAccessTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private final FaultInjector injector = new FaultInjector(Clock.system(), 1, true, () -> 0L, JSON);
    private HttpServer http;

    @AfterEach
    void stop() {
        http.stop(0);
        injector.close();
    }

    private URI serve() throws Exception {
        http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
        http.createContext("/", exchange -> {
            String user = exchange.getRequestHeaders().getFirst("X-Test-User");
            RequestUser.set(
                    exchange,
                    user.equals("admin")
                            ? UserInfo.ADMIN
                            : new UserInfo(user, "", List.of(UserInfo.SYSTEM_AUTHENTICATED), Map.of()));
            injector.serveAdmin(exchange, exchange.getRequestURI().getPath());
        });
        http.start();
        return URI.create("http://127.0.0.1:" + http.getAddress().getPort());
    }

    private static HttpResponse<String> post(URI base, String user) throws Exception {
        return HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create(base + "/kubeloop/faults/fail"))
                                .header("X-Test-User", user)
                                .POST(HttpRequest.BodyPublishers.ofString("{\"code\":503}"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void aNonAdminIsForbiddenAndStartsNothing() throws Exception {
        URI base = serve();
        HttpResponse<String> alice = post(base, "alice");
        assertThat(alice.statusCode()).isEqualTo(403);
        JsonNode status = JSON.readTree(alice.body());
        assertThat(status.get("reason").asString()).isEqualTo("Forbidden");
        assertThat(status.get("message").asString()).contains("User \"alice\" cannot use the fault injection API");
        assertThat(injector.faults().active()).isEmpty();

        assertThat(post(base, "admin").statusCode()).isEqualTo(200);
        assertThat(injector.faults().active()).hasSize(1);
    }
}
