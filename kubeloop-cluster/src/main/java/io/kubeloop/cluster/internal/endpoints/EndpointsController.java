package io.kubeloop.cluster.internal.endpoints;

import io.fabric8.kubernetes.api.model.Endpoints;
import io.fabric8.kubernetes.api.model.EndpointsBuilder;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.StatusCause;
import io.kubeloop.client.errors.AlreadyExistsException;
import io.kubeloop.client.errors.KubernetesApiException;
import io.kubeloop.client.errors.NotFoundException;
import io.kubeloop.cluster.ClusterTimings;
import io.kubeloop.cluster.internal.endpoints.Subsets.Address;
import io.kubeloop.cluster.internal.endpoints.Subsets.Port;
import io.kubeloop.cluster.internal.endpoints.Subsets.Subset;
import io.kubeloop.controller.Controller;
import io.kubeloop.controller.ControllerClient;
import io.kubeloop.controller.EventFilter;
import io.kubeloop.controller.EventRecorder;
import io.kubeloop.controller.Manager;
import io.kubeloop.controller.Reconciler;
import io.kubeloop.controller.Request;
import io.kubeloop.controller.Result;
import io.kubeloop.model.selector.FieldSelector;
import io.kubeloop.model.selector.LabelSelector;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * kube-controller-manager's endpoints controller ({@code pkg/controller/endpoint}): one {@code Endpoints} object per
 * Service with a selector, named as the Service, listing the addresses of the pods it selects.
 *
 * <p>What a sync of a Service writes, as kube 1.32 does:
 * <ul>
 *   <li>a Service that is gone: its Endpoints are deleted. A Service without a selector, or of type ExternalName,
 *       is left alone (its Endpoints are the user's — the {@code kubernetes} Service's are the API server's);</li>
 *   <li>every selected pod that has an IP, is not terminal (Succeeded, Failed) and not terminating (unless the
 *       Service publishes not-ready addresses) gives an address: its IP of the Service's family, its node, its
 *       hostname when its {@code subdomain} is the Service's name, a {@code targetRef} to the pod; under
 *       {@code addresses} when the pod is Ready or the Service has {@code publishNotReadyAddresses}, else under
 *       {@code notReadyAddresses};</li>
 *   <li>ports: each service port whose {@code targetPort} the pod has (a number, or a named container port with the
 *       same protocol; a pod without the named port is left out of that port only); a headless Service without
 *       ports lists the addresses without ports;</li>
 *   <li>the subsets in the canonical layout ({@link Subsets#repack}), cut to 1,000 addresses with the annotation
 *       {@code endpoints.kubernetes.io/over-capacity: truncated}; the Service's labels (plus
 *       {@code service.kubernetes.io/headless} without a cluster IP); the
 *       {@code endpoints.kubernetes.io/last-change-trigger-time} annotation;</li>
 *   <li>nothing when the subsets, labels and capacity annotation already are so.</li>
 * </ul>
 *
 * <p>Events: the Service's own (any change), the pods' that can change endpoints ({@link PodServiceMapper}), and
 * the deletion of an Endpoints object (it is recreated). At start every existing Endpoints object's Service is
 * synced once, so that Endpoints left behind by a deleted Service go (kube's {@code checkLeftoverEndpoints}).
 */
public final class EndpointsController implements Reconciler<Service> {

    private static final Logger LOG = LoggerFactory.getLogger(EndpointsController.class);

    /** The queue's and the controller's name (kube's workqueue is named {@code endpoint}). */
    static final String NAME = "endpoint";

    static final String COMPONENT = "endpoint-controller";
    static final String OVER_CAPACITY = "endpoints.kubernetes.io/over-capacity";
    private static final String LEADER_ANNOTATION = "control-plane.alpha.kubernetes.io/leader";

    private final ControllerClient client;
    private final EventRecorder events;
    private final TriggerTimeTracker triggerTimes = new TriggerTimeTracker();
    private final RecentWrites<Endpoints> writes = new RecentWrites<>();

    private EndpointsController(ControllerClient client, EventRecorder events) {
        this.client = client;
        this.events = events;
    }

    /**
     * Registers the controller (named {@code endpoint}, 5 workers as kube's {@code --concurrent-endpoint-syncs},
     * 15 retries) with the manager. It needs no timer: kube's endpoint updates batch period is 0 by default.
     */
    public static Controller register(Manager manager, ClusterTimings timings) {
        Objects.requireNonNull(timings, "timings");
        EndpointsController reconciler = new EndpointsController(manager.client(), manager.eventRecorder(COMPONENT));
        return manager.newControllerFor(Service.class)
                .named(NAME)
                .watches(Pod.class, new PodServiceMapper(manager.client()), PodServiceMapper.filter())
                .watches(Endpoints.class, ep -> List.of(Request.of(ep)), reconciler.endpointsFilter())
                .workers(5)
                .maxRetries(15)
                .complete(reconciler);
    }

    /**
     * Endpoints events that need a sync: every object of the initial list (leftovers of deleted Services) except
     * leader-election records, and deletions other than this controller's own.
     */
    private EventFilter<Endpoints> endpointsFilter() {
        return new EventFilter<>() {
            @Override
            public boolean create(Endpoints ep, boolean isInInitialList) {
                Map<String, String> annotations = ep.getMetadata().getAnnotations();
                return isInInitialList && (annotations == null || !annotations.containsKey(LEADER_ANNOTATION));
            }

            @Override
            public boolean update(Endpoints oldEp, Endpoints newEp) {
                return false;
            }

            @Override
            public boolean delete(Endpoints ep, boolean finalStateUnknown) {
                String key =
                        key(ep.getMetadata().getNamespace(), ep.getMetadata().getName());
                boolean own = writes.isOwnDeletion(key, ep.getMetadata().getName());
                writes.observeDeleted(key, ep);
                return !own;
            }
        };
    }

    @Override
    public Result reconcile(Request request) {
        String key = key(request.namespace(), request.name());
        Optional<Service> found = client.getReadOnly(Service.class, request);
        if (found.isEmpty()) {
            deleteEndpoints(request, key);
            return Result.done();
        }
        Service service = found.get();
        if (!PodEndpoints.managesEndpoints(service)) {
            return Result.done();
        }
        List<Pod> pods = client.listReadOnly(
                Pod.class,
                request.namespace(),
                LabelSelector.equalTo(PodEndpoints.selector(service)),
                FieldSelector.everything());
        // committed once the endpoints are as desired: a failed write is retried with the same trigger time
        TriggerTimeTracker.Pending trigger = triggerTimes.compute(service, pods);
        Instant triggerTime = trigger.time();

        List<Subset> desired = Subsets.repack(subsets(service, pods));
        List<Subset> truncated = Subsets.truncate(desired);
        boolean overCapacity = truncated != desired;

        Endpoints current =
                writes.resolve(key, client.getReadOnly(Endpoints.class, request).orElse(null));
        Map<String, String> serviceLabels =
                PodEndpoints.orEmpty(service.getMetadata().getLabels());
        if (current != null && upToDate(current, truncated, serviceLabels, overCapacity)) {
            triggerTimes.commit(trigger);
            return Result.done();
        }
        Endpoints endpoints = desiredEndpoints(service, current, truncated, triggerTime, overCapacity);
        boolean create = current == null;
        try {
            Endpoints stored = create ? client.create(endpoints) : client.update(endpoints);
            writes.written(key, stored);
            triggerTimes.commit(trigger);
            if (LOG.isDebugEnabled()) {
                LOG.debug(
                        "{} endpoints {}: {} ready, {} not ready",
                        create ? "created" : "updated",
                        key,
                        truncated.stream().mapToInt(s -> s.addresses().size()).sum(),
                        truncated.stream()
                                .mapToInt(s -> s.notReadyAddresses().size())
                                .sum());
            }
            return Result.done();
        } catch (AlreadyExistsException e) {
            return Result.requeue(); // created by someone just now: the cache will show it
        } catch (NotFoundException e) {
            // deleted while being updated (the Service's deletion, a user): a stale view, sync again from the cache
            writes.forget(key, request.name());
            return Result.requeue();
        } catch (KubernetesApiException e) {
            if (create && namespaceTerminating(e)) {
                return Result.done(); // creates keep failing until the namespace is gone: drop the key
            }
            if (create) {
                events.eventf(
                        endpoints,
                        EventRecorder.WARNING,
                        "FailedToCreateEndpoint",
                        "Failed to create endpoint for service %s: %s",
                        key,
                        e.getMessage());
            } else {
                events.eventf(
                        endpoints,
                        EventRecorder.WARNING,
                        "FailedToUpdateEndpoint",
                        "Failed to update endpoint %s: %s",
                        key,
                        e.getMessage());
            }
            throw e;
        }
    }

    /** The addresses and ports of the selected pods, one subset per (pod, port), not yet repacked. */
    private static List<Subset> subsets(Service service, List<Pod> pods) {
        boolean tolerateUnready = PodEndpoints.publishNotReadyAddresses(service);
        List<ServicePort> servicePorts = PodEndpoints.ports(service);
        boolean headless = "None".equals(service.getSpec().getClusterIP());
        List<Subset> subsets = new ArrayList<>(pods.size() * Math.max(1, servicePorts.size()));
        for (Pod pod : pods) {
            if (!PodEndpoints.shouldPodBeInEndpoints(pod, tolerateUnready)) {
                continue;
            }
            String ip = ipFor(service, pod);
            if (ip == null) {
                continue; // no IP of the Service's family (a single-stack pod of a dual-stack cluster)
            }
            Address address = new Address(
                    ip,
                    PodEndpoints.shouldSetHostname(pod, service) ? pod.getSpec().getHostname() : "",
                    Subsets.str(PodEndpoints.nodeName(pod)),
                    pod.getMetadata().getNamespace(),
                    pod.getMetadata().getName(),
                    Subsets.str(pod.getMetadata().getUid()));
            boolean ready = tolerateUnready || PodEndpoints.isReady(pod);
            if (servicePorts.isEmpty()) {
                if (headless) {
                    subsets.add(subset(address, ready, List.of()));
                }
                continue;
            }
            for (ServicePort sp : servicePorts) {
                Integer port = PodEndpoints.findPort(pod, sp);
                if (port == null) {
                    continue; // the pod lacks the named port: not an endpoint of this port
                }
                subsets.add(subset(
                        address,
                        ready,
                        List.of(new Port(
                                Subsets.str(sp.getName()),
                                port,
                                PodEndpoints.protocol(sp.getProtocol()),
                                Subsets.str(sp.getAppProtocol())))));
            }
        }
        return subsets;
    }

    private static Subset subset(Address address, boolean ready, List<Port> ports) {
        return ready ? new Subset(List.of(address), List.of(), ports) : new Subset(List.of(), List.of(address), ports);
    }

    /**
     * The pod's IP of the Service's IP family (kube's {@code podToEndpointAddressForService}): the family is the
     * Service's first {@code ipFamilies} entry, else its cluster IP's, else (headless) the pod's primary IP's.
     */
    static String ipFor(Service service, Pod pod) {
        List<String> families = service.getSpec().getIpFamilies();
        boolean ipv6;
        if (families != null && !families.isEmpty()) {
            ipv6 = "IPv6".equals(families.get(0));
        } else if (PodEndpoints.isServiceIpSet(service)) {
            ipv6 = PodEndpoints.isIpv6(service.getSpec().getClusterIP());
        } else {
            List<String> ips = PodEndpoints.podIps(pod);
            ipv6 = !ips.isEmpty() && PodEndpoints.isIpv6(ips.get(0));
        }
        List<String> ips = PodEndpoints.podIps(pod, ipv6);
        return ips.isEmpty() ? null : ips.get(0);
    }

    private static boolean upToDate(
            Endpoints current, List<Subset> subsets, Map<String, String> serviceLabels, boolean overCapacity) {
        Map<String, String> labels =
                new HashMap<>(PodEndpoints.orEmpty(current.getMetadata().getLabels()));
        labels.remove(PodEndpoints.HEADLESS_LABEL); // the Service does not carry it
        Map<String, String> annotations =
                PodEndpoints.orEmpty(current.getMetadata().getAnnotations());
        return Subsets.fromModel(current.getSubsets()).equals(subsets)
                && labels.equals(serviceLabels)
                && overCapacity == annotations.containsKey(OVER_CAPACITY);
    }

    private static Endpoints desiredEndpoints(
            Service service, Endpoints current, List<Subset> subsets, Instant triggerTime, boolean overCapacity) {
        ObjectMeta meta = current == null
                ? new ObjectMetaBuilder()
                        .withName(service.getMetadata().getName())
                        .withNamespace(service.getMetadata().getNamespace())
                        .build()
                : new ObjectMetaBuilder(current.getMetadata()).build();
        meta.setManagedFields(null); // a PUT without them keeps the server's
        Map<String, String> labels =
                new LinkedHashMap<>(PodEndpoints.orEmpty(service.getMetadata().getLabels()));
        if (PodEndpoints.isServiceIpSet(service)) {
            labels.remove(PodEndpoints.HEADLESS_LABEL);
        } else {
            labels.put(PodEndpoints.HEADLESS_LABEL, "");
        }
        meta.setLabels(labels);
        Map<String, String> annotations = new LinkedHashMap<>(PodEndpoints.orEmpty(meta.getAnnotations()));
        if (triggerTime != null) {
            annotations.put(PodEndpoints.LAST_CHANGE_TRIGGER_TIME, PodEndpoints.formatRfc3339Nano(triggerTime));
        } else {
            annotations.remove(PodEndpoints.LAST_CHANGE_TRIGGER_TIME);
        }
        if (overCapacity) {
            annotations.put(OVER_CAPACITY, "truncated");
        } else {
            annotations.remove(OVER_CAPACITY);
        }
        meta.setAnnotations(annotations.isEmpty() ? null : annotations);
        return new EndpointsBuilder()
                .withMetadata(meta)
                .withSubsets(Subsets.toModel(subsets))
                .build();
    }

    private void deleteEndpoints(Request request, String key) {
        // as kube: delete by name, whether or not the cache shows one (it may lag)
        Endpoints named = new EndpointsBuilder()
                .withNewMetadata()
                .withNamespace(request.namespace())
                .withName(request.name())
                .endMetadata()
                .build();
        triggerTimes.deleteService(request.namespace(), request.name());
        writes.forgetGroup(key);
        try {
            Endpoints last = client.delete(named).orElse(named);
            writes.deleted(key, last);
            LOG.debug("deleted endpoints {}: the Service is gone", key);
        } catch (NotFoundException e) {
            // none, or already deleted
        }
    }

    static boolean namespaceTerminating(KubernetesApiException e) {
        if (!e.hasServerStatus() || e.status().getDetails() == null) {
            return false;
        }
        List<StatusCause> causes = e.status().getDetails().getCauses();
        return causes != null && causes.stream().anyMatch(c -> "NamespaceTerminating".equals(c.getReason()));
    }

    static String key(String namespace, String name) {
        return namespace + "/" + name;
    }
}
