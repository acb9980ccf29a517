package io.kubeloop.apiserver.internal.registry;

import static io.kubeloop.apiserver.internal.registry.KubeFieldErrors.duplicate;
import static io.kubeloop.apiserver.internal.registry.KubeFieldErrors.forbidden;
import static io.kubeloop.apiserver.internal.registry.KubeFieldErrors.invalid;
import static io.kubeloop.apiserver.internal.registry.KubeFieldErrors.notSupported;
import static io.kubeloop.apiserver.internal.registry.KubeFieldErrors.required;

import io.kubeloop.model.Statuses.FieldError;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * core/v1 Nodes as kube-apiserver 1.32 admits them ({@code ValidateNode}, {@code ValidateNodeUpdate}; the same rules
 * for {@code /status}, where only the status changes). What a kubelet registers and posts — conditions, addresses,
 * capacity, allocatable, nodeInfo, daemonEndpoints, images — passes; what kube refuses is refused:
 *
 * <ul>
 *   <li>taints: a qualified-name key, a label-value value, an effect of NoSchedule, PreferNoSchedule or NoExecute,
 *       unique by key and effect (reported under {@code metadata.taints}, kube's own path);
 *   <li>{@code spec.podCIDRs}: valid CIDRs, at most one per IP family; once set they never change, nor does a set
 *       {@code spec.providerID};
 *   <li>capacity and allocatable quantities are not negative; no address appears twice.
 * </ul>
 *
 * <p>{@code spec.podCIDR} and {@code spec.podCIDRs} are kept in step as kube's v1 conversion keeps them: podCIDR is
 * the first of podCIDRs, and wins when the two disagree.
 */
final class NodeStrategy implements ResourceStrategy {

    private static final List<String> EFFECTS = List.of("NoSchedule", "PreferNoSchedule", "NoExecute");

    @Override
    public void applyDefaults(ObjectNode node) {
        if (!(node.get("spec") instanceof ObjectNode spec)) {
            return;
        }
        String podCidr = spec.path("podCIDR").asString("");
        JsonNode cidrs = spec.path("podCIDRs");
        if (!podCidr.isEmpty() && (cidrs.isEmpty() || !cidrs.get(0).asString("").equals(podCidr))) {
            spec.putArray("podCIDRs").add(podCidr);
        } else if (podCidr.isEmpty() && !cidrs.isEmpty()) {
            spec.put("podCIDR", cidrs.get(0).asString(""));
        }
    }

    @Override
    public List<FieldError> validate(ObjectNode node) {
        List<FieldError> errors = new ArrayList<>();
        taints(node.path("spec").path("taints"), errors);
        resources(node.path("status"), errors);
        podCidrs(node.path("spec").path("podCIDRs"), errors);
        return errors;
    }

    @Override
    public List<FieldError> validateUpdate(ObjectNode next, ObjectNode current) {
        List<FieldError> errors = new ArrayList<>();
        resources(next.path("status"), errors);
        Set<String> addresses = new HashSet<>();
        JsonNode list = next.path("status").path("addresses");
        for (int i = 0; i < list.size(); i++) {
            JsonNode a = list.get(i);
            if (!addresses.add(
                    a.path("type").asString("") + "\n" + a.path("address").asString(""))) {
                errors.add(duplicate(
                        "status.addresses[" + i + "]",
                        new KubeFieldErrors.GoValue("core.NodeAddress{Type:"
                                + KubeFieldErrors.quote(a.path("type").asString("")) + ", Address:"
                                + KubeFieldErrors.quote(a.path("address").asString("")) + "}")));
            }
        }
        JsonNode oldCidrs = current.path("spec").path("podCIDRs");
        JsonNode newCidrs = next.path("spec").path("podCIDRs");
        if (!oldCidrs.isEmpty()) {
            String forbidden = "node updates may not change podCIDR except from \"\" to valid";
            if (oldCidrs.size() != newCidrs.size()) {
                errors.add(forbidden("spec.podCIDRs", forbidden));
            } else {
                for (int i = 0; i < oldCidrs.size(); i++) {
                    if (!oldCidrs.get(i).asString("").equals(newCidrs.get(i).asString(""))) {
                        errors.add(forbidden("spec.podCIDRs", forbidden));
                    }
                }
            }
        }
        String oldProvider = current.path("spec").path("providerID").asString("");
        if (!oldProvider.isEmpty()
                && !oldProvider.equals(next.path("spec").path("providerID").asString(""))) {
            errors.add(
                    forbidden("spec.providerID", "node updates may not change providerID except from \"\" to valid"));
        }
        taints(next.path("spec").path("taints"), errors);
        // kube validates the CIDRs of a new node only; an update may only keep them or set them from none
        if (oldCidrs.isEmpty()) {
            podCidrs(newCidrs, errors);
        }
        return errors;
    }

    @Override
    public List<FieldError> validateStatusUpdate(ObjectNode next, ObjectNode current) {
        return validateUpdate(next, current);
    }

    /** kube's {@code validateNodeTaints}, under its path {@code metadata.taints}. */
    private static void taints(JsonNode taints, List<FieldError> errors) {
        Map<String, Set<String>> unique = new HashMap<>();
        for (int i = 0; i < taints.size(); i++) {
            JsonNode taint = taints.get(i);
            String path = "metadata.taints[" + i + "]";
            String key = taint.path("key").asString("");
            for (String msg : ObjectMetaValidation.qualifiedNameErrors(key)) {
                errors.add(invalid(path + ".key", key, msg));
            }
            String value = taint.path("value").asString("");
            List<String> valueErrors = ObjectMetaValidation.labelValueErrors(value);
            if (!valueErrors.isEmpty()) {
                errors.add(invalid(path + ".value", value, String.join(";", valueErrors)));
            }
            String effect = taint.path("effect").asString("");
            if (effect.isEmpty()) {
                errors.add(required(path + ".effect"));
            } else if (!EFFECTS.contains(effect)) {
                errors.add(notSupported(path + ".effect", effect, EFFECTS));
            }
            if (!unique.computeIfAbsent(effect, e -> new HashSet<>()).add(key)) {
                errors.add(new FieldError(
                        "Duplicate value",
                        path,
                        "core.Taint{Key:" + KubeFieldErrors.quote(key) + ", Value:" + KubeFieldErrors.quote(value)
                                + ", Effect:" + KubeFieldErrors.quote(effect)
                                + ", TimeAdded:(*v1.Time)(nil)}: taints must be "
                                + "unique by key and effect pair"));
            }
        }
    }

    /** kube's {@code ValidateNodeResources}: no negative capacity or allocatable. */
    private static void resources(JsonNode status, List<FieldError> errors) {
        for (String list : new String[] {"capacity", "allocatable"}) {
            for (var e : status.path(list).properties()) {
                BigDecimal q = PodSpecs.quantity(e.getValue());
                if (q != null && q.signum() < 0) {
                    errors.add(invalid(
                            "status." + list + "[" + e.getKey() + "]",
                            e.getValue().asString(""),
                            "must be greater than or equal to 0"));
                }
            }
        }
    }

    /** Valid CIDRs, and a dual-stack pair at most. */
    private static void podCidrs(JsonNode cidrs, List<FieldError> errors) {
        List<IpAddresses.Family> families = new ArrayList<>();
        for (int i = 0; i < cidrs.size(); i++) {
            String cidr = cidrs.get(i).asString("");
            IpAddresses.Family family = IpAddresses.cidrFamily(cidr);
            if (family == null) {
                errors.add(invalid(
                        "spec.podCIDRs[" + i + "]",
                        cidr,
                        "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"));
            }
            families.add(family);
        }
        if (cidrs.size() > 1 && (cidrs.size() > 2 || families.contains(null) || families.get(0) == families.get(1))) {
            errors.add(
                    invalid("spec.podCIDRs", strings(cidrs), "may specify no more than one CIDR for each IP family"));
        } else if (cidrs.size() == 2 && cidrs.get(0).equals(cidrs.get(1))) {
            errors.add(duplicate("spec.podCIDRs[1]", cidrs.get(1).asString("")));
        }
    }

    /** Go's {@code %#v} of a {@code []string}. */
    private static KubeFieldErrors.GoValue strings(JsonNode array) {
        List<String> quoted = new ArrayList<>();
        for (JsonNode s : (ArrayNode) array) {
            quoted.add(KubeFieldErrors.quote(s.asString("")));
        }
        return new KubeFieldErrors.GoValue("[]string{" + String.join(", ", quoted) + "}");
    }
}
