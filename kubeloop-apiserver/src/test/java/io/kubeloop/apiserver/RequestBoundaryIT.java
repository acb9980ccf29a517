package io.kubeloop.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubeloop.clock.Clock;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;

/**
 * An {@link Error} in a request (out of memory, a stack overflow) is that request's failure only: it is answered
 * with a 500 Status, the connection closes, and the server's own threads (the JDK server's dispatcher and its
 * idle-connection reaper) keep running, so {@code /readyz} answers and idle connections are still reaped.
 *
 * <p>The Error is injected through the server's clock, which request handling reads on the request's own thread
 * (named {@code apiserver-N}): at the very start of a request, and inside a write (timestamps).
 */
class RequestBoundaryIT {

    private static final InjectingClock CLOCK = new InjectingClock();
    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static EmbeddedApiServer server;
    private static Set<Thread> serverThreads;

    @BeforeAll
    static void start() {
        Set<Thread> before = jdkServerThreads();
        server = EmbeddedApiServer.builder().clock(CLOCK).start();
        serverThreads = jdkServerThreads();
        serverThreads.removeAll(before);
        assertThat(serverThreads)
                .extracting(Thread::getName)
                .as("the JDK server's dispatcher, idle-connection reaper and request-time limit (ConnectionLimits)")
                .containsExactlyInAnyOrder("HTTP-Dispatcher", "idle-timeout-task", "req-rsp-timeout-task");
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    private static Set<Thread> jdkServerThreads() {
        Set<Thread> threads = new HashSet<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().equals("HTTP-Dispatcher")
                    || t.getName().equals("idle-timeout-task")
                    || t.getName().equals("req-rsp-timeout-task")) {
                threads.add(t);
            }
        }
        return threads;
    }

    private static HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
        // A timeout, so that an unanswered request fails the test instead of hanging it.
        return HTTP.send(request.timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static void assertServerHealthy() throws Exception {
        HttpResponse<String> ready = send(HttpRequest.newBuilder(server.url().resolve("/readyz")));
        assertThat(ready.statusCode()).isEqualTo(200);
        assertThat(ready.body()).isEqualTo("ok");
        assertThat(serverThreads)
                .allSatisfy(
                        t -> assertThat(t.isAlive()).as("%s alive", t.getName()).isTrue());
    }

    private static void assertInternalError(HttpResponse<String> reply, String error) {
        assertThat(reply.statusCode()).as(reply.body()).isEqualTo(500);
        JsonNode status = ApiClient.JSON.readTree(reply.body());
        assertThat(status.get("kind").stringValue()).isEqualTo("Status");
        assertThat(status.get("reason").stringValue()).isEqualTo("InternalError");
        assertThat(status.get("message").stringValue()).startsWith("Internal error occurred: " + error);
        assertThat(reply.headers().firstValue("Connection")).hasValue("close");
    }

    @ParameterizedTest
    @ValueSource(strings = {"OutOfMemoryError", "StackOverflowError", "AssertionError"})
    void anErrorAtTheStartOfARequestIsAnswered500AndTheServerKeepsServing(String error) throws Exception {
        CLOCK.failNextRequest(Where.NANO_TIME, () -> switch (error) {
            case "OutOfMemoryError" -> new OutOfMemoryError("injected");
            case "StackOverflowError" -> new StackOverflowError();
            default -> new AssertionError("injected");
        });
        HttpResponse<String> reply = send(HttpRequest.newBuilder(server.url().resolve("/api/v1/namespaces")));
        assertInternalError(reply, error);
        assertServerHealthy();
        assertThat(send(HttpRequest.newBuilder(server.url().resolve("/api/v1/namespaces")))
                        .statusCode())
                .isEqualTo(200);
    }

    @Test
    void anErrorInsideAWriteIsAnswered500AndNothingIsStored() throws Exception {
        CLOCK.failNextRequest(Where.NOW, () -> new OutOfMemoryError("injected"));
        HttpResponse<String> reply =
                send(HttpRequest.newBuilder(server.url().resolve("/api/v1/namespaces/default/configmaps"))
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(
                                "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"boom\"}}")));
        assertInternalError(reply, "OutOfMemoryError");
        assertServerHealthy();
        assertThat(send(HttpRequest.newBuilder(server.url().resolve("/api/v1/namespaces/default/configmaps/boom")))
                        .statusCode())
                .isEqualTo(404);
    }

    @Test
    void anErrorOnAKeptAliveConnectionClosesItAndTheNextRequestIsServed() throws Exception {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), server.port())) {
            socket.setSoTimeout(5_000);
            OutputStream out = socket.getOutputStream();
            InputStream in = socket.getInputStream();
            CLOCK.failNextRequest(Where.NANO_TIME, () -> new OutOfMemoryError("injected"));
            out.write("GET /version HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            String answer = new String(in.readAllBytes(), StandardCharsets.ISO_8859_1); // until the server closes
            assertThat(answer).startsWith("HTTP/1.1 500 ").contains("\"reason\":\"InternalError\"");
        }
        assertServerHealthy();
    }

    enum Where {
        NANO_TIME,
        NOW
    }

    /** The system clock, except that the next request's read of {@link Where} throws the armed Error. */
    static final class InjectingClock implements Clock {
        private final Clock system = Clock.system();
        private final AtomicReference<Where> where = new AtomicReference<>();
        private volatile Supplier<Error> error;

        void failNextRequest(Where at, Supplier<Error> failure) {
            this.error = failure;
            where.set(at);
        }

        private void maybeFail(Where at) {
            if (where.get() == at
                    && Thread.currentThread().getName().startsWith("apiserver-")
                    && where.compareAndSet(at, null)) {
                throw error.get();
            }
        }

        @Override
        public long nanoTime() {
            maybeFail(Where.NANO_TIME);
            return system.nanoTime();
        }

        @Override
        public Instant now() {
            maybeFail(Where.NOW);
            return system.now();
        }

        @Override
        public void awaitUntil(Lock lock, Condition condition, long deadlineNanos) throws InterruptedException {
            system.awaitUntil(lock, condition, deadlineNanos);
        }

        @Override
        public Scheduled schedule(Runnable task, Duration delay) {
            return system.schedule(task, delay);
        }
    }
}
