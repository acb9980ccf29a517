package io.kubeloop.cluster.internal.kubelet;

import io.fabric8.kubernetes.api.model.Quantity;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The machine behind one simulated node: its name, zone, capacity and extra labels. The kubelet derives the rest
 * (allocatable, the well-known labels, addresses, podCIDR) when it registers the Node.
 *
 * @param name the Node's name, a DNS subdomain ({@code node-1})
 * @param zone its {@code topology.kubernetes.io/zone}; null for none
 * @param cpu the CPU capacity ({@code 8})
 * @param memory the memory capacity ({@code 32Gi}); allocatable is 100Mi less (kubelet's default hard eviction
 *     threshold {@code memory.available<100Mi})
 * @param pods how many pods the node accepts ({@code 110}, kubelet's {@code maxPods})
 * @param ephemeralStorage the root filesystem's size ({@code 100Gi}); allocatable is 90 % of it
 *     ({@code nodefs.available<10%})
 * @param labels extra labels, added to (and overriding) the well-known ones
 */
public record NodeTemplate(
        String name,
        String zone,
        Quantity cpu,
        Quantity memory,
        Quantity pods,
        Quantity ephemeralStorage,
        Map<String, String> labels) {

    /** The region of every zone {@link #defaults(int)} hands out. */
    public static final String DEFAULT_REGION = "region-1";

    public NodeTemplate {
        Objects.requireNonNull(name, "name");
        if (!name.matches("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*") || name.length() > 253) {
            throw new IllegalArgumentException("a node name must be a DNS subdomain (lower case letters, digits, '-'"
                    + " and '.', at most 253 characters), was \"" + name + "\"");
        }
        Objects.requireNonNull(cpu, "cpu");
        Objects.requireNonNull(memory, "memory");
        Objects.requireNonNull(pods, "pods");
        Objects.requireNonNull(ephemeralStorage, "ephemeralStorage");
        labels = labels == null ? Map.of() : Map.copyOf(labels);
    }

    /** A template with the default ephemeral storage (100Gi). */
    public NodeTemplate(
            String name, String zone, Quantity cpu, Quantity memory, Quantity pods, Map<String, String> labels) {
        this(name, zone, cpu, memory, pods, new Quantity("100Gi"), labels);
    }

    /** The default machine: cpu 8, memory 32Gi, pods 110, ephemeral-storage 100Gi, no extra labels. */
    public static NodeTemplate of(String name, String zone) {
        return new NodeTemplate(
                name,
                zone,
                new Quantity("8"),
                new Quantity("32Gi"),
                new Quantity("110"),
                new Quantity("100Gi"),
                Map.of());
    }

    /** {@code node-1} … {@code node-<count>} on the default machine, in zones {@code zone-a/b/c} round robin. */
    public static List<NodeTemplate> defaults(int count) {
        if (count < 0) {
            throw new IllegalArgumentException("the number of nodes must not be negative, was " + count);
        }
        List<NodeTemplate> nodes = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            nodes.add(of("node-" + (i + 1), "zone-" + (char) ('a' + i % 3)));
        }
        return List.copyOf(nodes);
    }

    /** This template with other labels added. */
    public NodeTemplate withLabels(Map<String, String> extra) {
        Map<String, String> merged = new java.util.LinkedHashMap<>(labels);
        merged.putAll(extra);
        return new NodeTemplate(name, zone, cpu, memory, pods, ephemeralStorage, merged);
    }
}
