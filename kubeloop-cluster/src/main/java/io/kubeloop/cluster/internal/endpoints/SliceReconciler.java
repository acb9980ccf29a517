package io.kubeloop.cluster.internal.endpoints;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointConditions;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointPort;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.kubeloop.cluster.internal.endpoints.Subsets.Port;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;

/**
 * The EndpointSlice controller's reconciliation of one Service ({@code k8s.io/endpointslice}'s
 * {@code Reconciler.Reconcile}, {@code reconcileByAddressType} and {@code reconcileByPortMapping}): from the pods the
 * Service selects and the slices it has, the slices to create, update and delete. Pure: it reads what it is given
 * (never changing it: the slices may be the cache's) and builds new objects for every write.
 *
 * <p>The algorithm, as upstream, keeps churn low when pods come and go:
 * <ol>
 *   <li>slices are grouped by address type (IPv4, IPv6: the Service's IP families) and by set of ports (pods whose
 *       named target ports resolve to different numbers go to different slices); slices of a family the Service no
 *       longer has, or not owned by the Service, are deleted;</li>
 *   <li>each existing slice keeps the endpoints still desired (updated in place when their conditions, node, zone
 *       or target changed; an endpoint is identified by its addresses, hostname and pod); a slice left empty is
 *       deleted;</li>
 *   <li>the remaining new endpoints first fill the slices already being updated (the fullest first), then the
 *       unchanged slice that comes closest to full, then new slices of at most 100 endpoints;</li>
 *   <li>a Service with no endpoints keeps one empty placeholder slice; a delete and a create of the same write are
 *       turned into an update of the slice that would be deleted.</li>
 * </ol>
 * Topology hints and traffic distribution are not computed (slices never carry hints).
 */
final class SliceReconciler {

    static final String LABEL_SERVICE_NAME = "kubernetes.io/service-name";
    static final String LABEL_MANAGED_BY = "endpointslice.kubernetes.io/managed-by";
    static final String MANAGED_BY = "endpointslice-controller.k8s.io";

    /** kube-controller-manager's {@code --max-endpoints-per-slice} default. */
    static final int MAX_ENDPOINTS_PER_SLICE = 100;

    /**
     * What to write. {@code missingNodes}: pods left out because their node is not known (the sync is retried, as
     * kube's returns an error).
     */
    record Plan(
            List<EndpointSlice> create,
            List<EndpointSlice> update,
            List<EndpointSlice> delete,
            List<String> missingNodes) {
        boolean isEmpty() {
            return create.isEmpty() && update.isEmpty() && delete.isEmpty();
        }
    }

    /** What identifies an endpoint across syncs (kube's {@code endpointHash}). */
    private record EndpointKey(List<String> addresses, String hostname, String namespace, String name) {}

    private final int maxEndpointsPerSlice;

    SliceReconciler(int maxEndpointsPerSlice) {
        if (maxEndpointsPerSlice < 1) {
            throw new IllegalArgumentException("maxEndpointsPerSlice must be at least 1, was " + maxEndpointsPerSlice);
        }
        this.maxEndpointsPerSlice = maxEndpointsPerSlice;
    }

    /**
     * @param pods the pods the Service selects
     * @param existing the Service's slices managed by this controller, not being deleted
     * @param nodes the node of a name, or null when unknown
     */
    Plan reconcile(Service service, List<Pod> pods, List<EndpointSlice> existing, Function<String, Node> nodes) {
        Set<String> addressTypes = addressTypes(service);
        List<EndpointSlice> create = new ArrayList<>();
        List<EndpointSlice> update = new ArrayList<>();
        List<EndpointSlice> delete = new ArrayList<>();
        List<String> missingNodes = new ArrayList<>();
        Map<String, List<EndpointSlice>> byType = new LinkedHashMap<>();
        for (EndpointSlice slice : existing) {
            if (addressTypes.contains(slice.getAddressType())) {
                byType.computeIfAbsent(slice.getAddressType(), t -> new ArrayList<>())
                        .add(slice);
            } else {
                delete.add(slice); // a family the Service no longer has
            }
        }
        for (String addressType : addressTypes) {
            reconcileByAddressType(
                    service,
                    pods,
                    byType.getOrDefault(addressType, List.of()),
                    addressType,
                    nodes,
                    create,
                    update,
                    delete,
                    missingNodes);
        }
        return finalizePlan(service, create, update, delete, missingNodes);
    }

