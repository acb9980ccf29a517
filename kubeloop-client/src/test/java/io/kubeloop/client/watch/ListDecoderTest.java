package io.kubeloop.client.watch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ListDecoderTest {

    private static String item(String name) {
        return "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"" + name + "\",\"resourceVersion\":\"5\"},"
                + "\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"nginx\"}]}}";
    }

    private static final String PAGE = "{\"kind\":\"PodList\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\"42\","
            + "\"continue\":\"token-1\",\"remainingItemCount\":7},\"items\":[" + item("a") + "," + item("b") + "]}";

    @Test
    void handsOutItemsInOrderAndReturnsTheListMetadata() {
        List<String> names = new ArrayList<>();

        ListPage page = ListDecoder.of(Pod.class).decode(Streams.of(PAGE), p -> names.add(p.getMetadata().getName()));

        assertThat(names).containsExactly("a", "b");
        assertThat(page).isEqualTo(new ListPage("PodList", "42", "token-1", 7L, 2));
        assertThat(page.hasMore()).isTrue();
    }

    @Test
    void metadataAfterTheItemsAndOneByteReadsWorkToo() {
        String reordered = "{\"items\":[" + item("a") + "],\"extra\":{\"x\":[1,2]},\"metadata\":{\"resourceVersion\":\"9\"},"
                + "\"kind\":\"PodList\"}\n";
        List<Pod> pods = new ArrayList<>();

        ListPage page = ListDecoder.of(Pod.class).decode(Streams.chunked(reordered, 1), pods::add);

        assertThat(pods).singleElement().satisfies(p -> assertThat(p.getSpec().getContainers()).hasSize(1));
        assertThat(page).isEqualTo(new ListPage("PodList", "9", null, null, 1));
        assertThat(page.hasMore()).isFalse();
    }

    @Test
    void emptyAndNullItemsAreAnEmptyPage() {
        assertThat(ListDecoder.of(Pod.class).decode(Streams.of("{\"kind\":\"PodList\",\"metadata\":{\"resourceVersion\":\"3\","
                + "\"continue\":\"\"},\"items\":[]}"), p -> {})).isEqualTo(new ListPage("PodList", "3", "", null, 0));
        assertThat(ListDecoder.of(Pod.class).decode(Streams.of("{\"items\":null}"), p -> {}).itemCount()).isZero();
    }

    @Test
    void aTruncatedListIsAnErrorNamingTheItem() {
        String cut = PAGE.substring(0, PAGE.indexOf("\"b\"") + 10);
        List<Pod> pods = new ArrayList<>();

        assertThatThrownBy(() -> ListDecoder.of(Pod.class).decode(Streams.of(cut), pods::add))
                .isInstanceOfSatisfying(WatchDecodeException.class, e -> assertThat(e.index()).isEqualTo(2))
                .hasMessageStartingWith("list item 2 (at byte " + cut.length() + ")")
                .hasMessageContaining("truncated");
        assertThat(pods).hasSize(1);
    }

    @Test
    void malformedAndMisshapenListsAreErrors() {
        ListDecoder<Pod> decoder = ListDecoder.of(Pod.class);
        assertThatThrownBy(() -> decoder.decode(Streams.of("{\"items\":[" + item("a") + ",}"), p -> {}))
                .isInstanceOf(WatchDecodeException.class).hasMessageContaining("list item 2").hasMessageContaining("malformed JSON");
        assertThatThrownBy(() -> decoder.decode(Streams.of("[]"), p -> {}))
                .isInstanceOf(WatchDecodeException.class).hasMessageContaining("expected a list object");
        assertThatThrownBy(() -> decoder.decode(Streams.of(""), p -> {}))
                .isInstanceOf(WatchDecodeException.class).hasMessageContaining("an empty body");
        assertThatThrownBy(() -> decoder.decode(Streams.of("{\"items\":{}}"), p -> {}))
                .isInstanceOf(WatchDecodeException.class).hasMessageContaining("\"items\" must be an array");
        assertThatThrownBy(() -> decoder.decode(Streams.of("{\"items\":[\"a\"]}"), p -> {}))
                .isInstanceOf(WatchDecodeException.class).hasMessageContaining("an item must be an object");
        assertThatThrownBy(() -> decoder.decode(Streams.of("{\"items\":[{\"spec\":{\"containers\":7}}]}"), p -> {}))
                .isInstanceOf(WatchDecodeException.class).hasMessageContaining("list item 1").hasMessageContaining("does not decode to Pod");
        assertThatThrownBy(() -> decoder.decode(Streams.of("{\"items\":[]} {}"), p -> {}))
                .isInstanceOf(WatchDecodeException.class).hasMessageContaining("unexpected content after the list");
    }

    @Test
    void theCallbacksExceptionStopsDecodingAndPropagates() {
        List<String> names = new ArrayList<>();
        IllegalStateException full = new IllegalStateException("cache full");

        assertThatThrownBy(() -> ListDecoder.of(Pod.class).decode(Streams.of(PAGE), p -> {
            names.add(p.getMetadata().getName());
            throw full;
        })).isSameAs(full);
        assertThat(names).containsExactly("a");
    }

    @Test
    void decodeErrorsNeverQuoteTheItemsData() {
        String bad = "{\"items\":[{\"kind\":\"Secret\",\"immutable\":\"s3cr3t-t0ken\"}]}";

        assertThatThrownBy(() -> ListDecoder.of(io.fabric8.kubernetes.api.model.Secret.class).decode(Streams.of(bad), s -> {}))
                .isInstanceOf(WatchDecodeException.class)
                .satisfies(e -> assertThat(e.getMessage()).contains("list item 1").contains("Secret[\"immutable\"]")
                        .doesNotContain("s3cr3t"));
    }
}
