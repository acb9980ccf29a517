package io.kubeloop.cluster.internal.endpoints;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.kubeloop.controller.ControllerClient;
import io.kubeloop.controller.EventFilter;
import io.kubeloop.controller.Request;
import io.kubeloop.controller.RequestMapper;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Maps a pod's events to the Services whose endpoints they may change (kube's {@code GetPodServiceMemberships} and
 * {@code GetServicesToUpdateOnPodChange}): the Services of the pod's namespace whose selector matches its labels,
 * read from the manager's cache (one list of the namespace's Services, a map lookup per selector key).
 *
 * <p>The {@link #filter() filter} passes the creation and deletion of a pod with an IP, and a pod update only when it can change endpoints (readiness, IPs, deletion,
 * terminal phase, node) or the set of Services that select it (labels, hostname, subdomain); the informer's resyncs
 * (same resourceVersion) and status updates that change nothing of the kind never reach the queues. For an update
 * that passes, the mapper runs on the old and the new pod, so that a Service that stops selecting the pod is synced
 * too (a superset of kube's {@code determineNeededServiceUpdates}, which skips the Services common to both when only
 * the labels changed).
 */
final class PodServiceMapper implements RequestMapper<Pod> {

    private final ControllerClient cache;

    PodServiceMapper(ControllerClient cache) {
        this.cache = cache;
    }

    @Override
    public List<Request> map(Pod pod) {
        String namespace = pod.getMetadata().getNamespace();
        Map<String, String> labels = pod.getMetadata().getLabels();
        List<Request> requests = new ArrayList<>(1);
        for (Service service : cache.listReadOnly(Service.class, namespace)) {
            Map<String, String> selector = PodEndpoints.selector(service);
            // a Service without a selector selects nothing, not everything
            if (selector != null && PodEndpoints.matches(selector, labels)) {
                requests.add(Request.of(namespace, service.getMetadata().getName()));
            }
        }
        return requests;
    }

    /**
     * Passes the creations and deletions of pods with an IP (a pod without one is in no endpoints: it gets there
     * through the update that gives it an IP), and the updates that can change a Service's endpoints.
     */
    static EventFilter<Pod> filter() {
        return new EventFilter<>() {
            @Override
            public boolean create(Pod pod, boolean isInInitialList) {
                return hasIp(pod);
            }

            @Override
            public boolean delete(Pod pod, boolean finalStateUnknown) {
                return hasIp(pod);
            }

            @Override
            public boolean update(Pod oldPod, Pod newPod) {
                if (Objects.equals(
                        oldPod.getMetadata().getResourceVersion(),
                        newPod.getMetadata().getResourceVersion())) {
                    return false; // a resync: the Services' own resyncs cover it
                }
                boolean[] changed = PodEndpoints.podEndpointsChanged(oldPod, newPod);
                return changed[0] || changed[1];
            }
        };
    }

    private static boolean hasIp(Pod pod) {
        return pod.getStatus() != null && !PodEndpoints.podIps(pod).isEmpty();
    }
}