    private void reconcileByAddressType(
            Service service,
            List<Pod> pods,
            List<EndpointSlice> existing,
            String addressType,
            Function<String, Node> nodes,
            List<EndpointSlice> create,
            List<EndpointSlice> update,
            List<EndpointSlice> delete,
            List<String> missingNodes) {
        List<EndpointSlice> toCreate = new ArrayList<>();
        List<EndpointSlice> toUpdate = new ArrayList<>();
        List<EndpointSlice> toDelete = new ArrayList<>();

        Map<List<Port>, List<EndpointSlice>> existingByPorts = new LinkedHashMap<>();
        for (EndpointSlice slice : existing) {
            if (ownedBy(slice, service)) {
                existingByPorts
                        .computeIfAbsent(portKey(slice.getPorts()), k -> new ArrayList<>())
                        .add(slice);
            } else {
                toDelete.add(slice); // e.g. left by an earlier Service of the same name
            }
        }

        Map<List<Port>, LinkedHashMap<EndpointKey, Endpoint>> desiredByPorts = new LinkedHashMap<>();
        Map<List<Port>, List<EndpointPort>> portsByKey = new HashMap<>();
        boolean ipv6 = "IPv6".equals(addressType);
        boolean publishNotReady = PodEndpoints.publishNotReadyAddresses(service);
        for (Pod pod : pods) {
            if (!PodEndpoints.shouldPodBeInEndpoints(pod, true)) {
                continue;
            }
            List<EndpointPort> ports = endpointPorts(service, pod);
            List<Port> key = portKey(ports);
            LinkedHashMap<EndpointKey, Endpoint> desired =
                    desiredByPorts.computeIfAbsent(key, k -> new LinkedHashMap<>());
            portsByKey.putIfAbsent(key, ports);
            String nodeName = PodEndpoints.nodeName(pod);
            Node node = PodEndpoints.isEmpty(nodeName) ? null : nodes.apply(nodeName);
            if (node == null && !publishNotReady) {
                // kube skips the pod and retries the Service, so that a missing node does not block the others
                missingNodes.add(pod.getMetadata().getName() + " (node " + nodeName + ")");
                continue;
            }
            Endpoint endpoint = podToEndpoint(pod, node, service, ipv6);
            if (!endpoint.getAddresses().isEmpty()) {
                desired.put(keyOf(endpoint), endpoint);
            }
        }

        for (Map.Entry<List<Port>, LinkedHashMap<EndpointKey, Endpoint>> e : desiredByPorts.entrySet()) {
            reconcileByPortMapping(
                    service,
                    existingByPorts.getOrDefault(e.getKey(), List.of()),
                    e.getValue(),
                    portsByKey.get(e.getKey()),
                    addressType,
                    toCreate,
                    toUpdate,
                    toDelete);
        }
        for (Map.Entry<List<Port>, List<EndpointSlice>> e : existingByPorts.entrySet()) {
            if (!desiredByPorts.containsKey(e.getKey())) {
                toDelete.addAll(e.getValue()); // a set of ports no pod offers any more
            }
        }

        // a Service without endpoints keeps one empty placeholder slice
        if (existing.size() == toDelete.size() && toCreate.isEmpty()) {
            EndpointSlice placeholder = newSlice(service, List.of(), addressType);
            if (toDelete.size() == 1 && isPlaceholderLike(toDelete.get(0), placeholder)) {
                toDelete.clear(); // it is there already
            } else {
                toCreate.add(placeholder);
            }
        }
        create.addAll(toCreate);
        update.addAll(toUpdate);
        delete.addAll(toDelete);
    }

