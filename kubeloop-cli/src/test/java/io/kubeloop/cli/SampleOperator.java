package io.kubeloop.cli;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Namespace;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.client.config.ClientConfig;
import io.kubeloop.controller.Manager;
import java.net.URI;
import java.util.function.Supplier;

/**
 * A user's operator as {@code kubeloop rbac} and {@code kubeloop run} load it: a static {@code manager()} that builds
 * (and does not start) the manager. The API server is the system property {@code sample.server}.
 */
public final class SampleOperator {

    private SampleOperator() {}

    public static Manager manager() {
        KubernetesClient client = KubernetesClient.create(ClientConfig.builder()
                .server(URI.create(System.getProperty("sample.server", "http://127.0.0.1:1")))
                .build());
        Manager manager = Manager.builder(client)
                .namespace("default")
                .metricsPort(0)
                .healthProbePort(0)
                .build();
        manager.informerFactory().informerFor(ConfigMap.class);
        manager.informerFactory().informerFor(Namespace.class);
        return manager;
    }

    /** The same operator as a {@code Supplier<Manager>}. */
    public static final class AsSupplier implements Supplier<Manager> {
        @Override
        public Manager get() {
            return manager();
        }
    }

    /** Neither convention. */
    public static final class NotAnOperator {}
}
