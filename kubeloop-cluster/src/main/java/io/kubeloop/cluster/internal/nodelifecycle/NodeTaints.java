package io.kubeloop.cluster.internal.nodelifecycle;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.Toleration;
import io.kubeloop.client.errors.ConflictException;
import io.kubeloop.client.errors.NotFoundException;
import io.kubeloop.controller.ControllerClient;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Taints, tolerations and node conditions as kube's {@code pkg/util/taints}, {@code v1helper} and the node lifecycle
 * controller's helpers ({@code SwapNodeControllerTaint}, {@code AddOrUpdateTaintOnNode}, {@code RemoveTaintOffNode})
 * see them. A taint is identified by its key and effect ({@code MatchTaint}); a node holds at most one of each.
 */
final class NodeTaints {

    static final String NOT_READY = "node.kubernetes.io/not-ready";
    static final String UNREACHABLE = "node.kubernetes.io/unreachable";
    static final String UNSCHEDULABLE = "node.kubernetes.io/unschedulable";
    static final String MEMORY_PRESSURE = "node.kubernetes.io/memory-pressure";
    static final String DISK_PRESSURE = "node.kubernetes.io/disk-pressure";
    static final String PID_PRESSURE = "node.kubernetes.io/pid-pressure";
    static final String NETWORK_UNAVAILABLE = "node.kubernetes.io/network-unavailable";
    static final String OUT_OF_SERVICE = "node.kubernetes.io/out-of-service";

    static final String NO_EXECUTE = "NoExecute";
    static final String NO_SCHEDULE = "NoSchedule";

    /** kube's {@code UpdateTaintBackoff}: 5 attempts, each after a conflict reads the node again. */
    private static final int ATTEMPTS = 5;

    private NodeTaints() {}

    static Taint taint(String key, String effect) {
        Taint t = new Taint();
        t.setKey(key);
        t.setEffect(effect);
        return t;
    }

    /** kube's {@code MatchTaint}: the same key and effect. */
    static boolean matches(Taint a, Taint b) {
        return Objects.equals(a.getKey(), b.getKey()) && Objects.equals(a.getEffect(), b.getEffect());
    }

    static boolean has(Node node, Taint template) {
        return taints(node).stream().anyMatch(t -> matches(t, template));
    }

    static List<Taint> taints(Node node) {
        List<Taint> taints = node.getSpec() == null ? null : node.getSpec().getTaints();
        return taints == null ? List.of() : taints;
    }

    static List<Taint> noExecute(Node node) {
        return taints(node).stream()
                .filter(t -> NO_EXECUTE.equals(t.getEffect()))
                .toList();
    }

    /** kube's {@code Toleration.ToleratesTaint} (without the alpha comparison operators). */
    static boolean tolerates(Toleration toleration, Taint taint) {
        if (!empty(toleration.getEffect()) && !toleration.getEffect().equals(taint.getEffect())) {
            return false;
        }
        if (!empty(toleration.getKey()) && !toleration.getKey().equals(taint.getKey())) {
            return false;
        }
        String op = toleration.getOperator();
        if (empty(op) || "Equal".equals(op)) {
            return Objects.equals(nullToEmpty(toleration.getValue()), nullToEmpty(taint.getValue()));
        }
        return "Exists".equals(op);
    }

    /** The first toleration of {@code tolerations} that tolerates {@code taint}, or null (kube's order). */
    static Toleration firstTolerating(List<Toleration> tolerations, Taint taint) {
        if (tolerations != null) {
            for (Toleration t : tolerations) {
                if (tolerates(t, taint)) {
                    return t;
                }
            }
        }
        return null;
    }

    static NodeCondition condition(Node node, String type) {
        if (node.getStatus() == null || node.getStatus().getConditions() == null) {
            return null;
        }
        for (NodeCondition c : node.getStatus().getConditions()) {
            if (type.equals(c.getType())) {
                return c;
            }
        }
        return null;
    }