    private void reconcileByPortMapping(
            Service service,
            List<EndpointSlice> existing,
            LinkedHashMap<EndpointKey, Endpoint> desired,
            List<EndpointPort> ports,
            String addressType,
            List<EndpointSlice> create,
            List<EndpointSlice> update,
            List<EndpointSlice> delete) {
        Map<String, EndpointSlice> byName = new LinkedHashMap<>();
        Set<String> unchanged = new LinkedHashSet<>();
        Set<String> toUpdate = new LinkedHashSet<>();
        Set<String> toDelete = new LinkedHashSet<>();

        // 1. keep the endpoints still desired, in place; note the slices that change
        for (EndpointSlice slice : existing) {
            String name = slice.getMetadata().getName();
            byName.put(name, slice);
            List<Endpoint> current = endpointsOf(slice);
            List<Endpoint> kept = new ArrayList<>(current.size());
            boolean changed = false;
            for (Endpoint endpoint : current) {
                EndpointKey key = keyOf(endpoint);
                Endpoint want = desired.remove(key);
                if (want != null) {
                    kept.add(want);
                    changed |= !equalBeyondKey(want, endpoint);
                }
            }
            Map<String, String> labels = sliceLabels(service);
            boolean labelsChanged =
                    !labels.equals(PodEndpoints.orEmpty(slice.getMetadata().getLabels()));
            if (changed || kept.size() != current.size()) {
                if (kept.isEmpty()) {
                    toDelete.add(name);
                } else {
                    byName.put(name, copy(slice, kept, labels));
                    toUpdate.add(name);
                }
            } else if (labelsChanged) {
                byName.put(name, copy(slice, current, labels));
                toUpdate.add(name);
            } else {
                unchanged.add(name);
            }
        }

        // 2. fill the slices that are written anyway, the fullest first
        if (!desired.isEmpty() && !toUpdate.isEmpty()) {
            List<EndpointSlice> slices = new ArrayList<>();
            for (String name : toUpdate) {
                slices.add(byName.get(name));
            }
            slices.sort(Comparator.comparingInt(
                            (EndpointSlice s) -> s.getEndpoints().size())
                    .reversed());
            for (EndpointSlice slice : slices) {
                fill(slice, desired);
            }
        }

        // 3. then the unchanged slice closest to full, then new slices
        while (!desired.isEmpty()) {
            EndpointSlice target = null;
            if (desired.size() < maxEndpointsPerSlice && !unchanged.isEmpty()) {
                target = sliceToFill(unchanged, byName, desired.size());
            }
            if (target == null) {
                target = newSlice(service, ports, addressType);
            } else {
                target = copy(target, endpointsOf(target), sliceLabels(service));
                byName.put(target.getMetadata().getName(), target);
            }
            fill(target, desired);
            String name = target.getMetadata().getName();
            if (name != null) {
                toUpdate.add(name);
                unchanged.remove(name);
            } else {
                create.add(target);
            }
        }
        for (String name : toUpdate) {
            update.add(byName.get(name));
        }
        for (String name : toDelete) {
            delete.add(byName.get(name));
        }
    }

    private void fill(EndpointSlice slice, LinkedHashMap<EndpointKey, Endpoint> desired) {
        Iterator<Endpoint> it = desired.values().iterator();
        while (it.hasNext() && slice.getEndpoints().size() < maxEndpointsPerSlice) {
            slice.getEndpoints().add(it.next());
            it.remove();
        }
    }

    /** kube's {@code getSliceToFill}: the unchanged slice that comes closest to full with {@code n} more. */
    private EndpointSlice sliceToFill(Set<String> unchanged, Map<String, EndpointSlice> byName, int n) {
        int closestDiff = maxEndpointsPerSlice;
        EndpointSlice closest = null;
        for (String name : unchanged) {
            EndpointSlice slice = byName.get(name);
            int diff = maxEndpointsPerSlice - (n + endpointsOf(slice).size());
            if (diff >= 0 && diff < closestDiff) {
                closestDiff = diff;
                closest = slice;
                if (diff == 0) {
                    break;
                }
            }
        }
        return closest;
    }

