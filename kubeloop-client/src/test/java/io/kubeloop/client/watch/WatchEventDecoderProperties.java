package io.kubeloop.client.watch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.From;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/** Whatever the separators and however the network splits the bytes, the same events come out. */
class WatchEventDecoderProperties {

    @Property(tries = 200)
    void separatorsAndChunkingNeverChangeTheEvents(
            @ForAll @Size(min = 0, max = 12) List<@From("events") String> events,
            @ForAll("separators") String separator,
            @ForAll @IntRange(min = 1, max = 300) int chunk) {
        String stream = String.join(separator, events);

        List<WatchEvent<Pod>> decoded =
                WatchEventDecoderTest.drain(WatchEventDecoder.of(Streams.chunked(stream, chunk), Pod.class));

        List<WatchEvent<Pod>> expected = new ArrayList<>();
        for (String e : events) {
            expected.add(WatchEventDecoder.of(Streams.of(e), Pod.class).next());
        }
        assertThat(decoded).isEqualTo(expected);
    }

    @Property(tries = 200)
    void aStreamCutInsideAnEventIsNeverASilentEnd(
            @ForAll @Size(min = 1, max = 5) List<@From("events") String> events,
            @ForAll @IntRange(min = 1, max = 10_000) int cutSeed) {
        String stream = String.join("\n", events);
        String last = events.getLast();
        // Cut strictly inside the last event (a cut after its closing brace is a clean end).
        int cut = stream.length() - last.length() + 1 + cutSeed % (last.length() - 1);

        assertThatThrownBy(() -> WatchEventDecoderTest.drain(
                        WatchEventDecoder.of(Streams.chunked(stream.substring(0, cut), 7), Pod.class)))
                .isInstanceOf(WatchDecodeException.class)
                .hasMessageContaining("watch event " + events.size());
    }

    @Provide
    Arbitrary<String> events() {
        Arbitrary<String> rv = Arbitraries.integers().between(1, 1_000_000).map(String::valueOf);
        Arbitrary<String> name =
                Arbitraries.strings().withCharRange('a', 'z').ofMinLength(1).ofMaxLength(20);
        return Arbitraries.oneOf(
                Arbitraries.of("ADDED", "MODIFIED", "DELETED")
                        .flatMap(t -> name.flatMap(n -> rv.map(v -> Streams.pod(t, n, v)))),
                rv.flatMap(v -> Arbitraries.of(true, false).map(end -> Streams.bookmark(v, end))),
                Arbitraries.just(Streams.EXPIRED));
    }

    @Provide
    Arbitrary<String> separators() {
        return Arbitraries.of("", "\n", "\r\n", " ", "\n\n\t");
    }
}
