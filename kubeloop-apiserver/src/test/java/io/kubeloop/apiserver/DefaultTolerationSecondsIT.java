package io.kubeloop.apiserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The DefaultTolerationSeconds admission plugin with the server's settings ({@code defaultTolerationSeconds(30,
 * 60)}), over real HTTP: which tolerations count as tolerating a taint already (kube's rule: key the taint's or
 * empty, effect NoExecute or empty, any operator), that updates get them too, and that they are nobody's fields.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DefaultTolerationSecondsIT {

    private static final String PODS = "/api/v1/namespaces/default/pods";

    private EmbeddedApiServer server;
    private ApiClient api;

    @BeforeAll
    void start() {
        server = EmbeddedApiServer.builder().defaultTolerationSeconds(30, 60).start();
        api = new ApiClient(server.url());
    }

    @AfterAll
    void stop() {
        server.close();
    }

    private JsonNode create(String name, String tolerations) {
        return api.create(
                PODS,
                "{\"metadata\":{\"name\":\"" + name
                        + "\"},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"nginx\"}]"
                        + (tolerations == null ? "" : ",\"tolerations\":" + tolerations) + "}}");
    }

    private static List<String> tolerations(JsonNode pod) {
        return StreamSupport.stream(pod.at("/spec/tolerations").spliterator(), false)
                .map(t -> t.path("key").asString("") + ":" + t.path("operator").asString("") + ":"
                        + t.path("effect").asString("") + ":"
                        + t.path("tolerationSeconds").asString(""))
                .toList();
    }

    @Test
    void aPodGetsTheConfiguredSecondsAsNobodysFields() {
        JsonNode pod = create("plain", null);
        assertThat(tolerations(pod))
                .containsExactly(
                        "node.kubernetes.io/not-ready:Exists:NoExecute:30",
                        "node.kubernetes.io/unreachable:Exists:NoExecute:60");
        // kube's field manager records the write before mutating admission runs
        assertThat(pod.at("/metadata/managedFields/0/fieldsV1/f:spec").has("f:tolerations"))
                .isFalse();
    }

    /** The tolerations a pod brings, then the tolerations it is stored with (key:operator:effect:seconds). */
    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "[{\"operator\":\"Exists\"}]|:Exists::",
                "[{\"operator\":\"Exists\",\"effect\":\"NoExecute\"}]|:Exists:NoExecute:",
                "[{\"operator\":\"Exists\",\"effect\":\"NoSchedule\"}]|:Exists:NoSchedule:,"
                        + "node.kubernetes.io/not-ready:Exists:NoExecute:30,node.kubernetes.io/unreachable:Exists:NoExecute:60",
                "[{\"key\":\"node.kubernetes.io/not-ready\",\"operator\":\"Equal\",\"value\":\"x\"}]|"
                        + "node.kubernetes.io/not-ready:Equal::,node.kubernetes.io/unreachable:Exists:NoExecute:60",
                "[{\"key\":\"node.kubernetes.io/unreachable\",\"operator\":\"Exists\",\"effect\":\"NoExecute\","
                        + "\"tolerationSeconds\":5}]|node.kubernetes.io/unreachable:Exists:NoExecute:5,"
                        + "node.kubernetes.io/not-ready:Exists:NoExecute:30",
                "[{\"key\":\"example.com/other\",\"operator\":\"Exists\",\"effect\":\"NoExecute\"}]|"
                        + "example.com/other:Exists:NoExecute:,node.kubernetes.io/not-ready:Exists:NoExecute:30,"
                        + "node.kubernetes.io/unreachable:Exists:NoExecute:60"
            })
    void aPodThatToleratesTheTaintAlreadyIsLeftAlone(String given, String stored) {
        JsonNode pod = create("t-" + Integer.toHexString(given.hashCode()), given);
        assertThat(tolerations(pod)).containsExactly(stored.split(","));
    }

    @Test
    void anUpdateThatDropsThemGetsThemBack() {
        ObjectNode pod = (ObjectNode) create("replaced", null);
        ((ObjectNode) pod.get("spec")).remove("tolerations");
        ApiClient.Reply r = api.put(PODS + "/replaced", pod.toString());
        assertThat(r.code()).as(r.raw()).isEqualTo(200);
        assertThat(tolerations(r.body())).hasSize(2);
    }

    @Test
    void negativeSecondsAreRefused() {
        assertThatThrownBy(() -> EmbeddedApiServer.builder().defaultTolerationSeconds(-1, 300))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("notReady=-1");
    }
}