    /** A timestamp as the API writes one ({@code metav1.Time}: RFC 3339, whole seconds, UTC). */
    static String timestamp(Instant instant) {
        return DateTimeFormatter.ISO_INSTANT.format(instant.truncatedTo(ChronoUnit.SECONDS));
    }

    /** Parses an API timestamp; null when absent or unparsable. */
    static Instant parse(String timestamp) {
        if (empty(timestamp)) {
            return null;
        }
        try {
            return DateTimeFormatter.ISO_OFFSET_DATE_TIME.parse(timestamp, Instant::from);
        } catch (RuntimeException e) {
            return null;
        }
    }

    /**
     * kube's {@code SwapNodeControllerTaint}: adds {@code toAdd} (each with {@code timeAdded} = now, replacing a taint
     * unless one of the same key and effect is there already) and removes taints matching {@code toRemove}, in one patch of {@code spec.taints}
     * conditional on the node's resourceVersion; a conflict reads the node from the API server and tries again. Does
     * nothing (no request) when the node already has exactly that.
     *
     * @param cached the node as last seen (not modified)
     * @return false when the node is gone
     */
    static boolean swap(ControllerClient client, Node cached, List<Taint> toAdd, List<Taint> toRemove, Instant now) {
        List<Taint> adds = new ArrayList<>();
        for (Taint t : toAdd) {
            Taint copy = taint(t.getKey(), t.getEffect());
            copy.setValue(t.getValue());
            copy.setTimeAdded(timestamp(now));
            adds.add(copy);
        }
        Node base = cached;
        for (int attempt = 1; ; attempt++) {
            List<Taint> current = taints(base);
            List<Taint> next = new ArrayList<>();
            for (Taint t : current) {
                boolean removed = toRemove.stream().anyMatch(r -> matches(r, t));
                boolean replaced = adds.stream().anyMatch(a -> matches(a, t));
                if (!removed && !replaced) {
                    next.add(t);
                }
            }
            for (Taint a : adds) {
                Taint existing =
                        current.stream().filter(t -> matches(t, a)).findFirst().orElse(null);
                // A taint already there keeps its timeAdded: re-stamping it (a stale read) would restart the
                // tolerationSeconds of every pod on the node.
                next.add(existing != null ? existing : a);
            }
            if (sameList(current, next)) {
                return true;
            }
            Node modified = copyWithTaints(base, next);
            try {
                client.patch(base, modified);
                return true;
            } catch (ConflictException e) {
                if (attempt >= ATTEMPTS) {
                    throw e;
                }
                base = client.apiReader()
                        .get(Node.class, "", cached.getMetadata().getName())
                        .orElse(null);
                if (base == null) {
                    return false;
                }
            } catch (NotFoundException e) {
                return false;
            }
        }
    }

    private static Node copyWithTaints(Node base, List<Taint> taints) {
        Node copy = new io.fabric8.kubernetes.api.model.NodeBuilder(base).build();
        if (copy.getSpec() == null) {
            copy.setSpec(new io.fabric8.kubernetes.api.model.NodeSpec());
        }
        copy.getSpec().setTaints(taints.isEmpty() ? null : new ArrayList<>(taints));
        return copy;
    }

    private static boolean sameTaint(Taint a, Taint b) {
        return matches(a, b)
                && Objects.equals(nullToEmpty(a.getValue()), nullToEmpty(b.getValue()))
                && Objects.equals(a.getTimeAdded(), b.getTimeAdded());
    }

    private static boolean sameList(List<Taint> a, List<Taint> b) {
        if (a.size() != b.size()) {
            return false;
        }
        for (int i = 0; i < a.size(); i++) {
            if (!sameTaint(a.get(i), b.get(i))) {
                return false;
            }
        }
        return true;
    }

    static boolean empty(String s) {
        return s == null || s.isEmpty();
    }

    private static String nullToEmpty(String s) {
        return s == null ? "" : s;
    }
}
