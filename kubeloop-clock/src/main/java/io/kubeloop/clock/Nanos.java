package io.kubeloop.clock;

import java.time.Duration;
import java.util.Objects;

/** Duration arithmetic shared by the clocks. */
final class Nanos {

    private Nanos() {}

    /**
     * {@code duration} in nanoseconds, or {@link Long#MAX_VALUE} / {@link Long#MIN_VALUE} when it does not
     * fit (about 292 years): a delay that long means "never" for every practical purpose.
     */
    static long saturated(Duration duration) {
        Objects.requireNonNull(duration, "duration");
        try {
            return duration.toNanos();
        } catch (ArithmeticException tooLong) {
            return duration.isNegative() ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
    }
}
