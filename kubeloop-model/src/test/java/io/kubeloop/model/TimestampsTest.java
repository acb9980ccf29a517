package io.kubeloop.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The strings Go's metav1.Time and metav1.MicroTime marshal to, for the same instants. */
class TimestampsTest {

    @ParameterizedTest(name = "{0} → {1}")
    @CsvSource({
        // instant (epoch second, nano) → metav1.Time, metav1.MicroTime
        "1735720200, 0,         2025-01-01T08:30:00Z, 2025-01-01T08:30:00.000000Z",
        "1735720200, 999999999, 2025-01-01T08:30:00Z, 2025-01-01T08:30:00.999999Z", // truncated, not rounded
        "1735720200, 123456789, 2025-01-01T08:30:00Z, 2025-01-01T08:30:00.123456Z",
        "1735720200, 1000,      2025-01-01T08:30:00Z, 2025-01-01T08:30:00.000001Z",
        "1735720200, 999,       2025-01-01T08:30:00Z, 2025-01-01T08:30:00.000000Z",
        "-1,         500000000, 1969-12-31T23:59:59Z, 1969-12-31T23:59:59.500000Z", // before the epoch: floor
        "0,          0,         1970-01-01T00:00:00Z, 1970-01-01T00:00:00.000000Z",
        "-62135596800, 0,       0001-01-01T00:00:00Z, 0001-01-01T00:00:00.000000Z", // Go's zero time
        "253402300799, 0,       9999-12-31T23:59:59Z, 9999-12-31T23:59:59.000000Z",
    })
    void formatsAsKubeApiserverDoes(long seconds, long nanos, String time, String microTime) {
        Instant instant = Instant.ofEpochSecond(seconds, nanos);
        assertThat(Timestamps.format(instant)).isEqualTo(time);
        assertThat(Timestamps.formatMicro(instant)).isEqualTo(microTime);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "2025-01-01T08:30:00Z,             1735720200, 0",
        "2025-01-01T08:30:00.123456Z,      1735720200, 123456000",
        "2025-01-01T09:30:00+01:00,        1735720200, 0", // any offset, read as UTC
        "2025-01-01T03:30:00.5-05:00,      1735720200, 500000000",
        "2025-01-01T08:30:00.123456789Z,   1735720200, 123456789",
    })
    void parsesAnyRfc3339Time(String text, long seconds, long nanos) {
        assertThat(Timestamps.parse(text)).isEqualTo(Instant.ofEpochSecond(seconds, nanos));
    }

    @Test
    void formatThenParseLosesOnlyWhatTheFormatTruncates() {
        Instant instant = Instant.ofEpochSecond(1735720200, 123456789);
        assertThat(Timestamps.parse(Timestamps.format(instant))).isEqualTo(Instant.ofEpochSecond(1735720200));
        assertThat(Timestamps.parse(Timestamps.formatMicro(instant)))
                .isEqualTo(Instant.ofEpochSecond(1735720200, 123456000));
    }

    @Test
    void refusesWhatKubernetesCannotWrite() {
        assertThatThrownBy(() -> Timestamps.format(Instant.ofEpochSecond(253402300800L)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("0001 to 9999");
        assertThatThrownBy(() -> Timestamps.formatMicro(Instant.ofEpochSecond(-62135596801L)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Timestamps.parse("2025-01-01 08:30:00")).isInstanceOf(DateTimeParseException.class);
        assertThatThrownBy(() -> Timestamps.parse("2025-01-01T08:30:00")) // no offset
                .isInstanceOf(DateTimeParseException.class);
    }
}
