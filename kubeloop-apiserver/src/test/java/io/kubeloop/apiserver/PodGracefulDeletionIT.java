package io.kubeloop.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubeloop.apiserver.ApiClient.Reply;
import io.kubeloop.clock.FakeClock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Graceful pod deletion on a fake clock: a bound pod is removed once its grace period has passed on the
 * server's clock (the server plays the kubelet), or at once with grace 0 or when it is not bound.
 */
class PodGracefulDeletionIT extends EmbeddedServerTest {

    private static final Instant T0 = Instant.parse("2026-03-01T10:00:00Z");
    private static final String PODS = "/api/v1/namespaces/default/pods";

    private final FakeClock clock = new FakeClock(T0);

    @Override
    EmbeddedApiServer.Builder configure(EmbeddedApiServer.Builder builder) {
        return builder.clock(clock);
    }

    /** A pod; {@code node} null for an unscheduled one, {@code extraSpec} e.g. a grace period. */
    private JsonNode pod(String name, String node, String extraSpec, String extraMeta) {
        return api.create(
                PODS,
                "{\"metadata\":{\"name\":\"" + name + "\"" + extraMeta + "},\"spec\":{"
                        + (node == null ? "" : "\"nodeName\":\"" + node + "\",") + extraSpec
                        + "\"containers\":[{\"name\":\"app\",\"image\":\"nginx\"}]}}");
    }

    private boolean gone(String name) {
        return api.get(PODS + "/" + name).code() == 404;
    }

    @Test
    void aBoundPodIsKeptForItsGracePeriodAndRemovedWhenItEnds() throws Exception {
        JsonNode created = pod("web", "node-1", "", "");
        try (ApiClient.Watch watch = api.watch(PODS + "?watch=true&resourceVersion="
                + created.get("metadata").get("resourceVersion").asString())) {
            Reply deleted = api.delete(PODS + "/web");
            assertThat(deleted.code()).isEqualTo(200);
            JsonNode meta = deleted.body().get("metadata");
            assertThat(meta.get("deletionGracePeriodSeconds").asLong())
                    .as("kube's default")
                    .isEqualTo(30);
            assertThat(meta.get("deletionTimestamp").asString())
                    .isEqualTo(T0.plusSeconds(30).toString());
            assertThat(watch.next().get("type").asString()).isEqualTo("MODIFIED");

            clock.step(Duration.ofSeconds(29));
            assertThat(api.get(PODS + "/web").code())
                    .as("still in its grace period")
                    .isEqualTo(200);
            clock.step(Duration.ofSeconds(1));
            eventually().until(() -> gone("web"));
            assertThat(watch.next().get("type").asString()).isEqualTo("DELETED");
        }
    }

    @Test
    void theGracePeriodComesFromTheOptionsElseTheSpec() {
        pod("spec", "node-1", "\"terminationGracePeriodSeconds\":5,", "");
        assertThat(api.delete(PODS + "/spec")
                        .body()
                        .get("metadata")
                        .get("deletionGracePeriodSeconds")
                        .asLong())
                .isEqualTo(5);
        pod("query", "node-1", "\"terminationGracePeriodSeconds\":5,", "");
        assertThat(api.delete(PODS + "/query?gracePeriodSeconds=12")
                        .body()
                        .get("metadata")
                        .get("deletionGracePeriodSeconds")
                        .asLong())
                .isEqualTo(12);
        pod("body", "node-1", "", "");
        Reply body = api.request("DELETE", PODS + "/body", "application/json", "{\"gracePeriodSeconds\":7}");
        assertThat(body.body().get("metadata").get("deletionGracePeriodSeconds").asLong())
                .isEqualTo(7);

        clock.step(Duration.ofSeconds(5));
        eventually().until(() -> gone("spec"));
        assertThat(gone("body")).isFalse();
        clock.step(Duration.ofSeconds(2));
        eventually().until(() -> gone("body"));
        assertThat(gone("query")).isFalse();
        clock.step(Duration.ofSeconds(5));
        eventually().until(() -> gone("query"));
    }

