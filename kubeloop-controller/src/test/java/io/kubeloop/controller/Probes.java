package io.kubeloop.controller;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** Small helpers of the manager's tests: HTTP GETs on the manager's endpoints, captured logs, live threads. */
final class Probes {

    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private Probes() {}

    record Answer(int status, String body) {}

    static Answer get(int port, String pathAndQuery) throws Exception {
        HttpResponse<String> r = HTTP.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + pathAndQuery))
                        .timeout(Duration.ofSeconds(10))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        return new Answer(r.statusCode(), r.body());
    }

    /** What slf4j-simple writes (to System.err, looked up at every line) while captured; still echoed. */
    static final class CapturedLog implements AutoCloseable {
        private final PrintStream original = System.err;
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

        CapturedLog() {
            PrintStream tee = new PrintStream(
                    new java.io.OutputStream() {
                        @Override
                        public void write(int b) {
                            synchronized (bytes) {
                                bytes.write(b);
                            }
                            original.write(b);
                        }

                        @Override
                        public void write(byte[] b, int off, int len) {
                            synchronized (bytes) {
                                bytes.write(b, off, len);
                            }
                            original.write(b, off, len);
                        }
                    },
                    true,
                    StandardCharsets.UTF_8);
            System.setErr(tee);
        }

        String text() {
            synchronized (bytes) {
                return bytes.toString(StandardCharsets.UTF_8);
            }
        }

        List<String> lines(String containing) {
            return text().lines().filter(l -> l.contains(containing)).toList();
        }

        @Override
        public void close() {
            System.setErr(original);
        }
    }

    /** The live platform threads now (virtual threads are not listed by the JVM). */
    static Set<Thread> liveThreads() {
        return new HashSet<>(Thread.getAllStackTraces().keySet());
    }

    /**
     * The threads alive now that were not in {@code before}, but the JVM's common pool and the test's own: HTTP
     * client workers (the JDK's HttpClient keeps idle workers for a minute, the probes' client and the Kubernetes
     * client alike) and Awaitility's poller.
     */
    static List<String> newThreads(Set<Thread> before) {
        return liveThreads().stream()
                .filter(t -> !before.contains(t) && t.isAlive())
                .map(Thread::getName)
                // the JDK's own: virtual-thread carriers and I/O pollers (started by the JVM's first blocking I/O
                // on a virtual thread, which may be this test's when it runs first in its JVM), the attach listener
                .filter(n -> !n.startsWith("ForkJoinPool")
                        && !n.equals("MasterPoller")
                        && !n.endsWith("-Poller")
                        && !n.equals("Attach Listener")
                        && !n.startsWith("HttpClient-")
                        && !n.startsWith("awaitility"))
                .sorted()
                .toList();
    }
}
