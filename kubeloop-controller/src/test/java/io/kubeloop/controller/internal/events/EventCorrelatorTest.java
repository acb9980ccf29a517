package io.kubeloop.controller.internal.events;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.kubeloop.clock.FakeClock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Scenarios of client-go's {@code events_cache_test.go} on a fake clock, without a server: what the correlator
 * decides (create, patch with a count, combine, skip) for sequences of events.
 */
class EventCorrelatorTest {

    private final FakeClock clock = new FakeClock();
    private final AtomicLong suffix = new AtomicLong(0xabc);
    private EventCorrelator correlator =
            new EventCorrelator(clock, EventCorrelator.Options.DEFAULTS, suffix::getAndIncrement);

    @Test
    void anIdenticalEventBecomesAPatchOfCountLastTimestampAndMessage() {
        EventCorrelator.Result first = correlator.correlate(event("pod-a", "BackOff", "restarting"));
        assertThat(first.patch()).isNull();
        assertThat(first.event().getCount()).isEqualTo(1);
        stored(first.event(), "41");

        clock.step(Duration.ofMinutes(1));
        EventCorrelator.Result second = correlator.correlate(event("pod-a", "BackOff", "restarting"));

        assertThat(second.skip()).isFalse();
        assertThat(second.event().getMetadata().getName())
                .isEqualTo(first.event().getMetadata().getName());
        assertThat(second.event().getMetadata().getResourceVersion()).isEqualTo("41");
        assertThat(second.event().getCount()).isEqualTo(2);
        assertThat(second.event().getFirstTimestamp()).isEqualTo("2026-01-01T00:00:00Z");
        assertThat(second.patch())
                .isEqualTo("{\"count\":2,\"lastTimestamp\":\"2026-01-01T00:01:00Z\",\"message\":\"restarting\"}");
    }

    @Test
    void aDifferentMessageIsADifferentEventUntilTheTenth() {
        for (int i = 1; i <= 9; i++) {
            EventCorrelator.Result r = correlator.correlate(event("pod-a", "Probe", "failure " + i));
            assertThat(r.patch()).as("event %d", i).isNull();
            assertThat(r.event().getMessage()).isEqualTo("failure " + i);
        }
        EventCorrelator.Result tenth = correlator.correlate(event("pod-a", "Probe", "failure 10"));
        assertThat(tenth.event().getMessage()).isEqualTo("(combined from similar events): failure 10");
        assertThat(tenth.event().getCount()).isEqualTo(1);
        assertThat(tenth.event().getMetadata().getName()).startsWith("pod-a.");

        EventCorrelator.Result eleventh = correlator.correlate(event("pod-a", "Probe", "failure 11"));
        assertThat(eleventh.event().getMetadata().getName())
                .isEqualTo(tenth.event().getMetadata().getName());
        assertThat(eleventh.event().getCount()).isEqualTo(2);
        assertThat(eleventh.patch()).contains("\"message\":\"(combined from similar events): failure 11\"");
    }

    @Test
    void anAggregationGroupStartsAfreshAfterTenQuietMinutes() {
        for (int i = 1; i <= 9; i++) {
            correlator.correlate(event("pod-a", "Probe", "failure " + i));
        }
        clock.step(Duration.ofMinutes(10).plusNanos(1));

        EventCorrelator.Result r = correlator.correlate(event("pod-a", "Probe", "failure 10"));

        assertThat(r.event().getMessage()).isEqualTo("failure 10");
    }

    @Test
    void otherReasonsAndOtherObjectsAreOtherGroups() {
        for (int i = 1; i <= 9; i++) {
            correlator.correlate(event("pod-a", "Probe", "failure " + i));
        }
        assertThat(correlator
                        .correlate(event("pod-a", "Pull", "failure 10"))
                        .event()
                        .getMessage())
                .isEqualTo("failure 10");
        assertThat(correlator
                        .correlate(event("pod-b", "Probe", "failure 10"))
                        .event()
                        .getMessage())
                .isEqualTo("failure 10");
    }

    @Test
    void theSpamFilterAllows25ThenOneEvery5MinutesAndStillCounts() {
        for (int i = 1; i <= 25; i++) {
            assertThat(correlator
                            .correlate(event("pod-a", "BackOff", "restarting"))
                            .skip())
                    .as("event %d", i)
                    .isFalse();
        }
        assertThat(correlator.correlate(event("pod-a", "BackOff", "restarting")).skip())
                .isTrue();
        assertThat(correlator.correlate(event("pod-b", "BackOff", "restarting")).skip())
                .isFalse();

        clock.step(Duration.ofMinutes(5));
        EventCorrelator.Result next = correlator.correlate(event("pod-a", "BackOff", "restarting"));
        assertThat(next.skip()).isFalse();
        assertThat(next.event().getCount()).isEqualTo(27); // the skipped 26th is counted
        assertThat(correlator.correlate(event("pod-a", "BackOff", "restarting")).skip())
                .isTrue();
    }

    @Test
    void anObjectEvictedFromTheLruGetsAFullBucketAgain() {
        correlator = new EventCorrelator(
                clock,
                new EventCorrelator.Options(2, 10, Duration.ofMinutes(10), 1, 1.0 / 300),
                suffix::getAndIncrement);
        assertThat(correlator.correlate(event("pod-a", "R", "m")).skip()).isFalse();
        assertThat(correlator.correlate(event("pod-a", "R", "m")).skip()).isTrue();
        correlator.correlate(event("pod-b", "R", "m"));
        correlator.correlate(event("pod-c", "R", "m")); // pod-a is now the least recently used of three

        assertThat(correlator.correlate(event("pod-a", "R", "m")).skip()).isFalse();
    }

    private void stored(Event written, String resourceVersion) {
        Event server = new EventBuilder(written)
                .editMetadata()
                .withResourceVersion(resourceVersion)
                .endMetadata()
                .build();
        correlator.updateState(server);
    }

    private Event event(String pod, String reason, String message) {
        String at = EventCorrelator.timestamp(clock.now());
        return new EventBuilder()
                .withNewMetadata()
                .withName(pod + "." + Long.toHexString(suffix.getAndIncrement()))
                .withNamespace("default")
                .endMetadata()
                .withNewInvolvedObject()
                .withKind("Pod")
                .withApiVersion("v1")
                .withName(pod)
                .withNamespace("default")
                .withUid("uid-" + pod)
                .endInvolvedObject()
                .withType("Warning")
                .withReason(reason)
                .withMessage(message)
                .withFirstTimestamp(at)
                .withLastTimestamp(at)
                .withCount(1)
                .withNewSource()
                .withComponent("test")
                .endSource()
                .withReportingComponent("test")
                .build();
    }
}