    @Test
    void aSecondDeleteMayShortenTheGracePeriodButNeverLengthenIt() {
        pod("web", "node-1", "", "");
        api.delete(PODS + "/web?gracePeriodSeconds=60");
        JsonNode longer =
                api.delete(PODS + "/web?gracePeriodSeconds=120").body().get("metadata");
        assertThat(longer.get("deletionGracePeriodSeconds").asLong()).isEqualTo(60);
        assertThat(longer.get("deletionTimestamp").asString())
                .isEqualTo(T0.plusSeconds(60).toString());

        clock.step(Duration.ofSeconds(4));
        JsonNode shorter =
                api.delete(PODS + "/web?gracePeriodSeconds=10").body().get("metadata");
        assertThat(shorter.get("deletionGracePeriodSeconds").asLong()).isEqualTo(10);
        assertThat(shorter.get("deletionTimestamp").asString())
                .as("counted from the first delete")
                .isEqualTo(T0.plusSeconds(10).toString());
        clock.step(Duration.ofSeconds(6));
        eventually().until(() -> gone("web"));
    }

    @Test
    void graceZeroRemovesABoundPodAtOnceAlsoDuringItsGracePeriod() {
        pod("now", "node-1", "", "");
        assertThat(api.delete(PODS + "/now?gracePeriodSeconds=0").code()).isEqualTo(200);
        assertThat(gone("now")).isTrue();

        pod("later", "node-1", "", "");
        api.delete(PODS + "/later");
        assertThat(api.request("DELETE", PODS + "/later", "application/json", "{\"gracePeriodSeconds\":0}")
                        .code())
                .isEqualTo(200);
        assertThat(gone("later")).as("a forced delete during the grace period").isTrue();
    }

    @Test
    void unscheduledAndFinishedPodsAreRemovedAtOnce() {
        pod("pending", null, "", "");
        assertThat(api.delete(PODS + "/pending").code()).isEqualTo(200);
        assertThat(gone("pending")).isTrue();

        pod("done", "node-1", "", "");
        api.request(
                "PATCH",
                PODS + "/done/status",
                "application/merge-patch+json",
                "{\"status\":{\"phase\":\"Succeeded\"}}");
        api.delete(PODS + "/done");
        assertThat(gone("done")).isTrue();
    }

    @Test
    void finalizersHoldAPodAfterItsGracePeriod() {
        pod("held", "node-1", "", ",\"finalizers\":[\"example.com/hold\"]");
        api.delete(PODS + "/held?gracePeriodSeconds=5");
        clock.step(Duration.ofSeconds(5));
        eventually()
                .until(() -> api.get(PODS + "/held")
                                .body()
                                .get("metadata")
                                .get("deletionGracePeriodSeconds")
                                .asLong()
                        == 0);
        assertThat(gone("held")).isFalse();
        api.request("PATCH", PODS + "/held", "application/merge-patch+json", "{\"metadata\":{\"finalizers\":null}}");
        assertThat(gone("held")).isTrue();
    }

    @Test
    void removingTheFinalizersDuringTheGracePeriodLeavesThePodToItsGracePeriod() {
        pod("held", "node-1", "", ",\"finalizers\":[\"example.com/hold\"]");
        api.delete(PODS + "/held?gracePeriodSeconds=5");
        api.request("PATCH", PODS + "/held", "application/merge-patch+json", "{\"metadata\":{\"finalizers\":null}}");
        assertThat(gone("held")).as("the kubelet has not finished yet").isFalse();
        clock.step(Duration.ofSeconds(5));
        eventually().until(() -> gone("held"));
    }

    /**
     * A pod on an existing Node is that node's kubelet's to end (the embedded cluster's simulated kubelets do it):
     * the server leaves it terminating past its grace period, and finishes it once the Node is deleted.
     */
    @Test
    void aPodOnAnExistingNodeIsLeftToItsKubeletUntilTheNodeIsDeleted() {
        api.create("/api/v1/nodes", "{\"metadata\":{\"name\":\"real-node\"}}");
        pod("kept", "real-node", "\"terminationGracePeriodSeconds\":5,", "");
        pod("orphan", "no-such-node", "\"terminationGracePeriodSeconds\":5,", "");
        api.delete(PODS + "/kept");
        api.delete(PODS + "/orphan");
        clock.step(Duration.ofSeconds(6));
        eventually().until(() -> gone("orphan"));
        // the orphan went through the same queue after the same step: the kept pod was looked at and left
        org.awaitility.Awaitility.await()
                .during(Duration.ofMillis(200))
                .atMost(Duration.ofSeconds(5))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> api.get(PODS + "/kept").code() == 200);

        assertThat(api.delete("/api/v1/nodes/real-node").code()).isEqualTo(200);
        eventually().until(() -> gone("kept"));
    }
}
