package io.kubeloop.apiserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kubeloop.apiserver.internal.server.ConnectionLimits;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The connection limits ({@link ConnectionLimits}) hold against slow and greedy clients. Runs in its own
 * surefire execution (see the pom) whose JVM sets the JDK server's limits low before any server exists — 1 s to
 * send a request, 20 connections — because the JDK reads them once per JVM. The request-time limit is enforced
 * by the JDK's own timer thread on the wall clock (no injectable clock reaches it), hence Awaitility with a bound.
 */
class ConnectionLimitsIT {

    private static EmbeddedApiServer server;

    @BeforeAll
    static void start() {
        server = EmbeddedApiServer.builder().start();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    void theLimitsOfThisJvmAreTheOnesItSetNotKubeloopsDefaults() {
        assertThat(System.getProperty(ConnectionLimits.MAX_REQUEST_TIME_PROPERTY))
                .isEqualTo("1");
        assertThat(System.getProperty(ConnectionLimits.MAX_CONNECTIONS_PROPERTY))
                .isEqualTo("20");
    }

    @Test
    void aClientThatNeverFinishesItsHeadersIsDisconnected() throws IOException {
        try (Socket slow = connect()) {
            OutputStream out = slow.getOutputStream();
            out.write("GET /api/v1/namespaces HTTP/1.1\r\nHost: localhost\r\nX-Slow: "
                    .getBytes(StandardCharsets.US_ASCII)); // and never the end of the headers
            out.flush();
            slow.setSoTimeout(200);
            await().atMost(Duration.ofSeconds(15)).until(() -> closedByServer(slow));
        }
        assertThat(get("/readyz")).startsWith("HTTP/1.1 200");
    }

    @Test
    void connectionsBeyondTheCapAreClosedAndTheServerServesAgainOnceSomeAreGone() throws IOException {
        List<Socket> held = new ArrayList<>();
        try {
            for (int i = 0; i < 25; i++) { // bounded: 5 beyond the cap
                held.add(connect());
            }
            Socket last = held.get(held.size() - 1);
            last.setSoTimeout(200);
            await().atMost(Duration.ofSeconds(10)).until(() -> closedByServer(last));
        } finally {
            for (Socket s : held) {
                s.close();
            }
        }
        await().atMost(Duration.ofSeconds(15)).ignoreExceptions().until(() -> get("/readyz")
                .startsWith("HTTP/1.1 200"));
    }

    private static Socket connect() throws IOException {
        return new Socket(InetAddress.getLoopbackAddress(), server.port());
    }

    /** Whether the server closed {@code socket}: a read sees the end of the stream (or a reset). */
    private static boolean closedByServer(Socket socket) {
        try {
            InputStream in = socket.getInputStream();
            return in.read() == -1;
        } catch (SocketTimeoutException stillOpen) {
            return false;
        } catch (IOException reset) {
            return true;
        }
    }

    private static String get(String path) throws IOException {
        try (Socket s = connect()) {
            s.setSoTimeout(5000);
            s.getOutputStream()
                    .write(("GET " + path + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
                            .getBytes(StandardCharsets.US_ASCII));
            String line =
                    new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII)).readLine();
            return line == null ? "" : line;
        }
    }
}
