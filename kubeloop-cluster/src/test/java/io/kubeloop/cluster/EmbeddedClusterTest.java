package io.kubeloop.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Node;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.client.config.ClientConfig;
import io.kubeloop.clock.FakeClock;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.NoSuchElementException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** The assembly: start, the nodes and the admin path over HTTP, restarting the controllers, close. */
class EmbeddedClusterTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final FakeClock clock = new FakeClock();
    private static EmbeddedCluster cluster;
    private static KubernetesClient client;

    @BeforeAll
    static void start() {
        cluster = EmbeddedCluster.builder().nodes(3).clock(clock).start();
        client = KubernetesClient.create(
                ClientConfig.builder().server(cluster.apiServer().url()).build());
    }

    @AfterAll
    static void stop() {
        client.close();
        cluster.close();
    }

    private record Answer(int code, JsonNode json) {}

    private static Answer admin(String method, String path) throws IOException, InterruptedException {
        HttpResponse<String> response;
        try (HttpClient http = HttpClient.newHttpClient()) {
            response = http.send(
                    HttpRequest.newBuilder(URI.create(cluster.apiServer().url() + "/kubeloop/cluster" + path))
                            .method(method, HttpRequest.BodyPublishers.noBody())
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
        }
        return new Answer(response.statusCode(), JSON.readTree(response.body()));
    }

    @Test
    void startReturnsWithEveryNodeReadyOnTheGivenClock() {
        assertThat(cluster.clock()).isSameAs(clock);
        assertThat(cluster.timings()).isEqualTo(ClusterTimings.DEFAULTS);
        assertThat(cluster.nodes()).extracting(SimulatedNode::name).containsExactly("node-1", "node-2", "node-3");
        assertThat(client.resources(Node.class).list().items())
                .extracting(n -> n.getMetadata().getName())
                .containsExactlyInAnyOrder("node-1", "node-2", "node-3");
        assertThat(client.resources(Node.class).list().items()).allSatisfy(n -> assertThat(
                        n.getStatus().getConditions())
                .anySatisfy(c -> assertThat(c.getType() + "=" + c.getStatus()).isEqualTo("Ready=True")));
        assertThatThrownBy(() -> cluster.node("node-9")).isInstanceOf(NoSuchElementException.class);
    }

    @Test
    void theAdminPathListsStopsPartitionsAndStartsNodes() throws Exception {
        Answer root = admin("GET", "");
        assertThat(root.code()).isEqualTo(200);
        assertThat(root.json().path("speed").asDouble()).isEqualTo(1.0);
        assertThat(root.json().path("nodes")).hasSize(3);
        assertThat(root.json().path("controllers").path("healthy").asBoolean()).isTrue();

        Answer stopped = admin("POST", "/nodes/node-2/stop");
        assertThat(stopped.code()).isEqualTo(200);
        assertThat(stopped.json().path("state").asString()).isEqualTo("STOPPED");
        assertThat(cluster.node("node-2").state()).isEqualTo(SimulatedNode.State.STOPPED);
        Answer partitionStopped = admin("POST", "/nodes/node-2/partition?seconds=30");
        assertThat(partitionStopped.code()).isEqualTo(400);
        assertThat(partitionStopped.json().path("message").asString()).contains("node-2 is stopped");
        assertThat(admin("POST", "/nodes/node-3/partition?seconds=30")
                        .json()
                        .path("state")
                        .asString())
                .isEqualTo("PARTITIONED");
        assertThat(admin("POST", "/nodes/node-2/start").json().path("state").asString())
                .isEqualTo("RUNNING");
        assertThat(admin("POST", "/nodes/node-3/start").json().path("state").asString())
                .isEqualTo("RUNNING");
        assertThat(admin("GET", "/nodes").json().path("items").findValuesAsString("state"))
                .containsOnly("RUNNING");
        assertThat(admin("GET", "/nodes/node-1").json().path("zone").asString()).isEqualTo("zone-a");
    }

    @Test
    void theAdminPathSaysWhatIsWrong() throws Exception {
        Answer unknown = admin("POST", "/nodes/node-9/stop");
        assertThat(unknown.code()).isEqualTo(404);
        assertThat(unknown.json().path("message").asString())
                .contains("node \"node-9\" not found; the cluster's nodes are node-1, node-2, node-3");
        Answer badSeconds = admin("POST", "/nodes/node-1/partition?seconds=soon");
        assertThat(badSeconds.code()).isEqualTo(400);
        assertThat(badSeconds.json().path("message").asString()).contains("seconds must be a number, was \"soon\"");
        Answer wrongMethod = admin("GET", "/nodes/node-1/stop");
        assertThat(wrongMethod.code()).isEqualTo(405);
        assertThat(wrongMethod.json().path("message").asString()).contains("only POST");
        assertThat(admin("POST", "/frobnicate").code()).isEqualTo(404);
        assertThat(cluster.node("node-1").state()).isEqualTo(SimulatedNode.State.RUNNING);
    }

    @Test
    void restartingTheControllersStartsANewControlPlane() throws Exception {
        int before =
                admin("GET", "").json().path("controllers").path("generation").asInt();
        cluster.restartControllers();
        Answer after = admin("GET", "");
        assertThat(after.json().path("controllers").path("generation").asInt()).isEqualTo(before + 1);
        assertThat(after.json().path("controllers").path("healthy").asBoolean()).isTrue();
        assertThat(admin("POST", "/controllers/restart")
                        .json()
                        .path("generation")
                        .asInt())
                .isEqualTo(before + 2);
    }

    @Test
    void closeStopsTheServerAndIsIdempotent() {
        EmbeddedCluster other = EmbeddedCluster.builder().nodes(1).start();
        URI url = other.apiServer().url();
        assertThat(listening(url)).isTrue();
        other.close();
        other.close();
        await().atMost(Duration.ofSeconds(5)).until(() -> !listening(url));
        assertThatThrownBy(other::restartControllers)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
    }

    private static boolean listening(URI url) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(url.getHost(), url.getPort()), 1000);
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
