package io.kubeloop.client.watch;

import static io.kubeloop.client.watch.Streams.EXPIRED;
import static io.kubeloop.client.watch.Streams.bookmark;
import static io.kubeloop.client.watch.Streams.pod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.kubeloop.model.WatchEventType;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.json.JsonMapper;

class WatchEventDecoderTest {

    private static final String ALL = String.join(
                    "\n",
                    pod("ADDED", "a", "10"),
                    pod("MODIFIED", "a", "11"),
                    bookmark("12", false),
                    pod("DELETED", "a", "13"),
                    bookmark("14", true),
                    EXPIRED)
            + "\n";

    static <T> List<WatchEvent<T>> drain(WatchEventDecoder<T> decoder) {
        List<WatchEvent<T>> events = new ArrayList<>();
        for (WatchEvent<T> e = decoder.next(); e != null; e = decoder.next()) {
            events.add(e);
        }
        return events;
    }

    @Test
    void decodesEveryEventTypeAsKubeApiserverWritesThem() {
        List<WatchEvent<Pod>> events = drain(WatchEventDecoder.of(Streams.of(ALL), Pod.class));

        assertThat(events)
                .extracting(WatchEvent::type)
                .containsExactly(
                        WatchEventType.ADDED,
                        WatchEventType.MODIFIED,
                        WatchEventType.BOOKMARK,
                        WatchEventType.DELETED,
                        WatchEventType.BOOKMARK,
                        WatchEventType.ERROR);
        Pod added = ((WatchEvent.Change<Pod>) events.get(0)).object();
        assertThat(added.getMetadata().getName()).isEqualTo("a");
        assertThat(added.getMetadata().getResourceVersion()).isEqualTo("10");
        assertThat(added.getMetadata().getLabels()).containsEntry("app", "web");
        assertThat(added.getSpec().getContainers().get(0).getImage()).isEqualTo("nginx:1.27");
        assertThat(added.getStatus().getPhase()).isEqualTo("Pending");
        assertThat(((WatchEvent.Change<Pod>) events.get(3))
                        .object()
                        .getMetadata()
                        .getResourceVersion())
                .isEqualTo("13");
        assertThat(events.get(2)).isEqualTo(new WatchEvent.Bookmark<Pod>("12", false));
        assertThat(events.get(4)).isEqualTo(new WatchEvent.Bookmark<Pod>("14", true));
        WatchEvent.Error<Pod> error = (WatchEvent.Error<Pod>) events.get(5);
        assertThat(error.status().getCode()).isEqualTo(410);
        assertThat(error.status().getReason()).isEqualTo("Expired");
        assertThat(error.status().getMessage()).isEqualTo("too old resource version: 5 (99)");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "\n", "\r\n", " \t ", "\n\n"})
    void eventsMayBeConcatenatedOrSeparatedByAnyWhitespace(String separator) {
        String stream = String.join(separator, pod("ADDED", "a", "1"), bookmark("2", false), pod("DELETED", "a", "3"));

        List<WatchEvent<Pod>> events = drain(WatchEventDecoder.of(Streams.of(stream), Pod.class));

        assertThat(events)
                .extracting(WatchEvent::type)
                .containsExactly(WatchEventType.ADDED, WatchEventType.BOOKMARK, WatchEventType.DELETED);
    }

    @Test
    void oneByteAtATimeDecodesTheSameEvents() {
        List<WatchEvent<Pod>> whole = drain(WatchEventDecoder.of(Streams.of(ALL), Pod.class));
        List<WatchEvent<Pod>> bytewise = drain(WatchEventDecoder.of(Streams.chunked(ALL, 1), Pod.class));

        assertThat(bytewise).isEqualTo(whole).hasSize(6);
    }

    @Test
    void aPlainJsonMapperDecodesFabric8ModelClasses() {
        String withUnknown = pod("ADDED", "a", "1").replace("\"labels\"", "\"futureField\":{\"x\":1},\"labels\"");

        WatchEvent<Pod> event = WatchEventDecoder.of(
                        Streams.of(withUnknown), Pod.class, JsonMapper.builder().build())
                .next();

        Pod pod = ((WatchEvent.Change<Pod>) event).object();
        assertThat(pod.getKind()).isEqualTo("Pod");
        assertThat(pod.getMetadata().getResourceVersion()).isEqualTo("1");
        assertThat(pod.getSpec().getContainers())
                .singleElement()
                .extracting(c -> c.getName())
                .isEqualTo("c");
        assertThat(pod.getMetadata().getAdditionalProperties()).containsKey("futureField");
    }

    @Test
    void genericResourcesKeepEveryField() {
        String cr = "{\"type\":\"ADDED\",\"object\":{\"apiVersion\":\"example.com/v1\",\"kind\":\"Widget\","
                + "\"metadata\":{\"name\":\"w\",\"resourceVersion\":\"7\"},\"spec\":{\"size\":3,\"tags\":[\"a\"]}}}";

        WatchEvent<GenericKubernetesResource> event = WatchEventDecoder.of(
                        Streams.of(cr), GenericKubernetesResource.class)
                .next();

        GenericKubernetesResource w = ((WatchEvent.Change<GenericKubernetesResource>) event).object();
        assertThat(w.getKind()).isEqualTo("Widget");
        assertThat(w.getMetadata().getResourceVersion()).isEqualTo("7");
        assertThat(w.getAdditionalProperties().get("spec")).isEqualTo(Map.of("size", 3, "tags", List.of("a")));
    }

    @Test
    void theObjectMayComeBeforeTheTypeAndUnknownMembersAreSkipped() {
        String reordered = "{\"object\":{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"b\"}},"
                + "\"extra\":[1,{\"x\":2}],\"type\":\"MODIFIED\"}"
                + "{\"object\":{\"kind\":\"Pod\",\"metadata\":{\"resourceVersion\":\"9\"}},\"type\":\"BOOKMARK\"}";

        List<WatchEvent<Pod>> events = drain(WatchEventDecoder.of(Streams.of(reordered), Pod.class));

        assertThat(((WatchEvent.Change<Pod>) events.get(0))
                        .object()
                        .getMetadata()
                        .getName())
                .isEqualTo("b");
        assertThat(events.get(0).type()).isEqualTo(WatchEventType.MODIFIED);
        assertThat(events.get(1)).isEqualTo(new WatchEvent.Bookmark<Pod>("9", false));
    }

    @Test
    void anEmptyStreamEndsAtOnceAndStaysEnded() {
        WatchEventDecoder<Pod> decoder = WatchEventDecoder.of(Streams.of(" \n"), Pod.class);

        assertThat(decoder.next()).isNull();
        assertThat(decoder.next()).isNull();
        assertThat(decoder.eventCount()).isZero();
    }

    @Test
    void aStreamCutInsideAnEventIsAnErrorNamingTheEventAndOffset() {
        String two = pod("ADDED", "a", "1") + "\n";
        String cut = two + pod("ADDED", "b", "2").substring(0, 60);
        WatchEventDecoder<Pod> decoder = WatchEventDecoder.of(Streams.of(cut), Pod.class);
        decoder.next();

        assertThatThrownBy(decoder::next)
                .isInstanceOfSatisfying(WatchDecodeException.class, e -> {
                    assertThat(e.index()).isEqualTo(2);
                    assertThat(e.byteOffset()).isEqualTo(cut.length());
                })
                .hasMessageContaining("watch event 2 (at byte " + cut.length() + ")")
                .hasMessageContaining("truncated");
        // The failure is sticky: never a silent end.
        assertThatThrownBy(decoder::next).isInstanceOf(WatchDecodeException.class);
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 5, 20, 40, 59, 80, 120})
    void aCutAnywhereInsideAnEventIsNeverASilentEnd(int length) {
        String cut = pod("MODIFIED", "a", "1").substring(0, length);

        assertThatThrownBy(() -> drain(WatchEventDecoder.of(Streams.chunked(cut, 3), Pod.class)))
                .isInstanceOf(WatchDecodeException.class)
                .hasMessageContaining("watch event 1");
    }

    @Test
    void malformedJsonIsAnError() {
        String bad = pod("ADDED", "a", "1") + "\n{\"type\":\"ADDED\",\"object\":{\"kind\":}}";

        assertThatThrownBy(() -> drain(WatchEventDecoder.of(Streams.of(bad), Pod.class)))
                .isInstanceOf(WatchDecodeException.class)
                .hasMessageContaining("watch event 2")
                .hasMessageContaining("malformed JSON");
    }

    @Test
    void unknownEventTypesAreAnError() {
        String sync = "{\"type\":\"SYNC\",\"object\":{\"kind\":\"Pod\"}}";

        assertThatThrownBy(() -> drain(WatchEventDecoder.of(Streams.of(sync), Pod.class)))
                .isInstanceOf(WatchDecodeException.class)
                .hasMessageContaining("unknown event type \"SYNC\"")
                .hasMessageContaining("watch event 1 (at byte");
    }

    @Test
    void eventsWithoutTypeOrObjectAreAnError() {
        assertThatThrownBy(() -> drain(WatchEventDecoder.of(Streams.of("{\"object\":{\"kind\":\"Pod\"}}"), Pod.class)))
                .isInstanceOf(WatchDecodeException.class)
                .hasMessageContaining("has no \"type\"");
        assertThatThrownBy(() -> drain(WatchEventDecoder.of(Streams.of("{\"type\":\"ADDED\"}"), Pod.class)))
                .isInstanceOf(WatchDecodeException.class)
                .hasMessageContaining("ADDED event has no \"object\"");
        assertThatThrownBy(() ->
                        drain(WatchEventDecoder.of(Streams.of("{\"type\":\"DELETED\",\"object\":null}"), Pod.class)))
                .isInstanceOf(WatchDecodeException.class)
                .hasMessageContaining("has a null \"object\"");
        assertThatThrownBy(() -> drain(WatchEventDecoder.of(Streams.of("{\"type\":7,\"object\":{}}"), Pod.class)))
                .isInstanceOf(WatchDecodeException.class)
                .hasMessageContaining("\"type\" must be a string");
        assertThatThrownBy(() -> drain(WatchEventDecoder.of(Streams.of("[{\"type\":\"ADDED\"}]"), Pod.class)))
                .isInstanceOf(WatchDecodeException.class)
                .hasMessageContaining("expected a watch event object, found an array");
        assertThatThrownBy(() -> drain(WatchEventDecoder.of(Streams.of(bookmark("", false)), Pod.class)))
                .isInstanceOf(WatchDecodeException.class)
                .hasMessageContaining("BOOKMARK event has no metadata.resourceVersion");
    }

    @Test
    void anObjectThatDoesNotFitTheTypeIsAnErrorNamingTheType() {
        String wrong = "{\"type\":\"ADDED\",\"object\":{\"kind\":\"Pod\",\"spec\":{\"containers\":\"nginx\"}}}";

        assertThatThrownBy(() -> drain(WatchEventDecoder.of(Streams.of(wrong), Pod.class)))
                .isInstanceOf(WatchDecodeException.class)
                .hasMessageContaining("watch event 1")
                .hasMessageContaining("does not decode to Pod");
    }

    @Test
    void aFailingStreamIsAWatchExceptionWithTheIOExceptionAsCause() {
        InputStream failing = new InputStream() {
            private final InputStream first = Streams.of(pod("ADDED", "a", "1"));

            @Override
            public int read() throws IOException {
                int b = first.read();
                if (b < 0) {
                    throw new IOException("connection reset");
                }
                return b;
            }
        };
        WatchEventDecoder<Pod> decoder = WatchEventDecoder.of(failing, Pod.class);
        assertThat(decoder.next()).isNotNull();

        assertThatThrownBy(decoder::next)
                .isExactlyInstanceOf(WatchException.class)
                .hasMessageContaining("reading the watch stream failed after 1 events")
                .hasRootCauseMessage("connection reset");
    }

    @Test
    void hugeObjectsDecodeWithoutLimits() {
        String big = "x".repeat(8 * 1024 * 1024);
        StringBuilder labels = new StringBuilder();
        for (int i = 0; i < 10_000; i++) {
            labels.append(i == 0 ? "" : ",")
                    .append("\"label-")
                    .append(i)
                    .append("\":\"v")
                    .append(i)
                    .append('"');
        }
        String stream =
                "{\"type\":\"ADDED\",\"object\":{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"big\","
                        + "\"labels\":{" + labels + "}},\"data\":{\"blob\":\"" + big + "\"}}}\n"
                        + "{\"type\":\"DELETED\",\"object\":{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"small\"}}}\n";

        List<WatchEvent<ConfigMap>> events =
                drain(WatchEventDecoder.of(Streams.chunked(stream, 1000), ConfigMap.class));

        ConfigMap cm = ((WatchEvent.Change<ConfigMap>) events.get(0)).object();
        assertThat(cm.getData().get("blob")).hasSize(big.length());
        assertThat(cm.getMetadata().getLabels()).hasSize(10_000).containsEntry("label-9999", "v9999");
        assertThat(((WatchEvent.Change<ConfigMap>) events.get(1))
                        .object()
                        .getMetadata()
                        .getName())
                .isEqualTo("small");
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "{\"type\":\"ADDED\",\"object\":{\"kind\":\"Secret\",\"data\":{\"token\":s3cr3t-t0ken}}}",
                "{\"type\":\"ADDED\",\"object\":{\"kind\":\"Secret\",\"immutable\":\"s3cr3t-t0ken\"}}",
                "{\"type\":\"ADDED\",\"object\":{\"kind\":\"Secret\",\"data\":{\"token\":\"s3cr3t-t0ken",
                "{\"type\":\"s3cr3t-t0ken\",\"object\":{}}",
                "{\"type\":\"ADDED\",\"object\":{\"kind\":\"Secret\",\"data\":{\"token\":\"s3cr3t-t0ken\"}}} s3cr3t-t0ken"
            })
    void decodeErrorsNeverQuoteTheObjectsData(String stream) {
        assertThatThrownBy(() ->
                        drain(WatchEventDecoder.of(Streams.of(stream), io.fabric8.kubernetes.api.model.Secret.class)))
                .isInstanceOf(WatchDecodeException.class)
                .satisfies(
                        e -> assertThat(e.getMessage()).contains("watch event").doesNotContain("s3cr3t"));
    }
}
