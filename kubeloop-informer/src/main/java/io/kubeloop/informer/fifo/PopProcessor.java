package io.kubeloop.informer.fifo;

import java.util.List;

/**
 * Consumes the deltas of one key popped from a {@link DeltaFIFO}. Runs while the FIFO's lock is held, so nothing
 * is enqueued meanwhile: an informer updates its cache here, atomically with respect to the Replace, Resync and
 * Delete calls that consult that cache as the FIFO's known objects. Keep it short; it blocks the Reflector.
 *
 * @param <T> the object type
 */
@FunctionalInterface
public interface PopProcessor<T> {

    /**
     * Processes the deltas of one key, oldest first.
     *
     * @param deltas never empty; not modifiable
     * @param isInInitialList the key belongs to the initial population (the first Replace) and the FIFO has not
     *     yet synced
     * @throws DeltaFIFO.RequeueException to put the deltas back into the FIFO (unless the key was enqueued again
     *     meanwhile); any other exception is passed on by {@link DeltaFIFO#pop} and the deltas are dropped
     */
    void process(List<Delta<T>> deltas, boolean isInInitialList) throws Exception;
}
