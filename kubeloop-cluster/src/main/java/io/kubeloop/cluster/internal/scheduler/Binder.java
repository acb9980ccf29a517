package io.kubeloop.cluster.internal.scheduler;

import io.fabric8.kubernetes.api.model.Pod;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.client.codec.Decoding;
import io.kubeloop.client.transport.HttpTransport;
import io.kubeloop.client.transport.RateLimiter;
import java.io.OutputStream;
import tools.jackson.databind.node.ObjectNode;

/**
 * kube-scheduler's DefaultBinder: {@code POST /api/v1/namespaces/<ns>/pods/<name>/binding} with a {@code v1/Binding}
 * that names the pod (with its uid, a precondition: a pod deleted and re-created under the same name is not bound)
 * and the target Node.
 *
 * <p>The client has no call for a subresource POST, so the binder sends it through an {@link HttpTransport} of its
 * own made from the manager client's configuration and clock, without a client-side rate limit (a scheduler binding
 * thousands of pods a second must not wait for tokens; the embedded cluster's clients have none either). Thread-safe;
 * many bindings are in flight at once, one per scheduler worker.
 */
final class Binder implements AutoCloseable {

    private final HttpTransport transport;

    Binder(KubernetesClient client) {
        this.transport = HttpTransport.builder(client.config())
                .clock(client.clock())
                .rateLimiter(RateLimiter.unlimited())
                .userAgent("kubeloop default-scheduler")
                .build();
    }

    /**
     * Binds {@code pod} to {@code node}.
     *
     * @throws io.kubeloop.client.errors.KubernetesApiException the server refused (404 the pod is gone, 409 it is
     *     bound already, …)
     * @throws java.io.UncheckedIOException no answer
     */
    void bind(Pod pod, String node) {
        String ns = pod.getMetadata().getNamespace();
        String name = pod.getMetadata().getName();
        ObjectNode binding = Decoding.standard().mapper().createObjectNode();
        binding.put("apiVersion", "v1");
        binding.put("kind", "Binding");
        ObjectNode meta = binding.putObject("metadata");
        meta.put("name", name);
        meta.put("namespace", ns);
        if (pod.getMetadata().getUid() != null) {
            meta.put("uid", pod.getMetadata().getUid());
        }
        ObjectNode target = binding.putObject("target");
        target.put("apiVersion", "v1");
        target.put("kind", "Node");
        target.put("name", node);
        // namespace and pod names are DNS labels and subdomains: nothing to escape in a path
        transport.send(
                "POST",
                "/api/v1/namespaces/" + ns + "/pods/" + name + "/binding",
                "application/json",
                Decoding.standard().mapper().writeValueAsBytes(binding),
                in -> {
                    in.transferTo(OutputStream.nullOutputStream());
                    return null;
                });
    }

    @Override
    public void close() {
        transport.close();
    }
}
