package io.kubeloop.apiserver.internal.http;

import io.kubeloop.apiserver.internal.storage.Store;
import io.kubeloop.model.ResourceType;
import io.kubeloop.model.Statuses;
import io.kubeloop.model.Statuses.FieldError;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * What kube-apiserver's Service registry does with addresses: a Service of type ClusterIP, NodePort or LoadBalancer
 * gets a cluster IP from the service range {@value #RANGE} unless it asks for one (or for {@code None}: headless),
 * NodePort and LoadBalancer ports get node ports from {@value #FIRST_NODE_PORT}–{@value #LAST_NODE_PORT} (not a
 * LoadBalancer with {@code allocateLoadBalancerNodePorts: false}) and a LoadBalancer with {@code
 * externalTrafficPolicy: Local} a {@code healthCheckNodePort} from the same range, and
 * {@code clusterIPs}, {@code ipFamilies} and {@code ipFamilyPolicy} are filled in (single-stack IPv4). An update
 * that leaves them out keeps the allocated values (kube's {@code patchAllocatedValues}, which lets a PUT of an
 * object written without them succeed); one that changes the cluster IP is refused.
 *
 * <p>Allocation is deterministic — the lowest free address above the static band (the first 256 addresses, which
 * kube-apiserver leaves for addresses chosen by hand, such as a DNS service's) and the lowest free node port — so
 * tests see the same addresses run after run. "Free" means not held by a Service in the store and not handed out in
 * this process before: addresses of deleted Services are only reused when asked for by hand. Invariant: the check
 * and the store write run inside {@link #locked}, so two writes never get one address.
 */
final class ServiceAddresses {

    static final String RANGE = "10.96.0.0/12";
    static final int FIRST_NODE_PORT = 30000;
    static final int LAST_NODE_PORT = 32767;

    private static final int RANGE_BASE = (10 << 24) | (96 << 16);
    private static final int RANGE_SIZE = 1 << 20;
    /** Addresses below base + this are only handed out on request (kube-apiserver's static band for a /12). */
    private static final int STATIC_BAND = 256;

    private static final Pattern IPV4 = Pattern.compile("(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})");

    private final Store store;
    private final ReentrantLock lock = new ReentrantLock();
    /** Offsets in the range and node ports handed out by this process (never reused dynamically). */
    private final Set<Integer> handedOutIps = new HashSet<>();

    private final Set<Integer> handedOutPorts = new HashSet<>();

    ServiceAddresses(Store store) {
        this.store = store;
    }

    private static boolean isService(ResourceType type) {
        return type.group().isEmpty() && type.plural().equals("services");
    }

    /**
     * Runs {@code write} — an {@link #admit} and the store write that follows it — holding the allocator's lock when
     * {@code type} is Service, so two Services never get one address; other kinds run it as it is.
     */
    <T> T locked(ResourceType type, Supplier<T> write) {
        if (!isService(type)) {
            return write.get();
        }
        lock.lock();
        try {
            return write.get();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Fills in the addresses of a Service being created ({@code current} null) or updated, in place; other kinds
     * are left alone. Call it inside {@link #locked}.
     *
     * @throws ApiException 422 for an address that is malformed, outside its range, already allocated, or changed
     */
    void admit(ResourceType type, ObjectNode current, ObjectNode next) {
        if (!isService(type) || !(next.get("spec") instanceof ObjectNode spec)) {
            return;
        }
        String name = next.path("metadata").path("name").asString("");
        String namespace = next.path("metadata").path("namespace").asString("");
        if (!spec.has("type")) {
            spec.put("type", "ClusterIP");
        }
        String serviceType = spec.path("type").asString("");
        JsonNode oldSpec = current == null ? null : current.get("spec");
        if (serviceType.equals("ExternalName")) {
            for (String field : List.of("clusterIP", "clusterIPs", "ipFamilies", "ipFamilyPolicy")) {
                spec.remove(field);
            }
            removeNodePorts(spec);
            return;
        }
        List<FieldError> errors = new ArrayList<>();
        String oldIp = oldSpec == null ? "" : oldSpec.path("clusterIP").asString("");
        String ip = spec.path("clusterIP").asString("");
        if (ip.isEmpty() && spec.path("clusterIPs").path(0).isString()) {
            ip = spec.path("clusterIPs").path(0).asString("");
        }
        if (ip.isEmpty() && !oldIp.isEmpty()) {
            ip = oldIp; // an update that left it out keeps it
        }
        if (!oldIp.isEmpty() && !ip.equals(oldIp)) {
            errors.add(new FieldError("Invalid value", "spec.clusterIPs[0]", quote(ip) + ": may not change once set"));
        } else if (ip.isEmpty()) {
            ip = allocateIp();
        } else if (!ip.equals("None") && !ip.equals(oldIp)) {
            FieldError problem = checkRequestedIp(ip, name, namespace);
            if (problem != null) {
                errors.add(problem);
            }
        }
        if (errors.isEmpty()) {
            spec.put("clusterIP", ip);
            spec.putArray("clusterIPs").add(ip);
            if (!spec.has("ipFamilies")) {
                spec.putArray("ipFamilies").add("IPv4");
            }
            if (!spec.has("ipFamilyPolicy")) {
                spec.put("ipFamilyPolicy", "SingleStack");
            }
        }
        if (serviceType.equals("NodePort") || serviceType.equals("LoadBalancer")) {
            // a LoadBalancer with allocateLoadBalancerNodePorts=false gets none, but keeps those it asks for
            boolean allocate = !(serviceType.equals("LoadBalancer")
                    && spec.path("allocateLoadBalancerNodePorts").isBoolean()
                    && !spec.path("allocateLoadBalancerNodePorts").asBoolean());
            nodePorts(spec, oldSpec, name, namespace, allocate, errors);
        } else {
            removeNodePorts(spec);
        }
        if (serviceType.equals("LoadBalancer")
                && spec.path("externalTrafficPolicy").asString("").equals("Local")) {
            healthCheckNodePort(spec, oldSpec, name, namespace, errors);
        } else {
            spec.remove("healthCheckNodePort");
        }
        if (!errors.isEmpty()) {
            throw new ApiException(Statuses.invalid("", "Service", name, errors));
        }
    }

    private static String quote(String s) {
        return "\"" + s + "\"";
    }

    private FieldError checkRequestedIp(String ip, String name, String namespace) {
        Integer offset = offset(ip);
        if (offset == null) {
            return new FieldError(
                    "Invalid value",
                    "spec.clusterIPs[0]",
                    quote(ip) + ": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)");
        }
        String value = "[]string{" + quote(ip) + "}: failed to allocate IP " + ip + ": ";
        if (offset < 0) {
            return new FieldError(
                    "Invalid value",
                    "spec.clusterIPs",
                    value + "the provided IP (" + ip + ") is not in the valid range. The range of valid IPs is "
                            + RANGE);
        }
        if (ipsInUse(name, namespace).contains(offset)) {
            return new FieldError("Invalid value", "spec.clusterIPs", value + "provided IP is already allocated");
        }
        handedOutIps.add(offset);
        return null;
    }

    private String allocateIp() {
        Set<Integer> used = ipsInUse(null, null);
        for (int offset = STATIC_BAND; offset < RANGE_SIZE - 1; offset++) {
            if (!used.contains(offset) && handedOutIps.add(offset)) {
                return address(offset);
            }
        }
        throw new ApiException(Statuses.failure(
                io.kubeloop.model.StatusReason.InternalError, "failed to allocate a serviceIP: range is full"));
    }

    private void nodePorts(
            ObjectNode spec,
            JsonNode oldSpec,
            String name,
            String namespace,
            boolean allocate,
            List<FieldError> errors) {
        if (!(spec.get("ports") instanceof ArrayNode ports)) {
            return;
        }
        Set<Integer> used = null;
        for (int i = 0; i < ports.size(); i++) {
            if (!(ports.get(i) instanceof ObjectNode port)) {
                continue;
            }
            int requested = port.path("nodePort").asInt(0);
            int old = oldNodePort(oldSpec, port);
            if (requested == 0 && old != 0) {
                port.put("nodePort", old); // an update that left it out keeps it
                continue;
            }
            if (requested == old && old != 0 || requested == 0 && !allocate) {
                continue;
            }
            if (used == null) {
                used = portsInUse(name, namespace);
            }
            if (requested == 0) {
                int allocated = allocatePort(used);
                if (allocated < 0) {
                    errors.add(new FieldError("Invalid value", "spec.ports[" + i + "].nodePort", "0: range is full"));
                } else {
                    port.put("nodePort", allocated);
                    used.add(allocated);
                }
            } else if (requested < FIRST_NODE_PORT || requested > LAST_NODE_PORT) {
                errors.add(new FieldError(
                        "Invalid value",
                        "spec.ports[" + i + "].nodePort",
                        requested
                                + ": provided port is not in the valid range. The range of valid ports is "
                                + FIRST_NODE_PORT
                                + "-" + LAST_NODE_PORT));
            } else if (used.contains(requested)) {
                errors.add(new FieldError(
                        "Invalid value",
                        "spec.ports[" + i + "].nodePort",
                        requested + ": provided port is already allocated"));
            } else {
                used.add(requested);
                handedOutPorts.add(requested);
            }
        }
    }

    /** A LoadBalancer with externalTrafficPolicy Local gets a health-check node port, like its ports'. */
    private void healthCheckNodePort(
            ObjectNode spec, JsonNode oldSpec, String name, String namespace, List<FieldError> errors) {
        int requested = spec.path("healthCheckNodePort").asInt(0);
        int old = oldSpec == null ? 0 : oldSpec.path("healthCheckNodePort").asInt(0);
        if (requested == 0 && old != 0) {
            spec.put("healthCheckNodePort", old);
            return;
        }
        if (requested != 0 && requested == old) {
            return;
        }
        Set<Integer> used = portsInUse(name, namespace);
        for (JsonNode port : spec.path("ports")) {
            used.add(port.path("nodePort").asInt(0));
        }
        if (requested == 0) {
            int allocated = allocatePort(used);
            if (allocated < 0) {
                errors.add(new FieldError("Invalid value", "spec.healthCheckNodePort", "0: range is full"));
            } else {
                spec.put("healthCheckNodePort", allocated);
            }
        } else if (requested < FIRST_NODE_PORT || requested > LAST_NODE_PORT) {
            errors.add(new FieldError(
                    "Invalid value",
                    "spec.healthCheckNodePort",
                    requested + ": provided port is " + "not in the valid range. The range of valid ports is "
                            + FIRST_NODE_PORT + "-" + LAST_NODE_PORT));
        } else if (used.contains(requested)) {
            errors.add(new FieldError(
                    "Invalid value", "spec.healthCheckNodePort", requested + ": provided port is already allocated"));
        } else {
            handedOutPorts.add(requested);
        }
    }

    private int allocatePort(Set<Integer> used) {
        for (int p = FIRST_NODE_PORT; p <= LAST_NODE_PORT; p++) {
            if (!used.contains(p) && handedOutPorts.add(p)) {
                return p;
            }
        }
        return -1;
    }

    /** The node port the old spec had for the same port number and protocol; 0 if none. */
    private static int oldNodePort(JsonNode oldSpec, ObjectNode port) {
        if (oldSpec == null) {
            return 0;
        }
        for (JsonNode old : oldSpec.path("ports")) {
            if (old.path("port").asInt(-1) == port.path("port").asInt(-2)
                    && old.path("protocol")
                            .asString("TCP")
                            .equals(port.path("protocol").asString("TCP"))) {
                return old.path("nodePort").asInt(0);
            }
        }
        return 0;
    }

    private static void removeNodePorts(ObjectNode spec) {
        for (JsonNode port : spec.path("ports")) {
            if (port instanceof ObjectNode p) {
                p.remove("nodePort");
            }
        }
    }

    /** Range offsets of the cluster IPs of stored Services, except the named one's own. */
    private Set<Integer> ipsInUse(String exceptName, String exceptNamespace) {
        Set<Integer> used = new HashSet<>();
        for (ObjectNode svc : services()) {
            if (isNamed(svc, exceptName, exceptNamespace)) {
                continue;
            }
            Integer offset = offset(svc.path("spec").path("clusterIP").asString(""));
            if (offset != null && offset >= 0) {
                used.add(offset);
            }
        }
        return used;
    }

    private Set<Integer> portsInUse(String exceptName, String exceptNamespace) {
        Set<Integer> used = new HashSet<>();
        for (ObjectNode svc : services()) {
            if (isNamed(svc, exceptName, exceptNamespace)) {
                continue;
            }
            for (JsonNode port : svc.path("spec").path("ports")) {
                if (port.path("nodePort").asInt(0) != 0) {
                    used.add(port.path("nodePort").asInt());
                }
            }
            if (svc.path("spec").path("healthCheckNodePort").asInt(0) != 0) {
                used.add(svc.path("spec").path("healthCheckNodePort").asInt());
            }
        }
        return used;
    }

    private static boolean isNamed(ObjectNode svc, String name, String namespace) {
        return name != null
                && name.equals(svc.path("metadata").path("name").asString(""))
                && namespace.equals(svc.path("metadata").path("namespace").asString(""));
    }

    private List<ObjectNode> services() {
        return store.list("", "services", null, 0, o -> true, 0, null).items();
    }

    /** The offset of {@code ip} in the range; -1 when it is an IPv4 address outside it; null when not an address. */
    static Integer offset(String ip) {
        var m = IPV4.matcher(ip);
        if (!m.matches()) {
            return null;
        }
        int value = 0;
        for (int g = 1; g <= 4; g++) {
            int octet = Integer.parseInt(m.group(g));
            if (octet > 255) {
                return null;
            }
            value = (value << 8) | octet;
        }
        int offset = value - RANGE_BASE;
        // the network and broadcast addresses are not allocatable
        return offset <= 0 || offset >= RANGE_SIZE - 1 ? -1 : offset;
    }

    private static String address(int offset) {
        int v = RANGE_BASE + offset;
        return (v >>> 24) + "." + ((v >>> 16) & 0xFF) + "." + ((v >>> 8) & 0xFF) + "." + (v & 0xFF);
    }
}
