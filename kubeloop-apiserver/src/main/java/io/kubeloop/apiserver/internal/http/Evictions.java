package io.kubeloop.apiserver.internal.http;

import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.StatusCause;
import io.fabric8.kubernetes.api.model.StatusDetails;
import io.kubeloop.apiserver.internal.lifecycle.DeleteOptions;
import io.kubeloop.apiserver.internal.lifecycle.ObjectLifecycle;
import io.kubeloop.apiserver.internal.storage.NotFoundException;
import io.kubeloop.apiserver.internal.storage.StorageKey;
import io.kubeloop.apiserver.internal.storage.Store;
import io.kubeloop.model.ResourceType;
import io.kubeloop.model.StatusReason;
import io.kubeloop.model.Statuses;
import io.kubeloop.model.selector.LabelSelector;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The {@code pods/eviction} subresource: a POST of a policy/v1 Eviction deletes the pod unless that would violate
 * the PodDisruptionBudget selecting it, as kube-apiserver's {@code EvictionREST.Create} decides:
 *
 * <ul>
 *   <li>a pod that is Succeeded, Failed, Pending or already terminating is deleted without looking at budgets;
 *   <li>more than one budget selecting the pod is a 500 (kube's eviction does not support it);
 *   <li>a pod that is not Ready is deleted when the budget's {@code unhealthyPodEvictionPolicy} is AlwaysAllow,
 *       or when the budget is met (currentHealthy ≥ desiredHealthy &gt; 0);
 *   <li>otherwise the eviction needs an allowed disruption, else 429 {@code Cannot evict pod as it would violate
 *       the pod's disruption budget.} with a {@code DisruptionBudget} cause naming the needed and current
 *       healthy pods.
 * </ul>
 *
 * <p>kube reads the allowed disruptions from the budget's {@code status}, which the disruption controller keeps
 * (and the eviction decrements, recording the pod in {@code disruptedPods} until the controller sees it gone).
 * No such controller runs here, so the status is computed at each eviction from the budget's spec and the pods it
 * selects, as that controller would: expected pods = the selected pods; desiredHealthy = minAvailable (a
 * percentage of the expected pods, rounded up) or expected − maxUnavailable (a percentage rounded up);
 * currentHealthy = selected pods that are Ready and not terminating; allowed = currentHealthy − desiredHealthy.
 * (kube takes the expected count from the pods' controllers' scale; with every pod present, as here without a
 * scheduler or kubelet, both agree.) The budget's stored status is left alone. Evictions are serialized, so two
 * concurrent ones never both spend the last allowed disruption: the first deletion is visible to the second.
 */
final class Evictions {

    private static final String MESSAGE = "Cannot evict pod as it would violate the pod's disruption budget.";

    private final JsonMapper json;
    private final Store store;
    private final ObjectLifecycle lifecycle;
    private final ReentrantLock lock = new ReentrantLock();

    Evictions(JsonMapper json, Store store, ObjectLifecycle lifecycle) {
        this.json = json;
        this.store = store;
        this.lifecycle = lifecycle;
    }

    /**
     * Evicts pod {@code name} of {@code namespace} as the Eviction {@code body} asks; answers the Success Status
     * kube answers (with 201), or throws an {@link ApiException}.
     */
    Status evict(ResourceType pods, String namespace, String name, ObjectNode body, Map<String, String> query) {
        String kind = body.path("kind").asString("");
        String apiVersion = body.path("apiVersion").asString("");
        if (!kind.equals("Eviction") || !(apiVersion.equals("policy/v1") || apiVersion.equals("policy/v1beta1"))) {
            throw new ApiException(Statuses.badRequest(
                    "not a Eviction object: " + (kind.isEmpty() ? "<none>" : apiVersion + ", Kind=" + kind)));
        }
        if (!body.path("metadata").path("name").asString("").equals(name)) {
            throw new ApiException(Statuses.badRequest("name in URL does not match name in Eviction object"));
        }
        JsonNode deleteOptions = body.get("deleteOptions");
        DeleteOptions options =
                DeleteOptions.parse(deleteOptions == null || deleteOptions.isNull() ? null : deleteOptions, query);
        StorageKey key = new StorageKey(pods.group(), pods.plural(), namespace, name);
        lock.lock();
        try {
            ObjectNode pod = store.get(key); // NotFoundException: 404 pods "x" not found
            if (!canIgnoreBudgets(pod)) {
                checkBudgets(pod, namespace);
            }
            lifecycle.delete(pods, key, options);
        } finally {
            lock.unlock();
        }
        Status success = new Status();
        success.setApiVersion("v1");
        success.setKind("Status");
        success.setMetadata(new io.fabric8.kubernetes.api.model.ListMeta());
        success.setStatus("Success");
        return success;
    }

    /** kube's {@code canIgnorePDB}: a terminal, pending or terminating pod causes no new disruption. */
    private static boolean canIgnoreBudgets(ObjectNode pod) {
        String phase = pod.path("status").path("phase").asString("");
        return phase.equals("Succeeded")
                || phase.equals("Failed")
                || phase.equals("Pending")
                || pod.path("metadata").hasNonNull("deletionTimestamp");
    }

    private void checkBudgets(ObjectNode pod, String namespace) {
        List<ObjectNode> selected = new ArrayList<>();
        for (ObjectNode budget : list("policy", "poddisruptionbudgets", namespace)) {
            if (selector(budget).matches(labels(pod))) {
                selected.add(budget);
            }
        }
        if (selected.isEmpty()) {
            return;
        }
        if (selected.size() > 1) {
            String why = "This pod has more than one PodDisruptionBudget, which the eviction subresource does not"
                    + " support.";
            Status s = Statuses.failure(StatusReason.InternalError, "Internal error occurred: " + why);
            StatusDetails details = new StatusDetails();
            StatusCause cause = new StatusCause();
            cause.setMessage(why);
            details.setCauses(List.of(cause));
            s.setDetails(details);
            throw new ApiException(s);
        }
        ObjectNode budget = selected.get(0);
        Health health = health(budget, namespace);
        boolean ready = isReady(pod);
        String unhealthyPolicy =
                budget.path("spec").path("unhealthyPodEvictionPolicy").asString("");
        if (!ready && unhealthyPolicy.equals("AlwaysAllow")) {
            return;
        }
        if (!ready && health.current >= health.desired && health.desired > 0) {
            return;
        }
        if (health.current - health.desired <= 0) {
            Status s = Statuses.failure(StatusReason.TooManyRequests, MESSAGE);
            StatusDetails details = new StatusDetails();
            StatusCause cause = new StatusCause();
            cause.setReason("DisruptionBudget");
            cause.setMessage("The disruption budget "
                    + budget.path("metadata").path("name").asString("") + " needs " + health.desired
                    + " healthy pods and has " + health.current + " currently");
            details.setCauses(List.of(cause));
            s.setDetails(details);
            throw new ApiException(s);
        }
    }

    private record Health(long desired, long current) {}

    /** The disruption controller's arithmetic over the pods {@code budget} selects now. */
    private Health health(ObjectNode budget, String namespace) {
        LabelSelector selector = selector(budget);
        long expected = 0;
        long healthy = 0;
        for (ObjectNode pod : list("", "pods", namespace)) {
            if (!selector.matches(labels(pod))) {
                continue;
            }
            expected++;
            if (isReady(pod) && !pod.path("metadata").hasNonNull("deletionTimestamp")) {
                healthy++;
            }
        }
        JsonNode spec = budget.path("spec");
        long desired = 0;
        if (spec.hasNonNull("maxUnavailable")) {
            desired = Math.max(0, expected - scaled(spec.get("maxUnavailable"), expected));
        } else if (spec.hasNonNull("minAvailable")) {
            desired = scaled(spec.get("minAvailable"), expected);
        }
        return new Health(desired, healthy);
    }

    /** An int-or-string: the integer, or the percentage of {@code total} rounded up (as the controller does). */
    private static long scaled(JsonNode value, long total) {
        if (value.isNumber()) {
            return value.asLong();
        }
        String s = value.asString("");
        if (s.endsWith("%")) {
            try {
                long percent = Long.parseLong(s.substring(0, s.length() - 1));
                return (total * percent + 99) / 100;
            } catch (NumberFormatException e) {
                return 0; // validation refuses such a budget; a stored one protects nothing
            }
        }
        return 0;
    }

    /** {@code podutil.IsPodReady}: a Ready condition with status True. */
    private static boolean isReady(ObjectNode pod) {
        for (JsonNode c : pod.path("status").path("conditions")) {
            if (c.path("type").asString("").equals("Ready")) {
                return c.path("status").asString("").equals("True");
            }
        }
        return false;
    }

    /** A budget's selector; a missing or invalid one matches nothing, as kube skips such budgets. */
    private LabelSelector selector(ObjectNode budget) {
        JsonNode s = budget.path("spec").get("selector");
        if (s == null || s.isNull()) {
            return LabelSelector.nothing();
        }
        try {
            return LabelSelector.fromLabelSelector(
                    json.treeToValue(s, io.fabric8.kubernetes.api.model.LabelSelector.class));
        } catch (IllegalArgumentException | tools.jackson.core.JacksonException e) {
            return LabelSelector.nothing();
        }
    }

    private static Map<String, String> labels(ObjectNode object) {
        Map<String, String> labels = new HashMap<>();
        object.path("metadata")
                .path("labels")
                .properties()
                .forEach(e -> labels.put(e.getKey(), e.getValue().asString("")));
        return labels;
    }

    private List<ObjectNode> list(String group, String plural, String namespace) {
        try {
            return store.list(group, plural, namespace, 0, null, 0, null).items();
        } catch (NotFoundException e) {
            return List.of();
        }
    }
}
