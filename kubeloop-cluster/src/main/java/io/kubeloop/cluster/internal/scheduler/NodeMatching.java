package io.kubeloop.cluster.internal.scheduler;

import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.NodeSelector;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.Toleration;
import java.util.List;
import java.util.Map;

/**
 * Kubernetes' matching rules for scheduling, as {@code k8s.io/component-helpers/scheduling/corev1}: tolerations
 * against taints ({@code ToleratesTaint}) and a pod's {@code nodeSelector} and required node affinity against a node
 * ({@code GetRequiredNodeAffinity().Match}). Stateless.
 */
final class NodeMatching {

    private NodeMatching() {}

    /** {@code Toleration.ToleratesTaint}: effect and key match when set (empty = any), then Exists or Equal value. */
    static boolean tolerates(Toleration t, String key, String value, String effect) {
        if (t.getEffect() != null && !t.getEffect().isEmpty() && !t.getEffect().equals(effect)) {
            return false;
        }
        if (t.getKey() != null && !t.getKey().isEmpty() && !t.getKey().equals(key)) {
            return false;
        }
        String op = t.getOperator() == null || t.getOperator().isEmpty() ? "Equal" : t.getOperator();
        return switch (op) {
            case "Exists" -> true;
            case "Equal" -> nullToEmpty(t.getValue()).equals(nullToEmpty(value));
            default -> false;
        };
    }

    static boolean tolerated(List<Toleration> tolerations, Taint taint) {
        if (tolerations == null) {
            return false;
        }
        for (Toleration t : tolerations) {
            if (tolerates(t, taint.getKey(), taint.getValue(), taint.getEffect())) {
                return true;
            }
        }
        return false;
    }

    /** The first of {@code taints} the pod does not tolerate, or null. */
    static Taint firstUntolerated(List<Toleration> tolerations, List<Taint> taints) {
        for (Taint taint : taints) {
            if (!tolerated(tolerations, taint)) {
                return taint;
            }
        }
        return null;
    }

    /** The pod's nodeSelector (every label equal) and required node affinity (any term) both match the node. */
    static boolean matchesNodeSelectorAndAffinity(PodSpec spec, String nodeName, Map<String, String> labels) {
        Map<String, String> selector = spec.getNodeSelector();
        if (selector != null) {
            for (Map.Entry<String, String> e : selector.entrySet()) {
                if (!e.getValue().equals(labels.get(e.getKey()))) {
                    return false;
                }
            }
        }
        Affinity affinity = spec.getAffinity();
        if (affinity == null || affinity.getNodeAffinity() == null) {
            return true;
        }
        NodeSelector required = affinity.getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution();
        if (required == null) {
            return true;
        }
        // the terms are ORed; a term's expressions and fields are ANDed; a term with neither matches nothing
        for (NodeSelectorTerm term : nullToEmpty(required.getNodeSelectorTerms())) {
            if (termMatches(term, nodeName, labels)) {
                return true;
            }
        }
        return false;
    }

    private static boolean termMatches(NodeSelectorTerm term, String nodeName, Map<String, String> labels) {
        List<NodeSelectorRequirement> expressions = nullToEmpty(term.getMatchExpressions());
        List<NodeSelectorRequirement> fields = nullToEmpty(term.getMatchFields());
        if (expressions.isEmpty() && fields.isEmpty()) {
            return false;
        }
        for (NodeSelectorRequirement r : expressions) {
            if (!requirementMatches(r, labels.get(r.getKey()), labels.containsKey(r.getKey()))) {
                return false;
            }
        }
        for (NodeSelectorRequirement r : fields) {
            // only metadata.name is a node field, and only In and NotIn apply to it
            if (!"metadata.name".equals(r.getKey())
                    || !("In".equals(r.getOperator()) || "NotIn".equals(r.getOperator()))
                    || !requirementMatches(r, nodeName, true)) {
                return false;
            }
        }
        return true;
    }

    private static boolean requirementMatches(NodeSelectorRequirement r, String value, boolean present) {
        List<String> values = nullToEmpty(r.getValues());
        return switch (r.getOperator() == null ? "" : r.getOperator()) {
            case "In" -> present && values.contains(value);
            case "NotIn" -> !present || !values.contains(value);
            case "Exists" -> present;
            case "DoesNotExist" -> !present;
            case "Gt", "Lt" -> {
                if (!present || values.size() != 1) {
                    yield false;
                }
                try {
                    long have = Long.parseLong(value);
                    long want = Long.parseLong(values.get(0));
                    yield "Gt".equals(r.getOperator()) ? have > want : have < want;
                } catch (NumberFormatException e) {
                    yield false; // kube: a value that is not an integer does not match
                }
            }
            default -> false;
        };
    }

    private static String nullToEmpty(String s) {
        return s == null ? "" : s;
    }

    private static <E> List<E> nullToEmpty(List<E> l) {
        return l == null ? List.of() : l;
    }
}
