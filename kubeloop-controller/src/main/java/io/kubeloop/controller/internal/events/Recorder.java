package io.kubeloop.controller.internal.events;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.kubeloop.clock.Clock;
import io.kubeloop.controller.EventRecorder;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Instant;
import java.util.IllegalFormatException;
import java.util.Locale;

/**
 * One component's {@link EventRecorder} (client-go's {@code recorderImpl}): builds the {@code core/v1} Event on the
 * caller's thread, as client-go's {@code makeEvent}, and hands it to its {@link EventBroadcaster}. Never throws:
 * invalid input is logged and counted.
 */
final class Recorder implements EventRecorder {

    private final EventBroadcaster broadcaster;
    private final String component;
    private final Clock clock;
    private final EventBroadcaster.Counters counters;

    Recorder(EventBroadcaster broadcaster, String component, Clock clock, MeterRegistry registry) {
        this.broadcaster = broadcaster;
        this.component = component;
        this.clock = clock;
        this.counters = new EventBroadcaster.Counters(component, registry);
    }

    @Override
    public void event(HasMetadata regarding, String type, String reason, String message) {
        try {
            record(regarding, type, reason, message);
        } catch (RuntimeException e) {
            // the contract is "never throws": a defect here must not fail a reconcile
            invalid("could not be recorded: " + e, regarding, type, reason);
        }
    }

    @Override
    public void eventf(HasMetadata regarding, String type, String reason, String format, Object... args) {
        String message;
        try {
            message = format == null ? null : String.format(Locale.ROOT, format, args);
        } catch (IllegalFormatException e) {
            invalid(
                    "has a message format that does not fit its arguments (" + e + "): \"" + format + "\"",
                    regarding,
                    type,
                    reason);
            return;
        }
        event(regarding, type, reason, message);
    }

    private void record(HasMetadata regarding, String type, String reason, String message) {
        if (!NORMAL.equals(type) && !WARNING.equals(type)) {
            invalid("has type \"" + type + "\"; the type must be \"Normal\" or \"Warning\"", regarding, type, reason);
            return;
        }
        if (regarding == null) {
            invalid("is about a null object", null, type, reason);
            return;
        }
        ObjectMeta meta = regarding.getMetadata();
        if (meta == null || meta.getName() == null || meta.getName().isEmpty()) {
            invalid("is about an object without metadata.name", regarding, type, reason);
            return;
        }
        String kind = regarding.getKind();
        String apiVersion = regarding.getApiVersion();
        if (!(regarding instanceof GenericKubernetesResource)) {
            // fabric8's classes know their kind and apiVersion even when an instance has lost them
            kind = isEmpty(kind) ? HasMetadata.getKind(regarding.getClass()) : kind;
            apiVersion = isEmpty(apiVersion) ? HasMetadata.getApiVersion(regarding.getClass()) : apiVersion;
        }
        if (isEmpty(kind) || isEmpty(apiVersion)) {
            invalid("is about an object without kind or apiVersion", regarding, type, reason);
            return;
        }
        ObjectReference ref = new ObjectReferenceBuilder()
                .withKind(kind)
                .withApiVersion(apiVersion)
                .withName(meta.getName())
                .withNamespace(isEmpty(meta.getNamespace()) ? null : meta.getNamespace())
                .withUid(isEmpty(meta.getUid()) ? null : meta.getUid())
                .withResourceVersion(isEmpty(meta.getResourceVersion()) ? null : meta.getResourceVersion())
                .build();
        Instant now = clock.now();
        String at = EventCorrelator.timestamp(now);
        Event event = new EventBuilder()
                .withNewMetadata()
                .withName(meta.getName() + "." + Long.toHexString(EventBroadcaster.nextSuffix(clock)))
                .withNamespace(ref.getNamespace() == null ? "default" : ref.getNamespace())
                .endMetadata()
                .withInvolvedObject(ref)
                .withType(type)
                .withReason(reason)
                .withMessage(message)
                .withFirstTimestamp(at)
                .withLastTimestamp(at)
                .withCount(1)
                .withNewSource()
                .withComponent(component)
                .endSource()
                .withReportingComponent(component)
                .withReportingInstance(null) // client-go: the source's host, which controller-runtime leaves empty
                .build();
        broadcaster.enqueue(event, this);
    }

    private void invalid(String what, HasMetadata regarding, String type, String reason) {
        counters.dropped(EventBroadcaster.DropReason.INVALID);
        String about = regarding == null || regarding.getMetadata() == null
                ? String.valueOf(regarding == null ? null : regarding.getKind())
                : regarding.getKind() + " " + regarding.getMetadata().getNamespace() + "/"
                        + regarding.getMetadata().getName();
        EventBroadcaster.log.error(
                "Event not recorded (component {}, object {}, type {}, reason {}): it {}",
                component,
                about,
                type,
                reason,
                what);
    }

    void dropped(EventBroadcaster.DropReason reason) {
        counters.dropped(reason);
    }

    void written(String verb) {
        counters.written(verb);
    }

    /** For logs: {@code Warning FailedCreate on Pod ns/name: message}. */
    static String describe(Event e) {
        ObjectReference o = e.getInvolvedObject();
        return e.getType() + " " + e.getReason() + " on " + o.getKind() + " "
                + (o.getNamespace() == null ? "" : o.getNamespace() + "/") + o.getName() + ": " + e.getMessage();
    }

    private static boolean isEmpty(String s) {
        return s == null || s.isEmpty();
    }
}
