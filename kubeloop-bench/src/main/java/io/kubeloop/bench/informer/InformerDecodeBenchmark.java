package io.kubeloop.bench.informer;

import io.fabric8.kubernetes.api.model.Pod;
import io.kubeloop.apiserver.EmbeddedApiServer;
import io.kubeloop.bench.ClientPods;
import io.kubeloop.client.codec.Decoding;
import io.kubeloop.client.watch.WatchEvent;
import io.kubeloop.client.watch.WatchEventDecoder;
import java.io.ByteArrayInputStream;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import tools.jackson.databind.ObjectMapper;

/**
 * The decoding under the informer, without the network: the 10,000-pod list (58 MB with managedFields) and
 * 10,000 MODIFIED watch events, both recorded from the embedded API server ({@link ReplayData}), decoded from
 * memory into fabric8 pods with each {@link Decoding}. Objects are kept in an array, as a cache keeps them.
 * {@code -prof gc} gives bytes allocated per list / per 10k events.
 */
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xmx3g", "-XX:+UseG1GC"})
@Warmup(iterations = 3, time = 3)
@Measurement(iterations = 5, time = 3)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class InformerDecodeBenchmark {

    static final int PODS = 10_000;

    @State(Scope.Benchmark)
    public static class Data {
        @Param({"standard", "compact", "standard-nomf", "compact-nomf"})
        public String decoding;

        byte[] list;
        byte[] events;
        ObjectMapper mapper;
        ListItems<Pod> listDecoder;
        final Pod[] kept = new Pod[PODS];

        @Setup(Level.Trial)
        public void record() throws Exception {
            try (EmbeddedApiServer api = EmbeddedApiServer.builder().start()) {
                ClientPods.populate(api, 500);
                ReplayData data = ReplayData.build(ClientPods.listItems(api), PODS, PODS, false);
                list = data.listWithManagedFields;
                events = data.burst;
            }
            Decoding d =
                    switch (decoding) {
                        case "standard" -> Decoding.standard();
                        case "compact" -> Decoding.compact();
                        case "standard-nomf" -> Decoding.standard().withoutManagedFields();
                        case "compact-nomf" -> Decoding.compact().withoutManagedFields();
                        default -> throw new IllegalArgumentException(decoding);
                    };
            mapper = d.mapper();
            listDecoder = new ListItems<>(Pod.class, mapper);
        }
    }

    @Benchmark
    public Pod[] list10k(Data d) {
        int[] i = {0};
        listDecoder(d).decode(new ByteArrayInputStream(d.list), pod -> d.kept[i[0]++] = pod);
        if (i[0] != PODS) {
            throw new IllegalStateException("decoded " + i[0] + " pods");
        }
        return d.kept;
    }

    @Benchmark
    public Pod[] watch10k(Data d) {
        WatchEventDecoder<Pod> decoder = WatchEventDecoder.of(new ByteArrayInputStream(d.events), Pod.class, d.mapper);
        int i = 0;
        for (WatchEvent<Pod> e; (e = decoder.next()) != null; ) {
            d.kept[i++] = ((WatchEvent.Change<Pod>) e).object();
        }
        if (i != PODS) {
            throw new IllegalStateException("decoded " + i + " events");
        }
        return d.kept;
    }

    private static ListItems<Pod> listDecoder(Data d) {
        return d.listDecoder;
    }
}
