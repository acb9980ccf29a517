package io.kubeloop.testkit.internal;

import io.kubeloop.client.KubernetesClient;
import io.kubeloop.client.config.ClientConfig;
import io.kubeloop.informer.SharedInformerFactory;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One test method's namespace, the client whose default namespace it is and, once asked for, an informer factory
 * on that namespace. Closing it (after the method's {@code @AfterEach} methods) shuts the factory down, closes the
 * client and deletes the namespace with everything in it, in that order: informers stop before their objects go.
 */
final class MethodNamespace implements AutoCloseable {

    private final String name;
    private final ClientConfig config;
    private final KubernetesClient client;
    private final RunningServer server;
    private final ReentrantLock lock = new ReentrantLock();
    /** Guarded by {@code lock}; made on first use, null until then. */
    private SharedInformerFactory informers;

    MethodNamespace(String name, ClientConfig config, KubernetesClient client, RunningServer server) {
        this.name = name;
        this.config = config;
        this.client = client;
        this.server = server;
    }

    String name() {
        return name;
    }

    ClientConfig config() {
        return config;
    }

    KubernetesClient client() {
        return client;
    }

    /** A factory (not started) of informers on this namespace, through {@link #client()}; the same one each time. */
    SharedInformerFactory informers() {
        lock.lock();
        try {
            if (informers == null) {
                informers =
                        SharedInformerFactory.builder(client).namespace(name).build();
            }
            return informers;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void close() {
        lock.lock();
        try {
            if (informers != null) {
                informers.shutdown();
            }
        } finally {
            lock.unlock();
            try {
                client.close();
            } finally {
                server.deleteNamespace(name);
            }
        }
    }
}