    /**
     * kube's {@code finalize} without the writes: creates become updates of slices that would be deleted (same
     * address type, owned by the Service), keeping the deleted slice's name and resourceVersion; nothing is created
     * for a Service being deleted.
     */
    private static Plan finalizePlan(
            Service service,
            List<EndpointSlice> create,
            List<EndpointSlice> update,
            List<EndpointSlice> delete,
            List<String> missingNodes) {
        for (int i = 0; i < delete.size() && !create.isEmpty(); ) {
            EndpointSlice doomed = delete.get(i);
            EndpointSlice fresh = create.get(create.size() - 1);
            if (Objects.equals(doomed.getAddressType(), fresh.getAddressType()) && ownedBy(doomed, service)) {
                fresh.getMetadata().setName(doomed.getMetadata().getName());
                fresh.getMetadata().setResourceVersion(doomed.getMetadata().getResourceVersion());
                create.remove(create.size() - 1);
                update.add(fresh);
                delete.remove(i);
            } else {
                i++;
            }
        }
        if (service.getMetadata().getDeletionTimestamp() != null) {
            create.clear(); // the garbage collector is deleting its slices: do not race it
        }
        return new Plan(create, update, delete, missingNodes);
    }

    // ---- endpoints ---------------------------------------------------------------------------------------------

    /** kube's {@code podToEndpoint}. */
    static Endpoint podToEndpoint(Pod pod, Node node, Service service, boolean ipv6) {
        boolean serving = PodEndpoints.isReady(pod);
        boolean terminating = pod.getMetadata().getDeletionTimestamp() != null;
        // for compatibility, never ready while terminating unless the Service publishes not-ready addresses
        boolean ready = PodEndpoints.publishNotReadyAddresses(service) || (serving && !terminating);
        Endpoint endpoint = new Endpoint();
        endpoint.setAddresses(new ArrayList<>(PodEndpoints.podIps(pod, ipv6)));
        EndpointConditions conditions = new EndpointConditions();
        conditions.setReady(ready);
        conditions.setServing(serving);
        conditions.setTerminating(terminating);
        endpoint.setConditions(conditions);
        endpoint.setTargetRef(new ObjectReferenceBuilder()
                .withKind("Pod")
                .withNamespace(pod.getMetadata().getNamespace())
                .withName(pod.getMetadata().getName())
                .withUid(pod.getMetadata().getUid())
                .build());
        String nodeName = PodEndpoints.nodeName(pod);
        if (!PodEndpoints.isEmpty(nodeName)) {
            endpoint.setNodeName(nodeName);
        }
        if (node != null && node.getMetadata().getLabels() != null) {
            String zone = node.getMetadata().getLabels().get(PodEndpoints.ZONE_LABEL);
            if (!PodEndpoints.isEmpty(zone)) {
                endpoint.setZone(zone);
            }
        }
        if (PodEndpoints.shouldSetHostname(pod, service)) {
            endpoint.setHostname(pod.getSpec().getHostname());
        }
        return endpoint;
    }

    /** kube's {@code getEndpointPorts}: the service ports the pod has, with their resolved numbers. */
    static List<EndpointPort> endpointPorts(Service service, Pod pod) {
        List<ServicePort> servicePorts = PodEndpoints.ports(service);
        List<EndpointPort> ports = new ArrayList<>(servicePorts.size());
        if (servicePorts.isEmpty() && "None".equals(service.getSpec().getClusterIP())) {
            return ports; // a headless Service may have no ports
        }
        for (ServicePort sp : servicePorts) {
            Integer number = PodEndpoints.findPort(pod, sp);
            if (number == null) {
                continue;
            }
            EndpointPort port = new EndpointPort();
            port.setName(Subsets.str(sp.getName()));
            port.setPort(number);
            port.setProtocol(PodEndpoints.protocol(sp.getProtocol()));
            port.setAppProtocol(sp.getAppProtocol());
            ports.add(port);
        }
        return ports;
    }

