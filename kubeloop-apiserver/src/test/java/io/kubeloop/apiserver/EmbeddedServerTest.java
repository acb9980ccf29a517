package io.kubeloop.apiserver;

import java.time.Duration;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * A fresh {@link EmbeddedApiServer} for each test, with an {@link ApiClient} on it: started before the test and
 * closed after it. A test class changes how its server is built by overriding {@link #configure}; its own
 * {@code @BeforeEach} methods run once the server is up (JUnit runs a superclass's first), its own
 * {@code @AfterEach} methods while it is still up.
 */
abstract class EmbeddedServerTest {

    /** The running server; a test may close it and assign another (then {@link #api} too). */
    EmbeddedApiServer server;
    /** A client of {@link #server}. */
    ApiClient api;

    /** How this class's server is built; by default as {@link EmbeddedApiServer#builder()} leaves it. */
    EmbeddedApiServer.Builder configure(EmbeddedApiServer.Builder builder) {
        return builder;
    }

    @BeforeEach
    final void startServer() {
        server = configure(EmbeddedApiServer.builder()).start();
        api = new ApiClient(server.url());
    }

    @AfterEach
    final void stopServer() {
        if (server != null) {
            server.close();
        }
    }

    /** Waits, polling every 10 ms for up to 10 s, for what the server's controllers do in the background. */
    static ConditionFactory eventually() {
        return Awaitility.await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(10));
    }
}
