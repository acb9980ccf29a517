package io.kubeloop.client.watch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Pod;
import io.kubeloop.client.codec.Decoding;
import io.kubeloop.client.codec.UndecodableObject;
import io.kubeloop.client.codec.UndecodableObjects;
import io.kubeloop.model.WatchEventType;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.json.JsonMapper;

/**
 * Watch events whose object does not decode to the type: with SKIP an {@link WatchEvent.Undecodable} in their place
 * (identity from the metadata alone, the stream still usable after them), with FAIL the decoder's failure naming the
 * object; never a value of the object in either.
 */
class UndecodableEventsTest {

    /** A pod whose {@code containers} is a map, not a list, with a secret-looking value and a large annotation. */
    private static String badPod(String type, String name, String rv, int padding) {
        return """
                {"type":"%s","object":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s","namespace":"shop",\
                "resourceVersion":"%s","uid":"u-%s","annotations":{"pad":"%s"}},\
                "spec":{"containers":{"c":{"image":"s3cr3t"}}}}}""".formatted(type, name, rv, name, "x".repeat(padding));
    }

    private static String goodPod(String type, String name, String rv) {
        return """
                {"type":"%s","object":{"metadata":{"name":"%s","namespace":"shop","resourceVersion":"%s"},\
                "spec":{"containers":[{"name":"c","image":"nginx"}]}}}""".formatted(type, name, rv);
    }

    @ParameterizedTest(name = "padding {0}, 7 bytes a read")
    @ValueSource(ints = {0, 50_000})
    void skipHandsAnUndecodableEventAndCarriesOn(int padding) {
        String stream = String.join(
                "\n",
                goodPod("ADDED", "a", "10"),
                badPod("ADDED", "b", "11", padding),
                goodPod("MODIFIED", "a", "12"),
                badPod("DELETED", "b", "13", padding));
        List<WatchEvent<Pod>> events = WatchEventDecoderTest.drain(WatchEventDecoder.of(
                Streams.chunked(stream, 7), Pod.class, Decoding.standard().mapper(), UndecodableObjects.SKIP));

        assertThat(events).hasSize(4);
        assertThat(events.get(0)).isInstanceOf(WatchEvent.Change.class);
        assertThat(events.get(2)).isInstanceOf(WatchEvent.Change.class);
        WatchEvent.Undecodable<Pod> added = (WatchEvent.Undecodable<Pod>) events.get(1);
        assertThat(added.type()).isEqualTo(WatchEventType.ADDED);
        assertThat(added.object())
                .isEqualTo(new UndecodableObject(
                        "shop", "b", "11", "u-b", added.object().error()));
        assertThat(added.object().error())
                .contains("does not decode to Pod")
                .contains("containers")
                .doesNotContain("s3cr3t");
        WatchEvent.Undecodable<Pod> deleted = (WatchEvent.Undecodable<Pod>) events.get(3);
        assertThat(deleted.type()).isEqualTo(WatchEventType.DELETED);
        assertThat(deleted.object().resourceVersion()).isEqualTo("13");
    }

    @Test
    void anObjectBeforeItsTypeIsIdentifiedFromItsTree() {
        String stream = """
                {"object":{"metadata":{"name":"b","namespace":"shop","resourceVersion":"5"},\
                "spec":{"containers":"s3cr3t"}},"type":"MODIFIED"}
                """;
        List<WatchEvent<Pod>> events = WatchEventDecoderTest.drain(WatchEventDecoder.of(
                Streams.of(stream), Pod.class, Decoding.standard().mapper(), UndecodableObjects.SKIP));

        assertThat(events).singleElement().isInstanceOfSatisfying(WatchEvent.Undecodable.class, u -> {
            assertThat(u.type()).isEqualTo(WatchEventType.MODIFIED);
            assertThat(u.object().key()).isEqualTo("shop/b");
            assertThat(u.object().error()).doesNotContain("s3cr3t");
        });
    }

    @Test
    void withAMapperOfItsOwnTheIdentityComesFromThePartlyDecodedObject() {
        // A plain mapper reads without kubeloop's input, so the object's bytes are not kept: the metadata, decoded
        // before the failing field, is taken from the object Jackson was filling.
        List<WatchEvent<Pod>> events = WatchEventDecoderTest.drain(WatchEventDecoder.of(
                Streams.of(badPod("ADDED", "b", "11", 0)),
                Pod.class,
                JsonMapper.builder().build(),
                UndecodableObjects.SKIP));

        assertThat(events).singleElement().isInstanceOfSatisfying(WatchEvent.Undecodable.class, u -> assertThat(
                        u.object().key())
                .isEqualTo("shop/b"));
    }

    @Test
    void failEndsTheStreamNamingTheObjectNotItsContent() {
        WatchEventDecoder<Pod> decoder =
                WatchEventDecoder.of(Streams.of(goodPod("ADDED", "a", "1") + badPod("ADDED", "b", "2", 0)), Pod.class);
        assertThat(decoder.next()).isInstanceOf(WatchEvent.Change.class);
        assertThatThrownBy(decoder::next)
                .isInstanceOf(WatchDecodeException.class)
                .hasMessageContaining("watch event 2")
                .hasMessageContaining("shop/b at resourceVersion 2")
                .hasMessageNotContaining("s3cr3t");
    }

    @Test
    void malformedJsonInsideAnObjectIsNeverSkipped() {
        WatchEventDecoder<Pod> decoder = WatchEventDecoder.of(
                Streams.of(
                        "{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"a\"},\"spec\":{\"containers\":{]}}}"),
                Pod.class,
                Decoding.standard().mapper(),
                UndecodableObjects.SKIP);
        assertThatThrownBy(decoder::next)
                .isInstanceOf(WatchDecodeException.class)
                .hasMessageContaining("malformed");
    }
}
