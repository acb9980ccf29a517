package io.kubeloop.controller;

import io.fabric8.kubernetes.api.model.HasMetadata;

/**
 * Records Kubernetes Events about objects, as client-go's {@code record.EventRecorder} (controller-runtime's
 * {@code mgr.GetEventRecorderFor(name)}): what {@code kubectl describe} and {@code kubectl get events} show a user.
 * Get one from {@link Manager#eventRecorder(String)}; one recorder per component name, shared and thread-safe.
 *
 * <p>Contract:
 * <ul>
 *   <li><b>Never throws, never blocks on the API server.</b> A call builds the {@code core/v1} Event and puts it on a
 *       bounded queue (1000 events per manager); one background thread correlates and writes. When the queue is full
 *       the event is dropped, counted ({@code kubeloop_events_dropped_total{reason="queue-full"}}) and a WARN is
 *       logged at most every 10 seconds. A reconcile never waits for an event to be written.</li>
 *   <li><b>Bad input is dropped with an ERROR log naming what was wrong</b> (a {@code type} other than
 *       {@link #NORMAL} or {@link #WARNING}, a null or nameless object, a format that does not match its
 *       arguments), and counted ({@code reason="invalid"}). An event is a side channel: a typo in one must not fail
 *       the reconcile that records it.</li>
 *   <li><b>Correlation as client-go's {@code EventCorrelator}</b>: an event identical to one recorded before (same
 *       object, type, reason and message) increments {@code count} and {@code lastTimestamp} of the existing Event;
 *       from the 10th different message for the same object, type and reason within 10 minutes, they are combined
 *       into one Event {@code (combined from similar events): <message>}; each object may have 25 events, then one
 *       more every 5 minutes (the rest are dropped, {@code reason="spam-filter"}).</li>
 *   <li><b>Writes are retried</b> up to 12 times, 10 seconds apart on the manager's clock, when the server is
 *       unreachable or answers 429 or 5xx; an answer that will not change (another 4xx) drops the event.</li>
 * </ul>
 *
 * <p>The Event goes to the object's namespace ({@code default} for a cluster-scoped object) and is named
 * {@code <object name>.<hex nanoseconds>}, as client-go names them. See {@code kubeloop-controller/docs/events.md}.
 */
public interface EventRecorder {

    /** An event about normal operation: something was created, scaled, synced. */
    String NORMAL = "Normal";

    /** An event about something that may need a person's attention: a failure, a retry, a missing dependency. */
    String WARNING = "Warning";

    /**
     * Records an event about {@code regarding}.
     *
     * @param regarding the object the event is about (its kind, apiVersion, namespace, name, uid and
     *     resourceVersion become the Event's {@code involvedObject})
     * @param type {@link #NORMAL} or {@link #WARNING}
     * @param reason short, machine-readable, UpperCamelCase ({@code FailedCreate}, {@code ScalingReplicaSet})
     * @param message for people
     */
    void event(HasMetadata regarding, String type, String reason, String message);

    /**
     * Records an event whose message is {@code String.format(Locale.ROOT, format, args)}; the rest as
     * {@link #event}.
     */
    void eventf(HasMetadata regarding, String type, String reason, String format, Object... args);
}
