package io.kubeloop.informer;

import java.time.Duration;

/**
 * client-go's resync-period arithmetic for handlers (shared_informer.go): a handler asks for a period, the
 * informer has one resync check period (the reflector's resync timer), and the effective period is derived from
 * both.
 */
final class ResyncPeriods {

    /** A handler's requested period below this is raised to it ({@code minimumResyncPeriod}). */
    static final Duration MINIMUM = Duration.ofSeconds(1);

    private ResyncPeriods() {}

    /**
     * client-go's {@code determineResyncPeriod}: zero when the handler wants no resync or the informer has no
     * resync timer at all (an informer created with resync 0 never resyncs, whatever handlers ask); the check
     * period when the handler asks for less; else what the handler asked for.
     */
    static Duration effective(Duration desired, Duration check) {
        if (desired.isZero() || check.isZero()) {
            return Duration.ZERO;
        }
        return desired.compareTo(check) < 0 ? check : desired;
    }

    /** {@code desired} raised to {@link #MINIMUM} when positive and below it. */
    static Duration atLeastMinimum(Duration desired) {
        return !desired.isZero() && desired.compareTo(MINIMUM) < 0 ? MINIMUM : desired;
    }

    /** Rejects null and negative periods with a message naming {@code what}. */
    static Duration requireValid(Duration period, String what) {
        if (period == null) {
            throw new NullPointerException(what + " is null (use Duration.ZERO for no resync)");
        }
        if (period.isNegative()) {
            throw new IllegalArgumentException(what + " must be zero (no resync) or positive, was " + period);
        }
        return period;
    }
}
