package io.kubeloop.bench.controller;

/**
 * One library's controller in the controller benchmark: a controller for the ConfigMaps of namespace
 * {@value ControllerBench#NAMESPACE} whose reconciler, at entry, reads the clock, then reads the object from the
 * controller's cache and calls {@link Tally#reconciled} with the object's name and its {@code data.seq}. It
 * writes nothing. Implementations have a public no-argument constructor (created by class name, so that a JVM
 * loads only its own library).
 */
public interface ControllerUnderTest {

    /** Starts the controller against the API server at {@code url}, with {@code workers} reconcile threads. */
    void start(String url, int workers, Tally tally) throws Exception;

    /** The workers the library uses when not told: what {@code --workers 0} means. */
    int defaultWorkers();
}
