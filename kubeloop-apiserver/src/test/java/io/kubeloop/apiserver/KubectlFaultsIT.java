package io.kubeloop.apiserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kubeloop.apiserver.fault.Failure;
import io.kubeloop.clock.FakeClock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the real kubectl sees of injected faults. */
class KubectlFaultsIT {

    private static final String POD = """
            {"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s"},"spec":{"containers":[{"name":"c","image":"nginx"}]}}
            """;

    @TempDir
    Path dir;

    private EmbeddedApiServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    private Kubectl kubectl(EmbeddedApiServer.Builder builder) {
        Kubectl.assumeInstalled();
        server = builder.start();
        return new Kubectl(server, dir);
    }

    @Test
    void getFailsWithTheInjectedStatusAndWorksAfterClear() throws Exception {
        Kubectl kubectl = kubectl(EmbeddedApiServer.builder());
        kubectl.runWithInput(POD.formatted("web"), "create", "-f", "-").ok();

        server.faults().fail(Failure.status(503).resource("pods"));
        Kubectl.Result unavailable = kubectl.run("get", "pods");
        assertThat(unavailable.exit()).isEqualTo(1);
        assertThat(unavailable.err())
                .contains("Error from server (ServiceUnavailable): the server is currently "
                        + "unable to handle the request (injected by kubeloop)");
        assertThat(kubectl.run("get", "secrets").ok().err()).contains("No resources found");

        server.faults().clear();
        server.faults().fail(Failure.status(500).verb("get"));
        Kubectl.Result internal = kubectl.run("get", "pod", "web");
        assertThat(internal.exit()).isEqualTo(1);
        assertThat(internal.err())
                .contains("Error from server (InternalError): Internal error occurred: injected by kubeloop");
        assertThat(kubectl.run("get", "pods").ok().out())
                .as("list is not in scope")
                .contains("web");

        server.faults().clear();
        assertThat(kubectl.run("get", "pod", "web").ok().out()).contains("web");
    }

    @Test
    void clientGoRetriesA429ThatCarriesRetryAfter() throws Exception {
        Kubectl kubectl = kubectl(EmbeddedApiServer.builder());
        server.faults()
                .fail(Failure.status(429)
                        .count(2)
                        .retryAfterSeconds(1)
                        .resource("pods")
                        .verb("list"));
        assertThat(kubectl.run("get", "pods").ok().err()).contains("No resources found");
        assertThat(server.faults().active()).as("both failures were used").isEmpty();
    }

    @Test
    void aWatchEndsWhenItsWatchesAreClosed() throws Exception {
        Kubectl kubectl = kubectl(EmbeddedApiServer.builder());
        Path out = dir.resolve("watch.txt");
        Process watch = kubectl.start(out, "get", "pods", "-w", "-o", "name");
        try {
            await().atMost(Duration.ofSeconds(30)).until(() -> server.faults().closeWatches("pods") == 1);
            assertThat(watch.waitFor(30, TimeUnit.SECONDS))
                    .as("kubectl exits when its watch ends")
                    .isTrue();
            assertThat(watch.exitValue()).isZero();
        } finally {
            watch.destroyForcibly();
        }
    }

