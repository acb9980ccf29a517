package io.kubeloop.model;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Objects;

/**
 * Kubernetes' two timestamp formats, written exactly as kube-apiserver writes them, and read as it reads them.
 *
 * <ul>
 *   <li>{@code metav1.Time} ({@code creationTimestamp}, {@code deletionTimestamp}, managedFields' {@code time},
 *       condition times): RFC 3339 to the second, in UTC with a {@code Z}: {@code 2025-01-01T08:30:00Z}. A
 *       fraction of a second is truncated, never rounded (Go's {@code time.Format} truncates).</li>
 *   <li>{@code metav1.MicroTime} (an Event's {@code eventTime}, a Lease's {@code renewTime}): the same with
 *       exactly six fraction digits: {@code 2025-01-01T08:30:00.123456Z}; nanoseconds are truncated.</li>
 * </ul>
 *
 * <p>Both are defined for the years 0001 to 9999 (Go refuses to marshal others); an instant outside them is an
 * {@link IllegalArgumentException}. {@link #parse} accepts any RFC 3339 time, with or without a fraction and
 * with any offset, as {@code metav1.Time}'s JSON decoding does. Stateless and thread-safe.
 */
public final class Timestamps {

    private static final DateTimeFormatter SECONDS =
            DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss'Z'").withZone(ZoneOffset.UTC);
    private static final DateTimeFormatter MICROS =
            DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSSSS'Z'").withZone(ZoneOffset.UTC);
    /** 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z: the years Go's time.MarshalJSON accepts. */
    private static final long MIN_SECONDS = -62_135_596_800L;

    private static final long MAX_SECONDS = 253_402_300_799L;

    private Timestamps() {}

    /** {@code instant} as a {@code metav1.Time}: {@code 2025-01-01T08:30:00Z}, the fraction truncated. */
    public static String format(Instant instant) {
        return SECONDS.format(inRange(instant));
    }

    /** {@code instant} as a {@code metav1.MicroTime}: {@code 2025-01-01T08:30:00.123456Z}, six digits always. */
    public static String formatMicro(Instant instant) {
        return MICROS.format(inRange(instant));
    }

    /**
     * An RFC 3339 time ({@code 2025-01-01T08:30:00Z}, {@code 2025-01-01T09:30:00.5+01:00}) as an instant.
     *
     * @throws DateTimeParseException when {@code text} is not an RFC 3339 time with seconds and an offset
     */
    public static Instant parse(String text) {
        Objects.requireNonNull(text, "text");
        return OffsetDateTime.parse(text, DateTimeFormatter.ISO_OFFSET_DATE_TIME)
                .toInstant();
    }

    private static Instant inRange(Instant instant) {
        Objects.requireNonNull(instant, "instant");
        if (instant.getEpochSecond() < MIN_SECONDS || instant.getEpochSecond() > MAX_SECONDS) {
            throw new IllegalArgumentException("a Kubernetes time must be in the years 0001 to 9999, was " + instant);
        }
        return instant;
    }
}
