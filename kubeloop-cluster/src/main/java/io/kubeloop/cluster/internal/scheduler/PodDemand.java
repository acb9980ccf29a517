package io.kubeloop.cluster.internal.scheduler;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What one pod asks of a node, computed once from its spec: its resource requests as kube-scheduler counts them
 * (component-helpers' {@code PodRequests}: the sum of the containers, raised to the largest init container, where a
 * restartable (sidecar) init container keeps running and adds to both; plus {@code spec.overhead}), the same with
 * kube's non-zero defaults for scoring (100m CPU and 200 MiB memory for a container that requests none), its host
 * ports and its controlling owner.
 *
 * <p>Immutable. Quantities round up as Kubernetes' {@code MilliValue()} and {@code Value()} do.
 */
record PodDemand(
        long milliCpu,
        long memory,
        long ephemeralStorage,
        Map<String, Long> scalar,
        long nonZeroMilliCpu,
        long nonZeroMemory,
        List<HostPort> hostPorts,
        String ownerUid) {

    /** kube-scheduler's {@code DefaultMilliCPURequest}: what a container without a CPU request counts for scoring. */
    static final long DEFAULT_MILLI_CPU = 100;
    /** kube-scheduler's {@code DefaultMemoryRequest}: 200 MiB. */
    static final long DEFAULT_MEMORY = 200L * 1024 * 1024;

    static final String CPU = "cpu";
    static final String MEMORY = "memory";
    static final String EPHEMERAL_STORAGE = "ephemeral-storage";
    static final String PODS = "pods";

    /** A host port a container claims: {@code hostIP} "0.0.0.0" when the pod left it empty, protocol TCP by default. */
    record HostPort(String ip, String protocol, int port) {
        boolean conflictsWith(HostPort other) {
            if (port != other.port || !protocol.equals(other.protocol)) {
                return false;
            }
            return ip.equals(other.ip) || ip.equals(ANY_IP) || other.ip.equals(ANY_IP);
        }
    }

    static final String ANY_IP = "0.0.0.0";

    static PodDemand of(Pod pod) {
        PodSpec spec = pod.getSpec();
        Sum requests = new Sum();
        Sum nonZero = new Sum();
        for (Container c : list(spec.getContainers())) {
            requests.add(requestsOf(c), false);
            nonZero.add(requestsOf(c), true);
        }
        // init containers: a sidecar (restartPolicy Always) keeps running beside the later ones and the app
        Sum restartable = new Sum();
        Sum restartableNonZero = new Sum();
        Sum init = new Sum();
        Sum initNonZero = new Sum();
        for (Container c : list(spec.getInitContainers())) {
            Map<String, Quantity> r = requestsOf(c);
            if ("Always".equals(c.getRestartPolicy())) {
                requests.add(r, false);
                nonZero.add(r, true);
                restartable.add(r, false);
                restartableNonZero.add(r, true);
                init.max(restartable);
                initNonZero.max(restartableNonZero);
            } else {
                Sum one = new Sum();
                one.add(r, false);
                one.plus(restartable);
                init.max(one);
                Sum oneNonZero = new Sum();
                oneNonZero.add(r, true);
                oneNonZero.plus(restartableNonZero);
                initNonZero.max(oneNonZero);
            }
        }
        requests.max(init);
        nonZero.max(initNonZero);
        if (spec.getOverhead() != null) {
            requests.add(spec.getOverhead(), false);
            Sum overhead = new Sum();
            overhead.add(spec.getOverhead(), false);
            nonZero.plus(overhead);
        }
        return new PodDemand(
                requests.milliCpu,
                requests.memory,
                requests.ephemeral,
                Map.copyOf(requests.scalar),
                nonZero.milliCpu,
                nonZero.memory,
                hostPorts(spec),
                controllerUid(pod));
    }

    boolean requestsNothing() {
        return milliCpu == 0 && memory == 0 && ephemeralStorage == 0 && scalar.isEmpty();
    }

    private static List<HostPort> hostPorts(PodSpec spec) {
        List<HostPort> ports = null;
        for (Container c : list(spec.getContainers())) {
            for (ContainerPort p : list(c.getPorts())) {
                if (p.getHostPort() == null || p.getHostPort() <= 0) {
                    continue;
                }
                if (ports == null) {
                    ports = new ArrayList<>();
                }
                String ip = p.getHostIP() == null || p.getHostIP().isEmpty() ? ANY_IP : p.getHostIP();
                String protocol = p.getProtocol() == null || p.getProtocol().isEmpty() ? "TCP" : p.getProtocol();
                ports.add(new HostPort(ip, protocol, p.getHostPort()));
            }
        }
        return ports == null ? List.of() : List.copyOf(ports);
    }

    private static String controllerUid(Pod pod) {
        List<OwnerReference> refs = pod.getMetadata().getOwnerReferences();
        if (refs == null) {
            return null;
        }
        for (OwnerReference ref : refs) {
            if (Boolean.TRUE.equals(ref.getController())) {
                return ref.getUid();
            }
        }
        return null;
    }

    private static Map<String, Quantity> requestsOf(Container c) {
        if (c.getResources() == null || c.getResources().getRequests() == null) {
            return Map.of();
        }
        return c.getResources().getRequests();
    }

    private static <E> List<E> list(List<E> l) {
        return l == null ? List.of() : l;
    }

    /**
     * Parsed quantities by their text: a decision parses the pod's requests, and the pods of one workload repeat the
     * same few strings ({@code 100m}, {@code 128Mi}), whose BigDecimal parse costs more than the rest of a decision.
     * Cleared when it grows past {@value #MAX_MEMO} entries, so odd values cannot grow it without bound.
     */
    private static final Map<String, Long> MILLI = new ConcurrentHashMap<>();

    private static final Map<String, Long> VALUE = new ConcurrentHashMap<>();
    private static final int MAX_MEMO = 4096;

    /** {@code MilliValue()}: the quantity × 1000, rounded up. */
    static long milli(Quantity q) {
        return memo(MILLI, q, 1000);
    }

    /** {@code Value()}: the quantity rounded up to an integer. */
    static long value(Quantity q) {
        return memo(VALUE, q, 1);
    }

    private static long memo(Map<String, Long> memo, Quantity q, int scale) {
        String key = q.getFormat() == null ? q.getAmount() : q.getAmount() + q.getFormat();
        Long known = memo.get(key);
        if (known != null) {
            return known;
        }
        long parsed = q.getNumericalAmount()
                .multiply(BigDecimal.valueOf(scale))
                .setScale(0, RoundingMode.CEILING)
                .longValue();
        if (memo.size() >= MAX_MEMO) {
            memo.clear();
        }
        memo.put(key, parsed);
        return parsed;
    }

    /** Whether kube-scheduler counts {@code name} as a scalar resource (extended, hugepages, attachable volumes). */
    static boolean isScalar(String name) {
        return !name.equals(CPU)
                && !name.equals(MEMORY)
                && !name.equals(EPHEMERAL_STORAGE)
                && !name.equals(PODS)
                && (name.contains("/") || name.startsWith("hugepages-"));
    }

    /** A running total of requests; {@code add(…, true)} applies the non-zero defaults of one container. */
    private static final class Sum {
        long milliCpu;
        long memory;
        long ephemeral;
        final Map<String, Long> scalar = new HashMap<>(2);

        void add(Map<String, Quantity> requests, boolean nonZeroDefaults) {
            Quantity cpu = requests.get(CPU);
            Quantity mem = requests.get(MEMORY);
            if (nonZeroDefaults) {
                milliCpu += cpu == null ? DEFAULT_MILLI_CPU : milli(cpu);
                memory += mem == null ? DEFAULT_MEMORY : value(mem);
                return;
            }
            if (cpu != null) {
                milliCpu += milli(cpu);
            }
            if (mem != null) {
                memory += value(mem);
            }
            Quantity eph = requests.get(EPHEMERAL_STORAGE);
            if (eph != null) {
                ephemeral += value(eph);
            }
            for (Map.Entry<String, Quantity> e : requests.entrySet()) {
                if (isScalar(e.getKey())) {
                    scalar.merge(e.getKey(), value(e.getValue()), Long::sum);
                }
            }
        }

        void plus(Sum other) {
            milliCpu += other.milliCpu;
            memory += other.memory;
            ephemeral += other.ephemeral;
            other.scalar.forEach((k, v) -> scalar.merge(k, v, Long::sum));
        }

        void max(Sum other) {
            milliCpu = Math.max(milliCpu, other.milliCpu);
            memory = Math.max(memory, other.memory);
            ephemeral = Math.max(ephemeral, other.ephemeral);
            other.scalar.forEach((k, v) -> scalar.merge(k, v, Math::max));
        }
    }
}
