package io.kubeloop.informer.reflector;

import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.kubeloop.informer.testing.ApiErrors;
import java.time.Duration;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Whatever happens to the server and the connection while the reflector runs (writes racing with closed, expired
 * and reset watches, refused and failing requests, bookmarks), once the faults stop the store ends equal to the
 * server's state: no informer stops silently and no object is lost or left behind.
 */
class ReflectorConvergenceProperties {

    enum Kind {
        ADD,
        MODIFY,
        DELETE,
        CLOSE_WATCHES,
        EXPIRE_WATCHES,
        RESET_WATCH,
        BOOKMARK,
        REFUSE_NEXT_WATCH,
        FAIL_NEXT_LIST,
        STEP_CLOCK
    }

    record Op(Kind kind, int name) {}

    @Provide
    Arbitrary<List<Op>> scripts() {
        Arbitrary<Op> op = net.jqwik.api.Combinators.combine(
                        Arbitraries.of(Kind.class), Arbitraries.integers().between(0, 5))
                .as(Op::new);
        return op.list().ofMinSize(5).ofMaxSize(40);
    }

    @Property(tries = 25)
    void theStoreConvergesToTheServersState(@ForAll("scripts") List<Op> script) throws Exception {
        try (ReflectorHarness h = new ReflectorHarness()) {
            h.source.add(ReflectorHarness.cm("seed"));
            h.start();
            for (Op op : script) {
                apply(h, op);
            }
            // Until the store matches the server: step the clock through any backoff.
            await().atMost(Duration.ofSeconds(20))
                    .pollInterval(Duration.ofMillis(20))
                    .until(() -> {
                        if (h.clock.hasWaiters()) {
                            h.clock.step(Duration.ofSeconds(30));
                        }
                        return h.reflector.isWatching()
                                && h.source.openWatches() == 1
                                && h.store.versions().equals(RecordingStore.versionsOf(h.source.objects()));
                    });
        }
    }

    private static void apply(ReflectorHarness h, Op op) {
        String name = "cm-" + op.name();
        ConfigMap existing = h.source.objects().stream()
                .filter(o -> o.getMetadata().getName().equals(name))
                .findFirst()
                .orElse(null);
        switch (op.kind()) {
            case ADD -> {
                if (existing == null) {
                    h.source.add(ReflectorHarness.cm(name));
                }
            }
            case MODIFY -> {
                if (existing != null) {
                    existing.getData().put("n", Integer.toString(op.name()));
                    h.source.modify(existing);
                }
            }
            case DELETE -> {
                if (existing != null) {
                    h.source.delete(existing);
                }
            }
            case CLOSE_WATCHES -> h.source.closeWatches();
            case EXPIRE_WATCHES -> h.source.expireWatches();
            case RESET_WATCH -> h.source.resetWatch();
            case BOOKMARK -> h.source.bookmark();
            case REFUSE_NEXT_WATCH -> h.source.failNextWatches(1, ApiErrors::connectionRefused);
            case FAIL_NEXT_LIST -> h.source.failNextLists(1, () -> ApiErrors.serviceUnavailable(2));
            case STEP_CLOCK -> h.clock.step(Duration.ofSeconds(1 + op.name()));
        }
    }
}
