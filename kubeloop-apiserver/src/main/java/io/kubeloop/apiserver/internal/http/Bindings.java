package io.kubeloop.apiserver.internal.http;

import io.fabric8.kubernetes.api.model.ListMeta;
import io.fabric8.kubernetes.api.model.Status;
import io.kubeloop.apiserver.internal.storage.Preconditions;
import io.kubeloop.apiserver.internal.storage.StorageKey;
import io.kubeloop.apiserver.internal.storage.Store;
import io.kubeloop.clock.Clock;
import io.kubeloop.model.ResourceRegistry;
import io.kubeloop.model.ResourceType;
import io.kubeloop.model.Statuses;
import io.kubeloop.model.Timestamps;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Assigns pods to nodes: a v1 Binding POSTed to {@code pods/{name}/binding} or to the legacy collection
 * {@code bindings}, as kube-apiserver's {@code BindingREST.Create} and {@code assignPod} do it (what a scheduler
 * calls, and what kubectl never does):
 *
 * <ol>
 *   <li>the Binding's {@code metadata.name} must be the pod's name in the URL (400 {@code name in URL does not
 *       match name in Binding object}); in the legacy collection the Binding's name is the pod's;
 *   <li>{@code target.kind} must be {@code Node} or empty and {@code target.name} is required (kube's
 *       {@code ValidatePodBinding}; kube answers these with a 500 because the error is not a Status, here a 400
 *       with the same message);
 *   <li>the pod must exist (404 {@code pods "x" not found}), satisfy the Binding's {@code metadata.uid} and
 *       {@code metadata.resourceVersion} when set (409 {@code Precondition failed: ...}), not be terminating, not
 *       be assigned already and have no scheduling gates (409 {@code Operation cannot be fulfilled on pods/binding
 *       "x": pod x is already assigned to node "y"} and the like);
 *   <li>then, in one write: {@code spec.nodeName} is the target, the Binding's annotations are merged into the
 *       pod's, and the {@code PodScheduled} condition is {@code True} (kube's {@code UpdatePodCondition}: reason
 *       and message cleared, {@code lastTransitionTime} now unless it was True already).
 * </ol>
 *
 * <p>The answer is 201 with a {@code Success} Status. As in kube, the pod is written straight to storage: no
 * strategy, admission or managedFields entry applies to a binding.
 */
final class Bindings {

    /** The kind a Binding body is type-checked as. */
    static final ResourceType BINDINGS =
            ResourceRegistry.builtIn().byResource("", "bindings").orElseThrow();

    /** The pods a Binding of the legacy collection assigns. */
    static final ResourceType PODS =
            ResourceRegistry.builtIn().byResource("", "pods").orElseThrow();

    private final Store store;
    private final Clock clock;

    Bindings(Store store, Clock clock) {
        this.store = store;
        this.clock = clock;
    }

    /**
     * Binds the pod as {@code binding} asks.
     *
     * @param urlName the pod's name in a {@code pods/{name}/binding} URL, or null for the legacy collection
     * @return the Success Status kube answers with (code 201)
     * @throws ApiException for a bad Binding; storage exceptions for a missing pod or a failed precondition
     */
    Status bind(ResourceType pods, String namespace, String urlName, ObjectNode binding, boolean dryRun) {
        String name = binding.path("metadata").path("name").asString("");
        if (urlName != null && !urlName.equals(name)) {
            throw new ApiException(Statuses.badRequest("name in URL does not match name in Binding object"));
        }
        List<String> errors = new ArrayList<>();
        String kind = binding.path("target").path("kind").asString("");
        if (!kind.isEmpty() && !kind.equals("Node")) {
            errors.add("target.kind: Unsupported value: \"" + kind + "\": supported values: \"Node\", \"<empty>\"");
        }
        String node = binding.path("target").path("name").asString("");
        if (node.isEmpty()) {
            errors.add("target.name: Required value");
        }
        if (!errors.isEmpty()) {
            // a Go ErrorList's aggregate: one error alone, else "[a, b]"
            throw new ApiException(
                    Statuses.badRequest(errors.size() == 1 ? errors.get(0) : "[" + String.join(", ", errors) + "]"));
        }
        if (name.isEmpty()) {
            throw new ApiException(Statuses.badRequest("Name parameter required."));
        }
        JsonNode meta = binding.path("metadata");
        Preconditions preconditions =
                new Preconditions(nonEmpty(meta.path("uid")), nonEmpty(meta.path("resourceVersion")));
        StorageKey key = new StorageKey(pods.group(), pods.plural(), namespace, name);
        try {
            store.guaranteedUpdate(key, preconditions, pod -> {
                assign(pod, name, node, meta.path("annotations"));
                if (dryRun) {
                    throw new WriteEndpoints.DryRunResult(pod);
                }
                return pod;
            });
        } catch (WriteEndpoints.DryRunResult checked) {
            // everything was checked; nothing is written
        }
        Status success = new Status();
        success.setApiVersion("v1");
        success.setKind("Status");
        success.setMetadata(new ListMeta());
        success.setStatus("Success");
        success.setCode(201);
        return success;
    }

    /** kube's {@code setPodNodeAndMetadata} on a private copy of the stored pod. */
    private void assign(ObjectNode pod, String name, String node, JsonNode annotations) {
        ObjectNode meta = (ObjectNode) pod.get("metadata");
        if (meta.hasNonNull("deletionTimestamp")) {
            throw conflict(name, "pod " + name + " is being deleted, cannot be assigned to a host");
        }
        JsonNode spec = pod.path("spec");
        String current = spec.path("nodeName").asString("");
        if (!current.isEmpty()) {
            throw conflict(name, "pod " + name + " is already assigned to node \"" + current + "\"");
        }
        if (!spec.path("schedulingGates").isEmpty()) {
            throw conflict(name, "pod " + name + " has non-empty .spec.schedulingGates");
        }
        pod.withObjectProperty("spec").put("nodeName", node);
        if (annotations.isObject() && !annotations.isEmpty()) {
            ObjectNode podAnnotations = meta.withObjectProperty("annotations");
            for (Map.Entry<String, JsonNode> a : annotations.properties()) {
                podAnnotations.set(a.getKey(), a.getValue());
            }
        }
        scheduled(pod.withObjectProperty("status"));
    }

    /** kube's {@code podutil.UpdatePodCondition} with {@code {type: PodScheduled, status: True}}. */
    private void scheduled(ObjectNode status) {
        String now = Timestamps.format(clock.now());
        ArrayNode conditions = status.withArrayProperty("conditions");
        for (int i = 0; i < conditions.size(); i++) {
            JsonNode c = conditions.get(i);
            if (c.path("type").asString("").equals("PodScheduled")) {
                String since = c.path("status").asString("").equals("True")
                        ? c.path("lastTransitionTime").asString(now)
                        : now;
                conditions.set(i, condition(conditions, since));
                return;
            }
        }
        conditions.add(condition(conditions, now));
    }

    private static ObjectNode condition(ArrayNode factory, String lastTransitionTime) {
        ObjectNode c = factory.objectNode();
        c.put("type", "PodScheduled");
        c.put("status", "True");
        c.putNull("lastProbeTime");
        c.put("lastTransitionTime", lastTransitionTime);
        return c;
    }

    private static ApiException conflict(String name, String why) {
        return new ApiException(Statuses.conflict("", "pods/binding", name, why));
    }

    private static String nonEmpty(JsonNode value) {
        String s = value.asString("");
        return s.isEmpty() ? null : s;
    }
}
