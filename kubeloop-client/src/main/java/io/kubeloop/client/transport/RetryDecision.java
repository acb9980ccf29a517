package io.kubeloop.client.transport;

import java.time.Duration;
import java.util.Objects;

/** What {@link RetryPolicy} decided about a failed attempt: send it again after a delay, or give up. */
public sealed interface RetryDecision {

    /** Why: e.g. {@code 429 with Retry-After: 2} or {@code POST is a write: never retried}. */
    String reason();

    /** Send the request again after {@code delay}. */
    record Retry(Duration delay, String reason) implements RetryDecision {
        public Retry {
            Objects.requireNonNull(delay, "delay");
            Objects.requireNonNull(reason, "reason");
        }
    }

    /** Do not retry: the caller surfaces the answer or error it has. */
    record GiveUp(String reason) implements RetryDecision {
        public GiveUp {
            Objects.requireNonNull(reason, "reason");
        }
    }

    /** Whether this is a {@link Retry}. */
    default boolean retry() {
        return this instanceof Retry;
    }
}
