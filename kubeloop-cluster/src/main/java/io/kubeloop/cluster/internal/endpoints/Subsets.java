package io.kubeloop.cluster.internal.endpoints;

import io.fabric8.kubernetes.api.model.EndpointAddress;
import io.fabric8.kubernetes.api.model.EndpointAddressBuilder;
import io.fabric8.kubernetes.api.model.EndpointPort;
import io.fabric8.kubernetes.api.model.EndpointPortBuilder;
import io.fabric8.kubernetes.api.model.EndpointSubset;
import io.fabric8.kubernetes.api.model.EndpointSubsetBuilder;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The subsets of an Endpoints object as values, and kube's operations on them: {@code RepackSubsets} (the canonical
 * layout: one subset per set of addresses that offer the same ports), the controller's truncation to 1,000
 * addresses, and comparison that ignores what the controller does not own (a target's resourceVersion).
 *
 * <p>Canonical order: addresses by IP then pod UID (kube's {@code LessEndpointAddress}), ports by name, number,
 * protocol, subsets by their ports and then their addresses. kube orders ports and subsets by a hash of their Go
 * representation; the order here is as stable but not the same, and nothing should depend on either.
 */
final class Subsets {

    /** The most addresses one Endpoints object holds ({@code maxCapacity}). */
    static final int MAX_CAPACITY = 1000;

    /** An address; the target is always a Pod ({@code refUid} may be empty for foreign addresses). */
    record Address(String ip, String hostname, String nodeName, String refNamespace, String refName, String refUid) {}

    record Port(String name, int port, String protocol, String appProtocol) {}

    record Subset(List<Address> addresses, List<Address> notReadyAddresses, List<Port> ports) {
        int size() {
            return addresses.size() + notReadyAddresses.size();
        }
    }

    private static final Port NO_PORTS = new Port("", -1, "", "");

    static final Comparator<Address> ADDRESS_ORDER =
            Comparator.comparing(Address::ip).thenComparing(Address::refUid);

    static final Comparator<Port> PORT_ORDER = Comparator.comparing(Port::name)
            .thenComparingInt(Port::port)
            .thenComparing(Port::protocol)
            .thenComparing(Port::appProtocol);

    private static final Comparator<List<Port>> PORTS_ORDER = lexicographic(PORT_ORDER);
    private static final Comparator<List<Address>> ADDRESSES_ORDER = lexicographic(ADDRESS_ORDER);
    static final Comparator<Subset> SUBSET_ORDER = Comparator.comparing(Subset::ports, PORTS_ORDER)
            .thenComparing(Subset::addresses, ADDRESSES_ORDER)
            .thenComparing(Subset::notReadyAddresses, ADDRESSES_ORDER);

    private Subsets() {}

    /**
     * kube's {@code RepackSubsets}: maps every (address, port) pair, an address being unique by IP and target UID
     * (not ready wins over ready when one address is given both), then groups the ports offered by the same
     * addresses into one subset. Subsets without ports (a headless Service without ports) are kept as one subset
     * without ports.
     */
    static List<Subset> repack(List<Subset> subsets) {
        Map<List<String>, Address> allAddresses = new HashMap<>();
        Map<Port, Map<Address, Boolean>> readyByPort = new LinkedHashMap<>();
        for (Subset subset : subsets) {
            List<Port> ports = subset.ports().isEmpty() ? List.of(NO_PORTS) : subset.ports();
            for (Port port : ports) {
                for (Address a : subset.addresses()) {
                    mapAddressByPort(a, port, true, allAddresses, readyByPort);
                }
                for (Address a : subset.notReadyAddresses()) {
                    mapAddressByPort(a, port, false, allAddresses, readyByPort);
                }
            }
        }
        // the ports offered by exactly the same addresses (with the same readiness) share a subset
        Map<Map<Address, Boolean>, List<Port>> portsByAddresses = new LinkedHashMap<>();
        for (Map.Entry<Port, Map<Address, Boolean>> e : readyByPort.entrySet()) {
            portsByAddresses
                    .computeIfAbsent(e.getValue(), k -> new ArrayList<>())
                    .add(e.getKey());
        }
        List<Subset> result = new ArrayList<>(portsByAddresses.size());
        for (Map.Entry<Map<Address, Boolean>, List<Port>> e : portsByAddresses.entrySet()) {
            List<Address> ready = new ArrayList<>();
            List<Address> notReady = new ArrayList<>();
            e.getKey().forEach((address, isReady) -> (isReady ? ready : notReady).add(address));
            List<Port> ports = new ArrayList<>(e.getValue().size());
            for (Port p : e.getValue()) {
                if (p != NO_PORTS) {
                    ports.add(p);
                }
            }
            ready.sort(ADDRESS_ORDER);
            notReady.sort(ADDRESS_ORDER);
            ports.sort(PORT_ORDER);
            result.add(new Subset(List.copyOf(ready), List.copyOf(notReady), List.copyOf(ports)));
        }
        result.sort(SUBSET_ORDER);
        return result;
    }

    private static void mapAddressByPort(
            Address address,
            Port port,
            boolean ready,
            Map<List<String>, Address> allAddresses,
            Map<Port, Map<Address, Boolean>> readyByPort) {
        Address canonical = allAddresses.computeIfAbsent(List.of(address.ip(), address.refUid()), k -> address);
        Map<Address, Boolean> addresses = readyByPort.computeIfAbsent(port, k -> new HashMap<>());
        Boolean wasReady = addresses.get(canonical);
        if (wasReady == null || wasReady) {
            addresses.put(canonical, ready); // not ready always trumps ready
        }
    }

    static int count(List<Subset> subsets) {
        int n = 0;
        for (Subset s : subsets) {
            n += s.size();
        }
        return n;
    }

    /**
     * kube's {@code truncateEndpoints}: at most {@link #MAX_CAPACITY} addresses, ready ones first, each subset keeping
     * its proportional share (rounded up, the last one taking what is left). Returns {@code subsets} itself when
     * nothing is cut.
     */
    static List<Subset> truncate(List<Subset> subsets) {
        int totalReady = 0;
        int totalNotReady = 0;
        for (Subset s : subsets) {
            totalReady += s.addresses().size();
            totalNotReady += s.notReadyAddresses().size();
        }
        if (totalReady + totalNotReady <= MAX_CAPACITY) {
            return subsets;
        }
        boolean truncateReady = totalReady > MAX_CAPACITY;
        int max = truncateReady ? MAX_CAPACITY : MAX_CAPACITY - totalReady;
        int numTotal = truncateReady ? totalReady : totalNotReady;
        int canBeAdded = max;
        List<Subset> out = new ArrayList<>(subsets.size());
        for (Subset s : subsets) {
            int inSubset =
                    truncateReady ? s.addresses().size() : s.notReadyAddresses().size();
            int toBeAdded = (int) Math.ceil(((double) inSubset / numTotal) * max);
            toBeAdded = Math.min(toBeAdded, canBeAdded);
            if (truncateReady) {
                List<Address> ready = head(s.addresses(), toBeAdded);
                out.add(new Subset(ready, List.of(), s.ports()));
                canBeAdded -= ready.size();
            } else {
                List<Address> notReady = head(s.notReadyAddresses(), toBeAdded);
                out.add(new Subset(s.addresses(), notReady, s.ports()));
                canBeAdded -= notReady.size();
            }
        }
        return out;
    }

    private static List<Address> head(List<Address> list, int n) {
        return list.size() <= n ? list : List.copyOf(list.subList(0, n));
    }

    // ---- conversions ------------------------------------------------------------------------------------------

    static List<Subset> fromModel(List<EndpointSubset> subsets) {
        if (subsets == null) {
            return List.of();
        }
        List<Subset> out = new ArrayList<>(subsets.size());
        for (EndpointSubset s : subsets) {
            out.add(new Subset(addresses(s.getAddresses()), addresses(s.getNotReadyAddresses()), ports(s.getPorts())));
        }
        return out;
    }

    private static List<Address> addresses(List<EndpointAddress> addresses) {
        if (addresses == null) {
            return List.of();
        }
        List<Address> out = new ArrayList<>(addresses.size());
        for (EndpointAddress a : addresses) {
            ObjectReference ref = a.getTargetRef();
            out.add(new Address(
                    str(a.getIp()),
                    str(a.getHostname()),
                    str(a.getNodeName()),
                    ref == null ? "" : str(ref.getNamespace()),
                    ref == null ? "" : str(ref.getName()),
                    ref == null ? "" : str(ref.getUid())));
        }
        return out;
    }

    private static List<Port> ports(List<EndpointPort> ports) {
        if (ports == null) {
            return List.of();
        }
        List<Port> out = new ArrayList<>(ports.size());
        for (EndpointPort p : ports) {
            out.add(new Port(
                    str(p.getName()),
                    p.getPort() == null ? 0 : p.getPort(),
                    PodEndpoints.protocol(p.getProtocol()),
                    str(p.getAppProtocol())));
        }
        return out;
    }

    static List<EndpointSubset> toModel(List<Subset> subsets) {
        List<EndpointSubset> out = new ArrayList<>(subsets.size());
        for (Subset s : subsets) {
            EndpointSubsetBuilder b = new EndpointSubsetBuilder();
            if (!s.addresses().isEmpty()) {
                b.withAddresses(s.addresses().stream().map(Subsets::toModel).toList());
            }
            if (!s.notReadyAddresses().isEmpty()) {
                b.withNotReadyAddresses(
                        s.notReadyAddresses().stream().map(Subsets::toModel).toList());
            }
            if (!s.ports().isEmpty()) {
                b.withPorts(s.ports().stream().map(Subsets::toModel).toList());
            }
            out.add(b.build());
        }
        return out;
    }

    private static EndpointAddress toModel(Address a) {
        EndpointAddressBuilder b = new EndpointAddressBuilder().withIp(a.ip());
        if (!a.hostname().isEmpty()) {
            b.withHostname(a.hostname());
        }
        if (!a.nodeName().isEmpty()) {
            b.withNodeName(a.nodeName());
        }
        if (!a.refName().isEmpty()) {
            ObjectReference ref = new ObjectReferenceBuilder()
                    .withKind("Pod")
                    .withNamespace(a.refNamespace())
                    .withName(a.refName())
                    .withUid(a.refUid().isEmpty() ? null : a.refUid())
                    .build();
            b.withTargetRef(ref);
        }
        return b.build();
    }

    private static EndpointPort toModel(Port p) {
        EndpointPortBuilder b = new EndpointPortBuilder().withPort(p.port()).withProtocol(p.protocol());
        if (!p.name().isEmpty()) {
            b.withName(p.name());
        }
        if (!p.appProtocol().isEmpty()) {
            b.withAppProtocol(p.appProtocol());
        }
        return b.build();
    }

    static String str(String s) {
        return s == null ? "" : s;
    }

    private static <E> Comparator<List<E>> lexicographic(Comparator<E> element) {
        return (a, b) -> {
            int n = Math.min(a.size(), b.size());
            for (int i = 0; i < n; i++) {
                int c = element.compare(a.get(i), b.get(i));
                if (c != 0) {
                    return c;
                }
            }
            return Integer.compare(a.size(), b.size());
        };
    }
}
