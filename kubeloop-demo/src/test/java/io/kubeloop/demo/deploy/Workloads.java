package io.kubeloop.demo.deploy;

import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.demo.PodSet;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** The objects the deploy tests give the operator to work on, and plain HTTP GETs of its endpoints. */
final class Workloads {

    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private Workloads() {}

    static void namespace(KubernetesClient admin, String name) {
        admin.resources(Namespace.class)
                .create(new NamespaceBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .endMetadata()
                        .build());
    }

    /** A PodSet of {@code replicas} pods of one container. */
    static PodSet podSet(String name, int replicas) {
        PodSet set = new PodSet();
        set.setMetadata(new ObjectMetaBuilder().withName(name).build());
        PodSet.Spec spec = new PodSet.Spec();
        spec.setReplicas(replicas);
        spec.setTemplate(new PodTemplateSpecBuilder()
                .withNewSpec()
                .addNewContainer()
                .withName("web")
                .withImage("nginx:1.27")
                .endContainer()
                .endSpec()
                .build());
        set.setSpec(spec);
        return set;
    }

    /** A Deployment for replica-audit to watch. */
    static Deployment deployment(String name, int replicas) {
        return new DeploymentBuilder()
                .withNewMetadata()
                .withName(name)
                .endMetadata()
                .withNewSpec()
                .withReplicas(replicas)
                .withNewSelector()
                .addToMatchLabels("app", name)
                .endSelector()
                .withNewTemplate()
                .withNewMetadata()
                .addToLabels("app", name)
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName(name)
                .withImage("nginx:1.27")
                .endContainer()
                .endSpec()
                .endTemplate()
                .endSpec()
                .build();
    }

    /** GET http://127.0.0.1:{@code port}{@code path}: the status and the body. */
    static HttpResponse<String> get(int port, String path) {
        try {
            return HTTP.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                            .timeout(Duration.ofSeconds(10))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
