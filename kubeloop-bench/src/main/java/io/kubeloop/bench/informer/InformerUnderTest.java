package io.kubeloop.bench.informer;

/**
 * One informer library set up for pods in all namespaces, with one handler that reports to {@link Deliveries}.
 * Implementations: {@link BaselineInformer} (plain list + watch into a map), {@link Fabric8Informer},
 * {@link ClientJavaInformer}, {@link KubeloopInformer}.
 */
interface InformerUnderTest extends AutoCloseable {

    /** Starts listing and watching {@code url}; returns without waiting for the sync. */
    void start(String url, Deliveries deliveries) throws Exception;

    /** The library's own "synced" signal. */
    boolean hasSynced();

    /** Objects in the library's cache. */
    int cacheSize();

    @Override
    void close();
}
