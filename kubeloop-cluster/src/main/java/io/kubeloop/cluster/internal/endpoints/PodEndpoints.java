package io.kubeloop.cluster.internal.endpoints;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodIP;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.ServiceSpec;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What the endpoints and EndpointSlice controllers read from pods and Services, as kube's
 * {@code k8s.io/endpointslice/util} and {@code pkg/api/v1/pod} helpers do: which pods belong in endpoints, whether a
 * pod is ready, its addresses, the container port a service port targets, and when a pod event can change a
 * Service's endpoints. Never changes what it is given (the objects are the cache's).
 */
final class PodEndpoints {

    /** The label that marks the Endpoints and EndpointSlices of a Service without a cluster IP. */
    static final String HEADLESS_LABEL = "service.kubernetes.io/headless";

    /** When the change that led to an Endpoints or EndpointSlice write happened ({@code v1.EndpointsLastChangeTriggerTime}). */
    static final String LAST_CHANGE_TRIGGER_TIME = "endpoints.kubernetes.io/last-change-trigger-time";

    static final String ZONE_LABEL = "topology.kubernetes.io/zone";

    private PodEndpoints() {}

    /**
     * kube's {@code ShouldPodBeInEndpoints}: not terminal (Succeeded, Failed), has an IP, and — unless
     * {@code includeTerminating} — has no deletionTimestamp.
     */
    static boolean shouldPodBeInEndpoints(Pod pod, boolean includeTerminating) {
        PodStatus status = pod.getStatus();
        if (status == null) {
            return false;
        }
        if (isTerminal(status.getPhase())) {
            return false;
        }
        if (isEmpty(status.getPodIP())
                && (status.getPodIPs() == null || status.getPodIPs().isEmpty())) {
            return false;
        }
        return includeTerminating || pod.getMetadata().getDeletionTimestamp() == null;
    }

    static boolean isTerminal(String phase) {
        return "Succeeded".equals(phase) || "Failed".equals(phase);
    }

    /** The pod's Ready condition is True. */
    static boolean isReady(Pod pod) {
        PodCondition ready = readyCondition(pod);
        return ready != null && "True".equals(ready.getStatus());
    }

    static PodCondition readyCondition(Pod pod) {
        if (pod.getStatus() == null || pod.getStatus().getConditions() == null) {
            return null;
        }
        for (PodCondition c : pod.getStatus().getConditions()) {
            if ("Ready".equals(c.getType())) {
                return c;
            }
        }
        return null;
    }

    /** The last transition of the pod's Ready condition, the pod's "trigger time"; null if unknown. */
    static Instant readyTransitionTime(Pod pod) {
        PodCondition ready = readyCondition(pod);
        return ready == null ? null : parseTime(ready.getLastTransitionTime());
    }

