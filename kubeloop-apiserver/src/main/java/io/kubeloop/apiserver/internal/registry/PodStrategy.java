package io.kubeloop.apiserver.internal.registry;

import static io.kubeloop.apiserver.internal.registry.KubeFieldErrors.duplicate;
import static io.kubeloop.apiserver.internal.registry.KubeFieldErrors.forbidden;
import static io.kubeloop.apiserver.internal.registry.KubeFieldErrors.invalid;

import io.kubeloop.model.StatusReason;
import io.kubeloop.model.Statuses;
import io.kubeloop.model.Statuses.FieldError;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * core/v1 Pods as kube-apiserver 1.32 admits them:
 *
 * <ul>
 *   <li>defaulting ({@code SetDefaults_Pod}, {@code SetDefaults_PodSpec}, see {@link PodSpecs}) and the
 *       admission plugins every cluster runs: DefaultTolerationSeconds (the {@code not-ready} and {@code
 *       unreachable} NoExecute tolerations, 300 s or the server's setting; create and update, after the field
 *       manager has recorded the write, so that they are nobody's fields), ServiceAccount ({@code serviceAccountName:
 *       default}; create) and Priority ({@code priority: 0}, {@code preemptionPolicy: PreemptLowerPriority}, or
 *       the built-in system classes' values; create);
 *   <li>{@code PrepareForCreate}: status reset to {@code phase: Pending} and the pod's QoS class;
 *   <li>{@code ValidatePod} (the rules users hit, see {@link PodSpecs#validate}) and {@code ValidatePodUpdate}: a
 *       pod's spec is immutable but for container images, {@code activeDeadlineSeconds} (lowered or set), added
 *       tolerations, removed scheduling gates, and a negative grace period set to 1.
 * </ul>
 *
 * Not done: the service account token volume (kube mounts {@code kube-api-access-*}; the embedded server has no
 * token controller), pod-level resources and the alpha features of 1.32.
 */
final class PodStrategy implements ResourceStrategy {

    /** The tolerationSeconds DefaultTolerationSeconds gives the not-ready and unreachable tolerations it adds. */
    private final long notReadySeconds;

    private final long unreachableSeconds;

    PodStrategy(long notReadySeconds, long unreachableSeconds) {
        this.notReadySeconds = notReadySeconds;
        this.unreachableSeconds = unreachableSeconds;
    }

    static final String NOT_READY = "node.kubernetes.io/not-ready";
    static final String UNREACHABLE = "node.kubernetes.io/unreachable";
    /** kube-apiserver's {@code --default-not-ready-toleration-seconds} and {@code --default-unreachable-...}. */
    static final long DEFAULT_TOLERATION_SECONDS = 300;
    /** kube's built-in PriorityClasses, the only ones a pod may name here (the server serves no PriorityClass). */
    private static final Map<String, Integer> SYSTEM_PRIORITIES =
            Map.of("system-cluster-critical", 2_000_000_000, "system-node-critical", 2_000_001_000);

    @Override
    public void applyDefaults(ObjectNode pod) {
        ObjectNode spec = WorkloadSpecs.spec(pod);
        PodSpecs.applyDefaults(spec);
        // SetDefaults_Pod: only a Pod (not a template) gets these
        for (String list : new String[] {"initContainers", "containers"}) {
            for (JsonNode c : spec.path(list)) {
                if (c instanceof ObjectNode container) {
                    requestsFromLimits(container);
                    if (spec.path("hostNetwork").asBoolean(false)) {
                        for (JsonNode p : container.path("ports")) {
                            if (p instanceof ObjectNode port
                                    && port.path("hostPort").asLong(0) == 0) {
                                port.put("hostPort", port.path("containerPort").asInt(0));
                            }
                        }
                    }
                }
            }
        }
        if (!spec.has("enableServiceLinks") || spec.get("enableServiceLinks").isNull()) {
            spec.put("enableServiceLinks", true);
        }
    }

    /** If limits are set but requests are not, requests default to the limits (pods only, not templates). */
    private static void requestsFromLimits(ObjectNode container) {
        if (!(container.path("resources").get("limits") instanceof ObjectNode limits)) {
            return;
        }
        ObjectNode resources = (ObjectNode) container.get("resources");
        ObjectNode requests = resources.get("requests") instanceof ObjectNode r ? r : resources.putObject("requests");
        for (var e : limits.properties()) {
            if (!requests.has(e.getKey())) {
                requests.set(e.getKey(), e.getValue().deepCopy());
            }
        }
    }

    /**
     * The DefaultTolerationSeconds admission plugin (kube's plugin/pkg/admission/defaulttolerationseconds): unless
     * the pod already tolerates the taint — a toleration whose key is the taint's or empty and whose effect is
     * NoExecute or empty, whatever its operator — it gets {@code {key, operator: Exists, effect: NoExecute,
     * tolerationSeconds}} for {@code node.kubernetes.io/not-ready} and for {@code node.kubernetes.io/unreachable},
     * appended in that order.
     */
    private void defaultTolerationSeconds(ObjectNode spec) {
        boolean notReady = false;
        boolean unreachable = false;
        for (JsonNode t : spec.path("tolerations")) {
            String key = t.path("key").asString("");
            String effect = t.path("effect").asString("");
            if (effect.isEmpty() || effect.equals("NoExecute")) {
                notReady |= key.isEmpty() || key.equals(NOT_READY);
                unreachable |= key.isEmpty() || key.equals(UNREACHABLE);
            }
        }
        if (notReady && unreachable) {
            return;
        }
        ArrayNode tolerations = PodSpecs.array(spec, "tolerations");
        if (!notReady) {
            toleration(tolerations, NOT_READY, notReadySeconds);
        }
        if (!unreachable) {
            toleration(tolerations, UNREACHABLE, unreachableSeconds);
        }
    }

    private static void toleration(ArrayNode tolerations, String key, long seconds) {
        ObjectNode t = tolerations.addObject();
        t.put("key", key);
        t.put("operator", "Exists");
        t.put("effect", "NoExecute");
        t.put("tolerationSeconds", seconds);
    }

    /** Mutating admission of an update of the main resource, before kube's PrepareForUpdate and validation. */
    @Override
    public void prepareForUpdate(ObjectNode next, ObjectNode current) {
        defaultTolerationSeconds(WorkloadSpecs.spec(next));
    }

    @Override
    public void prepareForCreate(ObjectNode pod) {
        ObjectNode spec = WorkloadSpecs.spec(pod);
        defaultTolerationSeconds(spec);
        // ServiceAccount admission
        if (spec.path("serviceAccountName").asString("").isEmpty()) {
            spec.put("serviceAccountName", "default");
            spec.put("serviceAccount", "default");
        }
        priority(pod, spec);
        ObjectNode status = pod.putObject("status");
        status.put("phase", "Pending");
        status.put("qosClass", qosClass(spec));
    }

    /** The Priority admission plugin: the priority and preemption policy of the pod's class (none: 0). */
    private static void priority(ObjectNode pod, ObjectNode spec) {
        String className = spec.path("priorityClassName").asString("");
        Integer priority = className.isEmpty() ? Integer.valueOf(0) : SYSTEM_PRIORITIES.get(className);
        String name = pod.path("metadata").path("name").asString("");
        if (priority == null) {
            throw admissionForbidden(name, "no PriorityClass with name " + className + " was found");
        }
        JsonNode given = spec.path("priority");
        if (given.isNumber() && given.asLong() != priority) {
            throw admissionForbidden(
                    name,
                    "the integer value of priority (" + given.asLong() + ") must not be provided in pod spec; priority "
                            + "admission controller computed " + priority + " from the given PriorityClass name");
        }
        spec.put("priority", priority.intValue());
        String policy = spec.path("preemptionPolicy").asString("");
        if (!policy.isEmpty() && !policy.equals("PreemptLowerPriority")) {
            throw admissionForbidden(
                    name,
                    "the string value of PreemptionPolicy (" + policy + ") must not be provided in pod spec; priority "
                            + "admission controller computed PreemptLowerPriority from the given PriorityClass name");
        }
        spec.put("preemptionPolicy", "PreemptLowerPriority");
    }

    private static AdmissionException admissionForbidden(String name, String why) {
        return new AdmissionException(
                Statuses.failure(StatusReason.Forbidden, "pods \"" + name + "\" is forbidden: " + why));
    }

    /**
     * kube's {@code ComputePodQOS} over cpu and memory of the containers and init containers: no requests or limits
     * is BestEffort; limits on both, equal to the requests, in every container is Guaranteed; else Burstable.
     */
    static String qosClass(JsonNode spec) {
        Map<String, BigDecimal> requests = new HashMap<>();
        Map<String, BigDecimal> limits = new HashMap<>();
        boolean guaranteed = true;
        for (String list : new String[] {"initContainers", "containers"}) {
            for (JsonNode c : spec.path(list)) {
                JsonNode resources = c.path("resources");
                for (var e : resources.path("requests").properties()) {
                    add(requests, e.getKey(), e.getValue());
                }
                Set<String> limited = new HashSet<>();
                for (var e : resources.path("limits").properties()) {
                    if (add(limits, e.getKey(), e.getValue())) {
                        limited.add(e.getKey());
                    }
                }
                guaranteed &= limited.contains("cpu") && limited.contains("memory");
            }
        }
        if (requests.isEmpty() && limits.isEmpty()) {
            return "BestEffort";
        }
        if (guaranteed) {
            for (var e : requests.entrySet()) {
                BigDecimal limit = limits.get(e.getKey());
                if (limit == null || limit.compareTo(e.getValue()) != 0) {
                    guaranteed = false;
                    break;
                }
            }
        }
        return guaranteed && requests.size() == limits.size() ? "Guaranteed" : "Burstable";
    }

    /** Adds a positive cpu or memory quantity to {@code sums}; true when it was one. */
    private static boolean add(Map<String, BigDecimal> sums, String resource, JsonNode value) {
        if (!resource.equals("cpu") && !resource.equals("memory")) {
            return false;
        }
        BigDecimal q = PodSpecs.quantity(value);
        if (q == null || q.signum() <= 0) {
            return false;
        }
        sums.merge(resource, q, BigDecimal::add);
        return true;
    }

    /**
     * The QoS class is set at creation and immutable; a status write that leaves it out keeps it (as kube's). podIP
     * and podIPs (hostIP and hostIPs) are kept in step as kube's v1 conversion keeps them: the single field is the
     * first of the list, and wins when the two disagree.
     */
    @Override
    public void prepareForStatusUpdate(ObjectNode next, ObjectNode current) {
        JsonNode qos = current.path("status").get("qosClass");
        ObjectNode status = next.get("status") instanceof ObjectNode s ? s : next.putObject("status");
        if (qos != null && status.path("qosClass").asString("").isEmpty()) {
            status.set("qosClass", qos);
        }
        pairIps(status, "podIP", "podIPs");
        pairIps(status, "hostIP", "hostIPs");
    }

    private static void pairIps(ObjectNode status, String single, String list) {
        String ip = status.path(single).asString("");
        JsonNode ips = status.path(list);
        if (!ip.isEmpty()
                && (ips.isEmpty() || !ips.get(0).path("ip").asString("").equals(ip))) {
            status.putArray(list).addObject().put("ip", ip);
        } else if (ip.isEmpty() && !ips.isEmpty()) {
            status.put(single, ips.get(0).path("ip").asString(""));
        }
    }

    /**
     * kube's {@code ValidatePodStatusUpdate}, what a kubelet's writes meet: the QoS class never changes; podIPs and
     * hostIPs are valid IPs, one per family at most, without duplicates; a container terminated under restartPolicy
     * Never (or OnFailure with exit code 0) is not running again. The spec cannot change here (the status strategy
     * keeps the stored one), so {@code spec.nodeName} is changed by a binding only.
     */
    @Override
    public List<FieldError> validateStatusUpdate(ObjectNode next, ObjectNode current) {
        List<FieldError> errors = new ArrayList<>();
        JsonNode status = next.path("status");
        JsonNode qos = status.path("qosClass");
        JsonNode old = current.path("status").path("qosClass");
        if (!old.isMissingNode() && !PodSpecs.same(qos, old)) {
            errors.add(invalid("status.qosClass", qos, "field is immutable"));
        }
        String restartPolicy = current.path("spec").path("restartPolicy").asString("Always");
        for (String list : new String[] {"containerStatuses", "initContainerStatuses"}) {
            stateTransitions(
                    status.path(list), current.path("status").path(list), "status." + list, restartPolicy, errors);
        }
        stateTransitions(
                status.path("ephemeralContainerStatuses"),
                current.path("status").path("ephemeralContainerStatuses"),
                "status.ephemeralContainerStatuses",
                "Never",
                errors);
        ips(status.path("podIPs"), "status.podIPs", "PodIP", errors);
        JsonNode hostIps = status.path("hostIPs");
        if (!hostIps.isEmpty()
                && !status.path("hostIP")
                        .asString("")
                        .equals(hostIps.get(0).path("ip").asString(""))) {
            errors.add(invalid(
                    "status.hostIPs[0].ip", hostIps.get(0).path("ip").asString(""), "must be equal to `hostIP`"));
        }
        ips(hostIps, "status.hostIPs", "HostIP", errors);
        return errors;
    }

    /** kube's {@code ValidateContainerStateTransition}. */
    private static void stateTransitions(
            JsonNode next, JsonNode old, String path, String restartPolicy, List<FieldError> errors) {
        if (restartPolicy.equals("Always")) {
            return;
        }
        for (int i = 0; i < old.size(); i++) {
            JsonNode terminated = old.get(i).path("state").get("terminated");
            if (terminated == null || terminated.isNull()) {
                continue;
            }
            if (terminated.path("exitCode").asLong(0) != 0 && restartPolicy.equals("OnFailure")) {
                continue;
            }
            String name = old.get(i).path("name").asString("");
            for (JsonNode n : next) {
                JsonNode now = n.path("state").get("terminated");
                if (n.path("name").asString("").equals(name) && (now == null || now.isNull())) {
                    errors.add(
                            forbidden(path + "[" + i + "].state", "may not be transitioned to non-terminated state"));
                }
            }
        }
    }

    /** kube's {@code validatePodIPs} / {@code validateHostIPs}: valid, one per family, no duplicates. */
    private static void ips(JsonNode list, String path, String goType, List<FieldError> errors) {
        List<IpAddresses.Family> families = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            String ip = list.get(i).path("ip").asString("");
            IpAddresses.Family family = IpAddresses.family(ip);
            if (family == null) {
                errors.add(invalid(
                        path + "[" + i + "]", ip, "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"));
            }
            families.add(family);
        }
        if (list.size() <= 1) {
            return;
        }
        if (list.size() > 2 || families.contains(null) || families.get(0) == families.get(1)) {
            List<String> items = new ArrayList<>();
            for (JsonNode ip : list) {
                items.add("core." + goType + "{IP:"
                        + KubeFieldErrors.quote(ip.path("ip").asString("")) + "}");
            }
            errors.add(invalid(
                    path,
                    new KubeFieldErrors.GoValue("[]core." + goType + "{" + String.join(", ", items) + "}"),
                    "may specify no more than one IP for each IP family"));
        }
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < list.size(); i++) {
            String ip = list.get(i).path("ip").asString("");
            if (!seen.add(ip)) {
                errors.add(duplicate(
                        path + "[" + i + "]",
                        new KubeFieldErrors.GoValue("core." + goType + "{IP:" + KubeFieldErrors.quote(ip) + "}")));
            }
        }
    }

    @Override
    public List<FieldError> validate(ObjectNode pod) {
        List<FieldError> errors = new ArrayList<>();
        PodSpecs.validate(pod.path("spec"), "spec", errors);
        return errors;
    }

    @Override
    public List<FieldError> validateUpdate(ObjectNode next, ObjectNode current) {
        List<FieldError> errors = validate(next);
        JsonNode spec = next.path("spec");
        JsonNode old = current.path("spec");
        for (String list : new String[] {"containers", "initContainers"}) {
            if (spec.path(list).size() != old.path(list).size()) {
                errors.add(forbidden("spec." + list, "pod updates may not add or remove containers"));
                return errors;
            }
        }
        JsonNode deadline = spec.path("activeDeadlineSeconds");
        JsonNode oldDeadline = old.path("activeDeadlineSeconds");
        if (deadline.isNumber()) {
            if (deadline.asLong() < 0 || deadline.asLong() > Integer.MAX_VALUE) {
                errors.add(invalid(
                        "spec.activeDeadlineSeconds",
                        deadline.asLong(),
                        "must be between 0 and 2147483647, inclusive"));
                return errors;
            }
            if (oldDeadline.isNumber() && oldDeadline.asLong() < deadline.asLong()) {
                errors.add(invalid(
                        "spec.activeDeadlineSeconds",
                        deadline.asLong(),
                        "must be less than or equal to previous value"));
                return errors;
            }
        } else if (oldDeadline.isNumber()) {
            errors.add(invalid(
                    "spec.activeDeadlineSeconds", null, "must not update from a positive integer to nil value"));
        }
        if (!onlyAddedTolerations(spec.path("tolerations"), old.path("tolerations"))) {
            errors.add(forbidden(
                    "spec.tolerations", "existing toleration can not be modified except its tolerationSeconds"));
        }
        Set<String> oldGates = new HashSet<>();
        old.path("schedulingGates").forEach(g -> oldGates.add(g.path("name").asString("")));
        for (JsonNode g : spec.path("schedulingGates")) {
            String gate = g.path("name").asString("");
            if (!oldGates.contains(gate)) {
                errors.add(forbidden(
                        "spec.schedulingGates",
                        "only deletion is allowed, but found new scheduling gate '" + gate + "'"));
                break;
            }
        }
        if (!PodSpecs.same(spec, old)) {
            String diff = diff(old, munged(spec, old));
            if (!diff.isEmpty()) {
                errors.add(PodSpecs.podSpecUpdateForbidden(diff));
            }
        }
        return errors;
    }

    /** Whether every old toleration is still there (its tolerationSeconds may change). */
    private static boolean onlyAddedTolerations(JsonNode tolerations, JsonNode old) {
        for (JsonNode o : old) {
            ObjectNode without = ((ObjectNode) o).deepCopy();
            without.remove("tolerationSeconds");
            boolean found = false;
            for (JsonNode t : tolerations) {
                if (t instanceof ObjectNode n) {
                    ObjectNode candidate = n.deepCopy();
                    candidate.remove("tolerationSeconds");
                    if (PodSpecs.same(candidate, without)) {
                        found = true;
                        break;
                    }
                }
            }
            if (!found) {
                return false;
            }
        }
        return true;
    }

    /** {@code next}'s spec with what an update may change taken from {@code old} (kube's "munged" spec). */
    private static ObjectNode munged(JsonNode next, JsonNode old) {
        ObjectNode munged = ((ObjectNode) next).deepCopy();
        for (String list : new String[] {"containers", "initContainers"}) {
            JsonNode oldList = old.path(list);
            int i = 0;
            for (JsonNode c : munged.path(list)) {
                if (c instanceof ObjectNode container) {
                    JsonNode oldImage = oldList.path(i).get("image");
                    if (oldImage == null) {
                        container.remove("image");
                    } else {
                        container.set("image", oldImage);
                    }
                }
                i++;
            }
        }
        for (String field : new String[] {"activeDeadlineSeconds", "schedulingGates", "tolerations"}) {
            if (old.has(field)) {
                munged.set(field, old.get(field));
            } else {
                munged.remove(field);
            }
        }
        if (old.path("terminationGracePeriodSeconds").asLong(0) < 0
                && munged.path("terminationGracePeriodSeconds").asLong(0) == 1) {
            munged.set("terminationGracePeriodSeconds", old.get("terminationGracePeriodSeconds"));
        }
        return munged;
    }

    /**
     * What differs between two pod specs, field by field, in the shape of the {@code cmp.Diff} kube appends to its
     * message ({@code - old}, {@code + new}); empty when they are equal.
     */
    private static String diff(JsonNode old, JsonNode next) {
        Set<String> fields = new LinkedHashSet<>();
        old.propertyNames().forEach(fields::add);
        next.propertyNames().forEach(fields::add);
        StringBuilder sb = new StringBuilder();
        for (String field : fields) {
            JsonNode a = old.get(field);
            JsonNode b = next.get(field);
            if (PodSpecs.same(a, b)) {
                continue;
            }
            String name = Character.toUpperCase(field.charAt(0)) + field.substring(1);
            if (a != null) {
                sb.append("- \t").append(name).append(": ").append(a).append(",\n");
            }
            if (b != null) {
                sb.append("+ \t").append(name).append(": ").append(b).append(",\n");
            }
        }
        return sb.isEmpty() ? "" : "  core.PodSpec{\n" + sb + "  }\n";
    }
}