    private static EndpointKey keyOf(Endpoint endpoint) {
        List<String> addresses = endpoint.getAddresses() == null ? List.of() : new ArrayList<>(endpoint.getAddresses());
        addresses.sort(null);
        ObjectReference ref = endpoint.getTargetRef();
        return new EndpointKey(
                addresses,
                Subsets.str(endpoint.getHostname()),
                ref == null ? "" : Subsets.str(ref.getNamespace()),
                ref == null ? "" : Subsets.str(ref.getName()));
    }

    /** kube's {@code EndpointsEqualBeyondHash}: node, zone, conditions and target (not its resourceVersion). */
    private static boolean equalBeyondKey(Endpoint a, Endpoint b) {
        EndpointConditions ca = a.getConditions() == null ? new EndpointConditions() : a.getConditions();
        EndpointConditions cb = b.getConditions() == null ? new EndpointConditions() : b.getConditions();
        return Objects.equals(a.getNodeName(), b.getNodeName())
                && Objects.equals(a.getZone(), b.getZone())
                && Objects.equals(ca.getReady(), cb.getReady())
                && Objects.equals(ca.getServing(), cb.getServing())
                && Objects.equals(ca.getTerminating(), cb.getTerminating())
                && sameTarget(a.getTargetRef(), b.getTargetRef());
    }

    private static boolean sameTarget(ObjectReference a, ObjectReference b) {
        if (a == null || b == null) {
            return a == b;
        }
        return Objects.equals(a.getKind(), b.getKind())
                && Objects.equals(a.getNamespace(), b.getNamespace())
                && Objects.equals(a.getName(), b.getName())
                && Objects.equals(a.getUid(), b.getUid())
                && Objects.equals(a.getApiVersion(), b.getApiVersion())
                && Objects.equals(a.getFieldPath(), b.getFieldPath());
    }

    /** A set of ports in a canonical order, as a map key ({@code NewPortMapKey}). */
    static List<Port> portKey(List<EndpointPort> ports) {
        if (ports == null) {
            return List.of();
        }
        List<Port> key = new ArrayList<>(ports.size());
        for (EndpointPort p : ports) {
            key.add(new Port(
                    Subsets.str(p.getName()),
                    p.getPort() == null ? 0 : p.getPort(),
                    PodEndpoints.protocol(p.getProtocol()),
                    Subsets.str(p.getAppProtocol())));
        }
        key.sort(Subsets.PORT_ORDER);
        return List.copyOf(key);
    }

    // ---- slices ------------------------------------------------------------------------------------------------

    /** The address types of the Service's IP families (kube's {@code getAddressTypesForService}). */
    static Set<String> addressTypes(Service service) {
        Set<String> types = new LinkedHashSet<>();
        List<String> families = service.getSpec().getIpFamilies();
        if (families != null) {
            for (String family : families) {
                if ("IPv4".equals(family) || "IPv6".equals(family)) {
                    types.add(family);
                }
            }
        }
        if (!types.isEmpty()) {
            return types;
        }
        if (PodEndpoints.isServiceIpSet(service)) {
            types.add(PodEndpoints.isIpv6(service.getSpec().getClusterIP()) ? "IPv6" : "IPv4");
            return types;
        }
        types.add("IPv4"); // headless without families: both, until the server defaults them
        types.add("IPv6");
        return types;
    }

