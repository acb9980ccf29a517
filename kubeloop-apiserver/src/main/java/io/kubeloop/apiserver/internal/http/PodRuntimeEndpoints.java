package io.kubeloop.apiserver.internal.http;

import static io.kubeloop.apiserver.internal.http.QueryParameters.methodNotAllowed;

import io.kubeloop.apiserver.internal.storage.StorageKey;
import io.kubeloop.apiserver.internal.storage.Store;
import io.kubeloop.model.ResourceType;
import io.kubeloop.model.Statuses;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The pod subresources a kubelet serves — {@code pods/log}, {@code pods/exec}, {@code pods/attach} and {@code
 * pods/portforward} — which this server, having no nodes and no container runtime, refuses with a Status that
 * says so, after the checks kube-apiserver makes itself before it would reach a kubelet: the pod exists (404), the
 * method is the subresource's (405), and a {@code container} parameter names one of the pod's containers, or is
 * needed because it has several (400, kube's wording).
 *
 * <p>The refusal is kube-apiserver's answer for a pod that has no node: 400 BadRequest {@code pod NAME does not
 * have a host assigned} (its {@code streamLocation} for exec, attach and portforward), followed by why. For logs
 * kube-apiserver answers such a pod with an empty 200 (it has no kubelet to ask); this server answers the same 400
 * instead, so that a test reading logs learns that there are none to read rather than that the container printed
 * nothing. A pod with a {@code spec.nodeName} gets the same 400, not the 5xx kube-apiserver answers when a kubelet
 * cannot be reached: here the condition is permanent, and a 5xx would invite clients to retry it.
 *
 * <p>A pod bound to a Node that exists runs on the embedded cluster (kubeloop-cluster), whose nodes are simulated:
 * its 400 says so, e.g. {@code pod "web-1" runs on node "node-1" of kubeloop's embedded cluster, which has no
 * container runtime: there are no logs to read}.
 */
final class PodRuntimeEndpoints {

    /** The subresources served here, and the methods each takes (kube-apiserver's connect verbs). */
    private static final Set<String> SUBRESOURCES = Set.of("log", "exec", "attach", "portforward");

    private final Store store;
    private final Responses responses;

    PodRuntimeEndpoints(Store store, Responses responses) {
        this.store = store;
        this.responses = responses;
    }

    /** Whether the request is for one of these subresources of a core v1 pod. */
    static boolean handles(ResourceType type, String subresource) {
        return type.group().isEmpty() && type.plural().equals("pods") && SUBRESOURCES.contains(subresource);
    }

    void handle(ResourceRequest request) throws java.io.IOException {
        String sub = request.info().subresource();
        String method = request.method();
        boolean allowed = sub.equals("log")
                ? method.equals("GET") || method.equals("HEAD")
                : method.equals("GET") || method.equals("HEAD") || method.equals("POST");
        if (!allowed || request.info().isCollection()) {
            throw methodNotAllowed();
        }
        String name = request.info().name();
        ObjectNode pod = store.get(request.key()); // 404 NotFound, as kube-apiserver
        if (!sub.equals("portforward")) {
            checkContainer(pod, name, request.param("container"));
        }
        String node = pod.path("spec").path("nodeName").asString("");
        if (!node.isEmpty() && nodeExists(node)) {
            responses.status(
                    request.exchange(),
                    Statuses.badRequest("pod \"" + name + "\" runs on node \"" + node + "\" of kubeloop's embedded "
                            + "cluster, which has no container runtime: " + nothingToServe(sub)));
            return;
        }
        String where = node.isEmpty()
                ? "pod " + name + " does not have a host assigned"
                : "pod " + name + " is bound to " + "node " + node + ", which has no kubelet";
        responses.status(
                request.exchange(),
                Statuses.badRequest(where + ": the embedded API server runs no kubelet and no container runtime, so "
                        + "pods/" + sub + " cannot be served (it stores pods; nothing runs them)"));
    }

    private boolean nodeExists(String node) {
        try {
            store.get(StorageKey.clusterScoped("", "nodes", node));
            return true;
        } catch (io.kubeloop.apiserver.internal.storage.NotFoundException absent) {
            return false;
        }
    }

    /** What a simulated node cannot give for {@code subresource}. */
    private static String nothingToServe(String subresource) {
        return switch (subresource) {
            case "log" -> "there are no logs to read";
            case "exec" -> "there is no container to run a command in";
            case "attach" -> "there is no running process to attach to";
            default -> "there is no port to forward to";
        };
    }

    /**
     * kube-apiserver's container check before a kubelet is asked: a named container must be one of the pod's
     * (containers, init or ephemeral containers); none named is fine with exactly one container.
     */
    private static void checkContainer(ObjectNode pod, String name, String container) {
        JsonNode spec = pod.path("spec");
        List<String> containers = names(spec.path("containers"));
        List<String> initContainers = names(spec.path("initContainers"));
        if (container == null || container.isEmpty()) {
            if (containers.size() == 1) {
                return;
            }
            if (containers.isEmpty()) {
                throw new ApiException(Statuses.badRequest("a container name must be specified for pod " + name));
            }
            String message = "a container name must be specified for pod " + name + ", choose one of: ["
                    + String.join(" ", containers) + "]";
            if (!initContainers.isEmpty()) {
                message += " or one of the init containers: [" + String.join(" ", initContainers) + "]";
            }
            throw new ApiException(Statuses.badRequest(message));
        }
        if (!containers.contains(container)
                && !initContainers.contains(container)
                && !names(spec.path("ephemeralContainers")).contains(container)) {
            throw new ApiException(Statuses.badRequest("container " + container + " is not valid for pod " + name));
        }
    }

    private static List<String> names(JsonNode containers) {
        List<String> names = new ArrayList<>();
        for (JsonNode c : containers) {
            names.add(c.path("name").asString(""));
        }
        return names;
    }
}