    @Test
    void aWatchSeesEventsHeldByAStallOnceItEnds() throws Exception {
        FakeClock clock = new FakeClock();
        Kubectl kubectl = kubectl(EmbeddedApiServer.builder().clock(clock));
        Path out = dir.resolve("watch.txt");
        Process watch = kubectl.start(out, "get", "pods", "-w", "-o", "name");
        try {
            kubectl.runWithInput(POD.formatted("first"), "create", "-f", "-").ok();
            await().atMost(Duration.ofSeconds(30)).until(() -> read(out).contains("pod/first"));

            server.faults().stall(Duration.ofSeconds(60));
            kubectl.runWithInput(POD.formatted("held"), "create", "-f", "-").ok();
            await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5)).until(() -> !read(out)
                    .contains("pod/held"));
            clock.step(Duration.ofSeconds(60));
            await().atMost(Duration.ofSeconds(30)).until(() -> read(out).contains("pod/held"));
            assertThat(watch.isAlive()).isTrue();
        } finally {
            watch.destroyForcibly();
            watch.waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void aWatchSeesEventsHeldByAPartitionOnceItEnds() throws Exception {
        FakeClock clock = new FakeClock();
        Kubectl kubectl = kubectl(EmbeddedApiServer.builder().clock(clock));
        ApiClient other = new ApiClient(server.url()); // java.net.http: not cut off by a kubectl partition
        Path out = dir.resolve("watch.txt");
        Process watch = kubectl.start(out, "get", "pods", "-w", "-o", "name");
        try {
            other.create("/api/v1/namespaces/default/pods", POD.formatted("first"));
            await().atMost(Duration.ofSeconds(30)).until(() -> read(out).contains("pod/first"));

            server.faults().partition(Duration.ofSeconds(30), "kubectl");
            other.create("/api/v1/namespaces/default/pods", POD.formatted("during"));
            await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5)).until(() -> !read(out)
                    .contains("pod/during"));
            Kubectl.Result[] held = new Kubectl.Result[1];
            Thread get = Thread.ofVirtual().start(() -> {
                try {
                    held[0] = kubectl.run("get", "pods", "-o", "name");
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5)).until(get::isAlive);

            clock.step(Duration.ofSeconds(30));
            await().atMost(Duration.ofSeconds(30)).until(() -> read(out).contains("pod/during"));
            assertThat(get.join(Duration.ofSeconds(30)))
                    .as("the held request answers once the cable is back")
                    .isTrue();
            assertThat(held[0].ok().out()).contains("pod/first").contains("pod/during");
            assertThat(watch.isAlive()).as("the watch survived the partition").isTrue();
        } finally {
            watch.destroyForcibly();
            watch.waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void aWatchThatCannotStartShowsTheInjectedStatus() throws Exception {
        Kubectl kubectl = kubectl(EmbeddedApiServer.builder());
        server.faults().fail(Failure.status(503).resource("pods").verb("watch"));
        Kubectl.Result watch = kubectl.run("get", "pods", "-w", "--request-timeout=20s");
        assertThat(watch.exit()).isEqualTo(1);
        assertThat(watch.err()).contains("the server is currently unable to handle the request");

        server.faults().clear();
        Path out = dir.resolve("watch.txt");
        Process after = kubectl.start(out, "get", "pods", "-w", "-o", "name");
        try {
            await().atMost(Duration.ofSeconds(30)).until(() -> server.faults().closeWatches("pods") == 1);
            assertThat(after.waitFor(30, TimeUnit.SECONDS))
                    .as("the watch opened once the fault was cleared")
                    .isTrue();
            assertThat(after.exitValue()).isZero();
        } finally {
            after.destroyForcibly();
        }
    }

    @Test
    void latencyHoldsKubectlUntilItHasPassed() throws Exception {
        FakeClock clock = new FakeClock();
        Kubectl kubectl = kubectl(EmbeddedApiServer.builder().clock(clock));
        server.faults()
                .latency(io.kubeloop.apiserver.fault.Latency.of(Duration.ofSeconds(10))
                        .resource("pods"));
        Kubectl.Result[] result = new Kubectl.Result[1];
        Thread get = Thread.ofVirtual().start(() -> {
            try {
                result[0] = kubectl.run("get", "pods");
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5)).until(get::isAlive);
        await().atMost(Duration.ofSeconds(10)).until(clock::hasWaiters);
        clock.step(Duration.ofSeconds(10));
        assertThat(get.join(Duration.ofSeconds(30))).isTrue();
        assertThat(result[0].ok().err()).contains("No resources found");

        server.faults().clear();
        assertThat(kubectl.run("get", "pods").ok().err())
                .as("no delay once cleared")
                .contains("No resources found");
    }

    @Test
    void afterACompactionAWatchFromAnOldResourceVersionGets410() throws Exception {
        Kubectl kubectl = kubectl(EmbeddedApiServer.builder());
        kubectl.runWithInput(POD.formatted("web"), "create", "-f", "-").ok();
        String path = "/api/v1/namespaces/default/pods?watch=1&resourceVersion=1&timeoutSeconds=5";
        assertThat(kubectl.run("get", "--raw", path).ok().out())
                .as("before: the history is there")
                .contains("\"type\":\"ADDED\"")
                .doesNotContain("\"code\":410");

        server.faults().compact();
        assertThat(kubectl.run("get", "--raw", path).ok().out())
                .contains("\"type\":\"ERROR\"")
                .contains("\"code\":410")
                .contains("\"reason\":\"Expired\"");
        assertThat(kubectl.run("get", "pods", "-o", "name").ok().out())
                .as("a fresh list is unaffected")
                .contains("pod/web");
    }

    private static String read(Path file) throws java.io.IOException {
        return Files.readString(file, StandardCharsets.UTF_8);
    }
}