    /** A new slice for the Service: generateName {@code <service>-}, the labels, a controller reference. */
    static EndpointSlice newSlice(Service service, List<EndpointPort> ports, String addressType) {
        String name = service.getMetadata().getName();
        OwnerReference owner = new OwnerReferenceBuilder()
                .withApiVersion("v1")
                .withKind("Service")
                .withName(name)
                .withUid(service.getMetadata().getUid())
                .withController(true)
                .withBlockOwnerDeletion(true)
                .build();
        ObjectMeta meta = new ObjectMetaBuilder()
                .withGenerateName(name + "-") // a Service's name is at most 63 characters: the dash always fits
                .withNamespace(service.getMetadata().getNamespace())
                .withLabels(sliceLabels(service))
                .withOwnerReferences(owner)
                .build();
        EndpointSlice slice = new EndpointSlice();
        slice.setMetadata(meta);
        slice.setAddressType(addressType);
        slice.setPorts(new ArrayList<>(ports));
        slice.setEndpoints(new ArrayList<>());
        return slice;
    }

    /** A writable copy of {@code slice} with other endpoints and labels (the original is never changed). */
    private static EndpointSlice copy(EndpointSlice slice, List<Endpoint> endpoints, Map<String, String> labels) {
        ObjectMeta meta = new ObjectMetaBuilder(slice.getMetadata()).build();
        meta.setManagedFields(null); // a PUT without them keeps the server's
        meta.setLabels(labels);
        EndpointSlice copy = new EndpointSlice();
        copy.setMetadata(meta);
        copy.setAddressType(slice.getAddressType());
        copy.setPorts(slice.getPorts() == null ? new ArrayList<>() : new ArrayList<>(slice.getPorts()));
        copy.setEndpoints(new ArrayList<>(endpoints));
        return copy;
    }

    private static List<Endpoint> endpointsOf(EndpointSlice slice) {
        return slice.getEndpoints() == null ? List.of() : slice.getEndpoints();
    }

    /**
     * kube's {@code setEndpointSliceLabels}: the Service's labels (except the reserved ones), the headless label
     * without a cluster IP, the Service's name and the manager.
     */
    static Map<String, String> sliceLabels(Service service) {
        Map<String, String> labels = new LinkedHashMap<>();
        PodEndpoints.orEmpty(service.getMetadata().getLabels()).forEach((k, v) -> {
            if (!isReserved(k)) {
                labels.put(k, v);
            }
        });
        if (!PodEndpoints.isServiceIpSet(service)) {
            labels.put(PodEndpoints.HEADLESS_LABEL, "");
        }
        labels.put(LABEL_SERVICE_NAME, service.getMetadata().getName());
        labels.put(LABEL_MANAGED_BY, MANAGED_BY);
        return labels;
    }

    private static boolean isReserved(String key) {
        return key.equals(LABEL_SERVICE_NAME)
                || key.equals(LABEL_MANAGED_BY)
                || key.equals(PodEndpoints.HEADLESS_LABEL);
    }

    /** kube's {@code ownedBy}: an owner reference to this Service (uid, kind Service, apiVersion v1). */
    static boolean ownedBy(EndpointSlice slice, Service service) {
        List<OwnerReference> owners = slice.getMetadata().getOwnerReferences();
        if (owners == null) {
            return false;
        }
        for (OwnerReference o : owners) {
            if (Objects.equals(o.getUid(), service.getMetadata().getUid())
                    && "Service".equals(o.getKind())
                    && "v1".equals(o.getApiVersion())) {
                return true;
            }
        }
        return false;
    }

    /** kube's {@code placeholderSliceCompare}: same namespace, labels, address type, no ports, no endpoints. */
    private static boolean isPlaceholderLike(EndpointSlice slice, EndpointSlice placeholder) {
        return Objects.equals(
                        slice.getMetadata().getNamespace(),
                        placeholder.getMetadata().getNamespace())
                && PodEndpoints.orEmpty(slice.getMetadata().getLabels())
                        .equals(placeholder.getMetadata().getLabels())
                && Objects.equals(slice.getAddressType(), placeholder.getAddressType())
                && endpointsOf(slice).isEmpty()
                && (slice.getPorts() == null || slice.getPorts().isEmpty());
    }
}
