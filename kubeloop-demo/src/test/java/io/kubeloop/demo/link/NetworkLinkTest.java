package io.kubeloop.demo.link;

import static io.kubeloop.testsupport.TestThreads.eventually;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import com.sun.management.HotSpotDiagnosticMXBean;
import com.sun.net.httpserver.HttpServer;
import io.kubeloop.demo.internal.link.NetworkLink;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The relay against a small HTTP server: plain exchanges, a streaming response, cut, restore, reset, close. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NetworkLinkTest {

    /** How fast a failure must show once the link is cut: well under any client's own timeout. */
    private static final Duration FAST = Duration.ofSeconds(2);

    private HttpServer server;
    private final CountDownLatch releaseStreams = new CountDownLatch(1);
    private final AtomicInteger streamsOpened = new AtomicInteger();
    private NetworkLink link;
    private HttpClient http;

    @BeforeEach
    void startServer() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        server.createContext("/hello", exchange -> {
            byte[] body = ("hello " + new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8))
                    .getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        // A long-lived response, like a watch: one line, then nothing until the test ends, then a last line.
        server.createContext("/stream", exchange -> {
            streamsOpened.incrementAndGet();
            exchange.sendResponseHeaders(200, 0);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write("first\n".getBytes(StandardCharsets.UTF_8));
                out.flush();
                releaseStreams.await(30, TimeUnit.SECONDS);
                out.write("last\n".getBytes(StandardCharsets.UTF_8));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (IOException expectedWhenCut) {
                // the link dropped the connection
            }
        });
        server.start();
        link = NetworkLink.open("test", server.getAddress());
        http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(10))
                .build();
    }

    @AfterEach
    void stop() {
        releaseStreams.countDown();
        link.close();
        http.close();
        server.stop(0);
    }

    private URI uri(String path) {
        return URI.create("http://127.0.0.1:" + link.port() + path);
    }

    private String hello(String name) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(
                HttpRequest.newBuilder(uri("/hello"))
                        .POST(HttpRequest.BodyPublishers.ofString(name))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        return r.body();
    }

    /** Opens /stream through the link and reads its first line; the response then stays open. */
    private BufferedReader openStream() throws IOException, InterruptedException {
        HttpResponse<InputStream> r =
                http.send(HttpRequest.newBuilder(uri("/stream")).build(), HttpResponse.BodyHandlers.ofInputStream());
        assertThat(r.statusCode()).isEqualTo(200);
        BufferedReader reader = new BufferedReader(new InputStreamReader(r.body(), StandardCharsets.UTF_8));
        assertThat(reader.readLine()).isEqualTo("first");
        return reader;
    }

    @Test
    void relaysRequestsAndResponsesOnKeepAliveConnections() throws Exception {
        assertThat(link.port()).isPositive().isNotEqualTo(server.getAddress().getPort());
        for (int i = 0; i < 20; i++) {
            assertThat(hello("n" + i)).isEqualTo("hello n" + i);
        }
        // a body larger than the relay's buffer arrives whole
        String big = "x".repeat(300_000);
        assertThat(hello(big)).isEqualTo("hello " + big);
        assertThat(link.openConnections())
                .as("the client keeps its connection alive: one relayed connection")
                .isEqualTo(1);
        assertThat(link.isCut()).isFalse();
    }

    @Test
    void cutEndsAStreamingResponseAndNewRequestsFailFastUntilRestored() throws Exception {
        BufferedReader stream = openStream();
        assertThat(link.openConnections()).isEqualTo(1);

        link.cut();
        assertThat(link.isCut()).isTrue();
        assertThat(link.openConnections()).isZero();
        assertTimeoutPreemptively(FAST, () -> assertThatThrownBy(stream::readLine)
                .as("the in-flight response ends with an I/O error, not a clean end")
                .isInstanceOf(IOException.class));

        for (int i = 0; i < 3; i++) {
            assertTimeoutPreemptively(
                    FAST, () -> assertThatThrownBy(() -> hello("during cut")).isInstanceOf(IOException.class));
        }
        assertThat(link.openConnections()).isZero();

        link.restore();
        assertThat(link.isCut()).isFalse();
        assertThat(hello("again")).isEqualTo("hello again");
        BufferedReader second = openStream();
        assertThat(second).isNotNull();
        releaseStreams.countDown();
        assertThat(second.readLine()).isEqualTo("last");
    }

    @Test
    void cutAndRestoreAreIdempotent() throws Exception {
        link.restore(); // not cut: nothing happens
        assertThat(hello("a")).isEqualTo("hello a");
        link.cut();
        link.cut();
        assertThat(link.isCut()).isTrue();
        // the client's idle keep-alive connection was dropped: this request finds out (as a real client would)
        assertTimeoutPreemptively(
                FAST, () -> assertThatThrownBy(() -> hello("cut")).isInstanceOf(IOException.class));
        link.restore();
        link.restore();
        assertThat(link.isCut()).isFalse();
        assertThat(hello("b")).isEqualTo("hello b");
    }

    @Test
    void resetDropsOpenConnectionsOnceAndKeepsRelaying() throws Exception {
        BufferedReader stream = openStream();
        int opened = streamsOpened.get();

        link.reset();
        assertThat(link.isCut()).isFalse();
        assertTimeoutPreemptively(
                FAST, () -> assertThatThrownBy(stream::readLine).isInstanceOf(IOException.class));

        assertThat(hello("after reset")).isEqualTo("hello after reset");
        BufferedReader again = openStream();
        assertThat(streamsOpened.get()).isEqualTo(opened + 1);
        releaseStreams.countDown();
        assertThat(again.readLine()).isEqualTo("last");
    }

    @Test
    void aClientClosingItsConnectionIsForgotten() throws Exception {
        HttpClient shortLived =
                HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        HttpResponse<String> r = shortLived.send(
                HttpRequest.newBuilder(uri("/hello"))
                        .POST(HttpRequest.BodyPublishers.ofString("x"))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.body()).isEqualTo("hello x");
        assertThat(link.openConnections()).isEqualTo(1);
        shortLived.close(); // closes its idle connection: the relay passes the close on and forgets it
        eventually().until(() -> link.openConnections() == 0);
    }

    @Test
    void aTargetThatRefusesConnectionsFailsTheClientFast() throws Exception {
        // the JVM's first HTTP exchange loads the client's classes, which on a busy machine can take longer than FAST
        assertThat(hello("warm-up")).isEqualTo("hello warm-up");
        InetSocketAddress nobody;
        try (var s = new java.net.ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            nobody = new InetSocketAddress(InetAddress.getLoopbackAddress(), s.getLocalPort());
        }
        try (NetworkLink dead = NetworkLink.open("dead", nobody)) {
            URI u = URI.create("http://127.0.0.1:" + dead.port() + "/hello");
            assertTimeoutPreemptively(FAST, () -> assertThatThrownBy(
                            () -> http.send(HttpRequest.newBuilder(u).build(), HttpResponse.BodyHandlers.ofString()))
                    .isInstanceOf(IOException.class));
            eventually().until(() -> dead.openConnections() == 0);
        }
    }

    @Test
    void closeEndsEveryThreadAndIsIdempotent(@TempDir Path dir) throws Exception {
        BufferedReader stream = openStream();
        assertThat(hello("x")).isEqualTo("hello x");
        assertThat(threadDump(dir.resolve("before.txt"))).contains("\"link-test-accept\"", "\"link-test-1-up\"");

        link.close();
        link.close();
        assertThat(link.openConnections()).isZero();
        assertTimeoutPreemptively(
                FAST, () -> assertThatThrownBy(stream::readLine).isInstanceOf(IOException.class));
        assertThat(threadDump(dir.resolve("after.txt")))
                .as("no thread of the link survives close()")
                .doesNotContain("\"link-test-");
        assertTimeoutPreemptively(
                FAST, () -> assertThatThrownBy(() -> hello("closed")).isInstanceOf(IOException.class));
    }

    @Test
    void refusesBadArguments() {
        assertThatThrownBy(() -> NetworkLink.open(" ", server.getAddress()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("name");
        assertThatThrownBy(() -> NetworkLink.open("x", InetSocketAddress.createUnresolved("nowhere.invalid", 80)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unresolved");
    }

    /** A thread dump that lists virtual threads too (Thread.getAllStackTraces does not). */
    private static String threadDump(Path file) throws IOException {
        ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class)
                .dumpThreads(file.toString(), HotSpotDiagnosticMXBean.ThreadDumpFormat.TEXT_PLAIN);
        return Files.readString(file);
    }
}
