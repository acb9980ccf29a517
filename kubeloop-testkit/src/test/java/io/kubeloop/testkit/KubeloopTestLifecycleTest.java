package io.kubeloop.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubeloop.apiserver.EmbeddedApiServer;
import java.net.URI;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.platform.testkit.engine.EngineExecutionResults;
import org.junit.platform.testkit.engine.Event;

/** When servers start and stop: once per class, once per JVM for equal settings, and for {@code @Nested} classes. */
class KubeloopTestLifecycleTest {

    @Sample
    @KubeloopTest
    static class PerClassA {
        @BeforeAll
        static void beforeAll(EmbeddedApiServer server) {
            Samples.see("A", server.url());
        }

        @Test
        void one(EmbeddedApiServer server) {
            Samples.see("A", server.url());
            assertThat(Samples.listening(server.url())).isTrue();
        }

        @Test
        void two(EmbeddedApiServer server) {
            Samples.see("A", server.url());
        }
    }

    @Sample
    @KubeloopTest
    static class PerClassB {
        @Test
        void one(EmbeddedApiServer server) {
            Samples.see("B", server.url());
        }
    }

    @Test
    void aClassGetsOneServerFromBeforeAllToTheEndAndAnotherClassAnother() {
        EngineExecutionResults results = Samples.run(PerClassA.class, PerClassB.class);

        results.testEvents().assertStatistics(s -> s.started(3).succeeded(3));
        List<Object> a = Samples.seen("A");
        assertThat(a).hasSize(3).containsOnly(a.getFirst());
        assertThat(Samples.seen("B")).singleElement().isNotEqualTo(a.getFirst());
        assertThat(Samples.listening((URI) a.getFirst()))
                .as("stopped after its class")
                .isFalse();
        assertThat(Samples.listening((URI) Samples.seen("B").getFirst())).isFalse();
    }

    @Sample
    @KubeloopTest(shared = true)
    static class SharedA {
        @Test
        void one(EmbeddedApiServer server) {
            Samples.see("shared", server.url());
        }
    }

    @Sample
    @KubeloopTest(shared = true)
    static class SharedB {
        @Test
        void one(EmbeddedApiServer server) {
            Samples.see("shared", server.url());
            Samples.see("shared alive at B", Samples.listening((URI)
                    Samples.seen("shared").getFirst()));
        }
    }

    @Sample
    @KubeloopTest(shared = true, faults = true)
    static class SharedWithFaults {
        @Test
        void one(EmbeddedApiServer server) {
            Samples.see("shared with faults", server.url());
        }
    }

    @Test
    void sharedClassesWithEqualSettingsGetOneServerPerRunAndOtherSettingsAnother() {
        EngineExecutionResults results = Samples.run(SharedA.class, SharedB.class, SharedWithFaults.class);

        results.testEvents().assertStatistics(s -> s.started(3).succeeded(3));
        List<Object> shared = Samples.seen("shared");
        assertThat(shared).hasSize(2).containsOnly(shared.getFirst());
        assertThat(Samples.seen("shared alive at B")).containsExactly(true);
        Object withFaults = Samples.seen("shared with faults").getFirst();
        assertThat(withFaults).isNotEqualTo(shared.getFirst());
        assertThat(Samples.listening((URI) shared.getFirst()))
                .as("stopped at the end of the run")
                .isFalse();
        assertThat(Samples.listening((URI) withFaults)).isFalse();
        // one report entry per server, not per class
        assertThat(results.allEvents().reportingEntryPublished().count()).isEqualTo(2);
    }

    @Sample
    @KubeloopTest
    static class Outer {
        @Test
        void outer(EmbeddedApiServer server) {
            Samples.see("nested", server.url());
        }

        @Nested
        class Inner {
            @Test
            void inner(EmbeddedApiServer server) {
                Samples.see("nested", server.url());
            }
        }
    }

    @Test
    void aNestedClassUsesItsEnclosingClasssServer() {
        Samples.run(Outer.class).testEvents().assertStatistics(s -> s.started(2).succeeded(2));
        assertThat(Samples.seen("nested"))
                .hasSize(2)
                .containsOnly(Samples.seen("nested").getFirst());
    }

    @Test
    void eachServerReportsItsUrlAndStartTime() {
        EngineExecutionResults results = Samples.run(PerClassB.class);

        List<String> reports = results.allEvents().reportingEntryPublished().stream()
                .map(Event::getPayload)
                .flatMap(java.util.Optional::stream)
                .map(p -> ((org.junit.platform.engine.reporting.ReportEntry) p)
                        .getKeyValuePairs()
                        .get("kubeloop.apiserver"))
                .toList();
        assertThat(reports)
                .singleElement()
                .asString()
                .startsWith(Samples.seen("B").getFirst() + " (plain http)");
        Matcher m =
                Pattern.compile("started in (\\d+) ms, answering in (\\d+) ms").matcher(reports.getFirst());
        assertThat(m.find()).as(reports.getFirst()).isTrue();
        assertThat(Long.parseLong(m.group(1))).isLessThanOrEqualTo(Long.parseLong(m.group(2)));
    }
}
