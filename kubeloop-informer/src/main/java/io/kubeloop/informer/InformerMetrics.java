package io.kubeloop.informer;

import io.micrometer.core.instrument.MeterRegistry;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;

/**
 * The informer's own metrics (the reflector records its own). Without a registry every method is a no-op at no
 * cost; see {@link MicrometerInformerMetrics} for the names.
 */
interface InformerMetrics {

    /** The meters of one handler; {@code bufferLength} is read when the registry is scraped. */
    HandlerMetrics handler(String handlerName, IntSupplier bufferLength);

    /** The process loop distributed a notification of {@code type} (add, update, sync, delete). */
    void notification(String type);

    /** A resync round started (at least one handler was due). */
    void resync();

    /**
     * The process loop met a failure: {@code reason} "failed" (handling an object's deltas threw; the rest of them
     * were dropped) or "mutation" (a cache write found a cached object changed in place).
     */
    void processError(String reason);

    /** Removes every meter of this informer from the registry (after stop). */
    void close();

    /** Per-handler meters. */
    interface HandlerMetrics {
        /** Whether {@link #handled} wants durations (false: the dispatcher does not read the clock at all). */
        default boolean timed() {
            return true;
        }

        void handled(long nanos);

        void failed();

        /** Removes this handler's meters (after its removal). */
        void close();
    }

    static InformerMetrics create(MeterRegistry registry, String informerName, LongSupplier cacheObjects) {
        return registry == null ? Noop.INSTANCE : new MicrometerInformerMetrics(registry, informerName, cacheObjects);
    }

    /** No registry: nothing is recorded. */
    enum Noop implements InformerMetrics, HandlerMetrics {
        INSTANCE;

        @Override
        public HandlerMetrics handler(String handlerName, IntSupplier bufferLength) {
            return this;
        }

        @Override
        public void notification(String type) {}

        @Override
        public void resync() {}

        @Override
        public void processError(String reason) {}

        @Override
        public boolean timed() {
            return false;
        }

        @Override
        public void handled(long nanos) {}

        @Override
        public void failed() {}

        @Override
        public void close() {}
    }
}