    static Instant parseTime(String rfc3339) {
        if (isEmpty(rfc3339)) {
            return null;
        }
        try {
            return Instant.parse(rfc3339);
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    /**
     * The pod's IPs: {@code status.podIPs}, or {@code status.podIP} when the list is empty (a server that does not
     * fill the list in).
     */
    static List<String> podIps(Pod pod) {
        PodStatus status = pod.getStatus();
        List<String> ips = new ArrayList<>(2);
        if (status.getPodIPs() != null) {
            for (PodIP ip : status.getPodIPs()) {
                if (ip != null && !isEmpty(ip.getIp())) {
                    ips.add(ip.getIp());
                }
            }
        }
        if (ips.isEmpty() && !isEmpty(status.getPodIP())) {
            ips.add(status.getPodIP());
        }
        return ips;
    }

    static boolean isIpv6(String ip) {
        return ip.indexOf(':') >= 0;
    }

    /** The pod's IPs of one family ({@code IPv4} or {@code IPv6}), in the pod's order. */
    static List<String> podIps(Pod pod, boolean ipv6) {
        List<String> all = podIps(pod);
        List<String> out = new ArrayList<>(all.size());
        for (String ip : all) {
            if (isIpv6(ip) == ipv6) {
                out.add(ip);
            }
        }
        return out;
    }

    /**
     * The container port {@code servicePort} targets on {@code pod} (kube's {@code FindPort}): a number as it is; a
     * name looked up, with the service port's protocol, in the containers' ports and then in the ports of sidecars
     * (init containers with {@code restartPolicy: Always}). Null when the pod has no such named port.
     */
    static Integer findPort(Pod pod, ServicePort servicePort) {
        IntOrString target = servicePort.getTargetPort();
        if (target == null || (target.getIntVal() == null && target.getStrVal() == null)) {
            return servicePort.getPort(); // the server defaults targetPort to port
        }
        if (target.getIntVal() != null) {
            return target.getIntVal();
        }
        String name = target.getStrVal();
        String protocol = protocol(servicePort.getProtocol());
        PodSpec spec = pod.getSpec();
        if (spec == null) {
            return null;
        }
        Integer found = findNamedPort(spec.getContainers(), name, protocol, false);
        return found != null ? found : findNamedPort(spec.getInitContainers(), name, protocol, true);
    }

    private static Integer findNamedPort(List<Container> containers, String name, String protocol, boolean sidecars) {
        if (containers == null) {
            return null;
        }
        for (Container c : containers) {
            if (sidecars && !"Always".equals(c.getRestartPolicy())) {
                continue;
            }
            if (c.getPorts() == null) {
                continue;
            }
            for (ContainerPort p : c.getPorts()) {
                if (name.equals(p.getName()) && protocol.equals(protocol(p.getProtocol()))) {
                    return p.getContainerPort();
                }
            }
        }
        return null;
    }

    /** A port's protocol, TCP when unset (the server's default). */
    static String protocol(String protocol) {
        return isEmpty(protocol) ? "TCP" : protocol;
    }

    /** kube's {@code ShouldSetHostname}: the pod has a hostname and its subdomain is the Service's name. */
    static boolean shouldSetHostname(Pod pod, Service service) {
        PodSpec spec = pod.getSpec();
        return spec != null
                && !isEmpty(spec.getHostname())
                && Objects.equals(spec.getSubdomain(), service.getMetadata().getName())
                && Objects.equals(
                        pod.getMetadata().getNamespace(), service.getMetadata().getNamespace());
    }

    /** The Service's selector; null when it has none (or an empty one, which the API stores as none). */
    static Map<String, String> selector(Service service) {
        ServiceSpec spec = service.getSpec();
        if (spec == null || spec.getSelector() == null || spec.getSelector().isEmpty()) {
            return null;
        }
        return spec.getSelector();
    }

    /** Whether the controllers manage endpoints for the Service: it has a selector and is not ExternalName. */
    static boolean managesEndpoints(Service service) {
        return selector(service) != null
                && !"ExternalName".equals(service.getSpec().getType());
    }

    /** A set-based selector's match: every key of {@code selector} has its value in {@code labels}. */
    static boolean matches(Map<String, String> selector, Map<String, String> labels) {
        if (selector.isEmpty()) {
            return true;
        }
        if (labels == null) {
            return false;
        }
        for (Map.Entry<String, String> e : selector.entrySet()) {
            if (!e.getValue().equals(labels.get(e.getKey()))) {
                return false;
            }
        }
        return true;
    }

    /** kube's {@code IsServiceIPSet}: a cluster IP other than {@code None}. */
    static boolean isServiceIpSet(Service service) {
        String ip = service.getSpec().getClusterIP();
        return !isEmpty(ip) && !"None".equals(ip);
    }

    static boolean publishNotReadyAddresses(Service service) {
        return Boolean.TRUE.equals(service.getSpec().getPublishNotReadyAddresses());
    }

    static List<ServicePort> ports(Service service) {
        List<ServicePort> ports = service.getSpec().getPorts();
        return ports == null ? List.of() : ports;
    }

    /**
     * kube's {@code podEndpointsChanged} for an update of a pod: [0] the pod changed in a way that changes its
     * endpoints (deletionTimestamp, readiness, IPs — and, beyond kube, its phase turning terminal or its node, which
     * kube relies on readiness to reflect); [1] it changed in a way that may change which Services select it
     * (labels, hostname, subdomain).
     */
    static boolean[] podEndpointsChanged(Pod oldPod, Pod newPod) {
        ObjectMeta o = oldPod.getMetadata();
        ObjectMeta n = newPod.getMetadata();
        boolean labelsChanged = !Objects.equals(orEmpty(o.getLabels()), orEmpty(n.getLabels()))
                || !Objects.equals(hostname(oldPod), hostname(newPod))
                || !Objects.equals(subdomain(oldPod), subdomain(newPod));
        boolean podChanged = !Objects.equals(o.getDeletionTimestamp(), n.getDeletionTimestamp())
                || isReady(oldPod) != isReady(newPod)
                || !Objects.equals(ipsOrEmpty(oldPod), ipsOrEmpty(newPod))
                || isTerminal(phase(oldPod)) != isTerminal(phase(newPod))
                || !Objects.equals(nodeName(oldPod), nodeName(newPod));
        return new boolean[] {podChanged, labelsChanged};
    }

    private static List<String> ipsOrEmpty(Pod pod) {
        return pod.getStatus() == null ? List.of() : podIps(pod);
    }

    private static String phase(Pod pod) {
        return pod.getStatus() == null ? null : pod.getStatus().getPhase();
    }

    static String nodeName(Pod pod) {
        return pod.getSpec() == null ? null : pod.getSpec().getNodeName();
    }

    private static String hostname(Pod pod) {
        return pod.getSpec() == null ? null : pod.getSpec().getHostname();
    }

    private static String subdomain(Pod pod) {
        return pod.getSpec() == null ? null : pod.getSpec().getSubdomain();
    }

    static Map<String, String> orEmpty(Map<String, String> map) {
        return map == null ? Map.of() : map;
    }

    static boolean isEmpty(String s) {
        return s == null || s.isEmpty();
    }

    /**
     * An instant as Go's {@code time.RFC3339Nano} prints it in UTC: the fraction without trailing zeros, none when
     * whole ({@code 2025-01-02T03:04:05.5Z}).
     */
    static String formatRfc3339Nano(Instant instant) {
        String s = instant.toString(); // ISO-8601 in UTC; the fraction in groups of 3 digits
        int dot = s.indexOf('.');
        if (dot < 0) {
            return s;
        }
        int end = s.length() - 1; // the 'Z'
        int last = end - 1;
        while (last > dot && s.charAt(last) == '0') {
            last--;
        }
        return last == dot ? s.substring(0, dot) + "Z" : s.substring(0, last + 1) + "Z";
    }
}
