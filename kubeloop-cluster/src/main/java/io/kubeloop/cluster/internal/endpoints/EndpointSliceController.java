package io.kubeloop.cluster.internal.endpoints;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.kubeloop.client.errors.KubernetesApiException;
import io.kubeloop.client.errors.NotFoundException;
import io.kubeloop.cluster.ClusterTimings;
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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * kube-controller-manager's EndpointSlice controller ({@code pkg/controller/endpointslice} on
 * {@code k8s.io/endpointslice}): the {@code discovery.k8s.io/v1} EndpointSlices of every Service with a selector,
 * per address type, at most 100 endpoints each, with kube's low-churn placement ({@link SliceReconciler}).
 *
 * <p>A slice is named {@code <service>-<random>} (generateName), labelled {@code kubernetes.io/service-name} and
 * {@code endpointslice.kubernetes.io/managed-by: endpointslice-controller.k8s.io} plus the Service's labels, and
 * controlled by the Service through an owner reference, so the garbage collector deletes the slices with the
 * Service. An endpoint is a pod that has an IP and is not terminal; terminating pods stay, with
 * {@code terminating: true} and {@code ready: false} ({@code serving} tells whether the pod is still Ready); the
 * endpoint carries the pod's node, the node's {@code topology.kubernetes.io/zone}, the pod as target, and its
 * hostname when its subdomain is the Service's name. Writes carry the
 * {@code endpoints.kubernetes.io/last-change-trigger-time} annotation.
 *
 * <p>Events: the Service's own, the pods' that can change endpoints ({@link PodServiceMapper}), and changes to the
 * managed slices that this controller did not make (a slice deleted or edited by someone is put right).
 */
public final class EndpointSliceController implements Reconciler<Service> {

    private static final Logger LOG = LoggerFactory.getLogger(EndpointSliceController.class);

    static final String NAME = "endpointslice";
    static final String COMPONENT = "endpointslice-controller";

    private final ControllerClient client;
    private final EventRecorder events;
    private final SliceReconciler reconciler = new SliceReconciler(SliceReconciler.MAX_ENDPOINTS_PER_SLICE);
    private final TriggerTimeTracker triggerTimes = new TriggerTimeTracker();
    private final RecentWrites<EndpointSlice> writes = new RecentWrites<>();

    private EndpointSliceController(ControllerClient client, EventRecorder events) {
        this.client = client;
        this.events = events;
    }

    /**
     * Registers the controller (named {@code endpointslice}, 5 workers as kube's
     * {@code --concurrent-service-endpoint-syncs}, 15 retries) with the manager, and the Node informer it reads
     * zones from. It needs no timer: kube's endpoint updates batch period is 0 by default.
     */
    public static Controller register(Manager manager, ClusterTimings timings) {
        Objects.requireNonNull(timings, "timings");
        manager.informerFactory().informerFor(Node.class);
        EndpointSliceController reconciler =
                new EndpointSliceController(manager.client(), manager.eventRecorder(COMPONENT));
        return manager.newControllerFor(Service.class)
                .named(NAME)
                .watches(Pod.class, new PodServiceMapper(manager.client()), PodServiceMapper.filter())
                .owns(EndpointSlice.class, reconciler.sliceFilter())
                .workers(5)
                .maxRetries(15)
                .complete(reconciler);
    }

    /**
     * Slice events that need a sync (kube's {@code endpointSliceTracker.ShouldSync}): changes to managed slices that
     * are not this controller's own latest write, and slices that stop or start being managed by it.
     */
    private EventFilter<EndpointSlice> sliceFilter() {
        return new EventFilter<>() {
            @Override
            public boolean create(EndpointSlice slice, boolean isInInitialList) {
                return managed(slice) && !writes.isOwn(group(slice), slice);
            }

            @Override
            public boolean update(EndpointSlice oldSlice, EndpointSlice newSlice) {
                if (Objects.equals(
                        oldSlice.getMetadata().getResourceVersion(),
                        newSlice.getMetadata().getResourceVersion())) {
                    return false;
                }
                return managed(oldSlice) != managed(newSlice)
                        || !Objects.equals(serviceName(oldSlice), serviceName(newSlice))
                        || (managed(newSlice) && !writes.isOwn(group(newSlice), newSlice));
            }

            @Override
            public boolean delete(EndpointSlice slice, boolean finalStateUnknown) {
                if (!managed(slice)) {
                    return false;
                }
                String group = group(slice);
                boolean own = writes.isOwnDeletion(group, slice.getMetadata().getName());
                writes.observeDeleted(group, slice);
                return !own;
            }
        };
    }

    @Override
    public Result reconcile(Request request) {
        String group = EndpointsController.key(request.namespace(), request.name());
        Optional<Service> found = client.getReadOnly(Service.class, request);
        if (found.isEmpty()) {
            // the garbage collector deletes the slices it owned
            triggerTimes.deleteService(request.namespace(), request.name());
            writes.forgetGroup(group);
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
        List<EndpointSlice> cached = client.listReadOnly(
                EndpointSlice.class,
                request.namespace(),
                LabelSelector.equalTo(Map.of(
                        SliceReconciler.LABEL_SERVICE_NAME,
                        request.name(),
                        SliceReconciler.LABEL_MANAGED_BY,
                        SliceReconciler.MANAGED_BY)),
                FieldSelector.everything());
        List<EndpointSlice> existing = new ArrayList<>();
        for (EndpointSlice slice : writes.merge(group, cached)) {
            if (slice.getMetadata().getDeletionTimestamp() == null) {
                existing.add(slice);
            }
        }
        TriggerTimeTracker.Pending trigger = triggerTimes.compute(service, pods); // committed once written
        Instant triggerTime = trigger.time();

        Map<String, Node> nodes = new LinkedHashMap<>();
        SliceReconciler.Plan plan = reconciler.reconcile(
                service,
                pods,
                existing,
                name -> nodes.computeIfAbsent(
                        name, n -> client.getReadOnly(Node.class, "", n).orElse(null)));
        try {
            write(group, plan, triggerTime);
            triggerTimes.commit(trigger);
        } catch (NotFoundException e) {
            // a slice updated here was deleted meanwhile (by the garbage collector after the Service, or by a user):
            // a stale view, not a failure; the next sync starts from the cache
            LOG.debug("EndpointSlice of {} deleted while being updated; syncing again: {}", group, e.getMessage());
            return Result.requeue();
        } catch (KubernetesApiException e) {
            if (EndpointsController.namespaceTerminating(e)) {
                return Result.done();
            }
            events.eventf(
                    service,
                    EventRecorder.WARNING,
                    "FailedToUpdateEndpointSlices",
                    "Error updating Endpoint Slices for Service %s: %s",
                    group,
                    e.getMessage());
            throw e;
        }
        if (!plan.missingNodes().isEmpty()) {
            // kube returns an error so that the Service is synced again once the node is known
            LOG.info("skipping pods of Service {} whose node is not known: {}", group, plan.missingNodes());
            return Result.requeue();
        }
        return Result.done();
    }

    private void write(String group, SliceReconciler.Plan plan, Instant triggerTime) {
        for (EndpointSlice slice : plan.create()) {
            setTriggerTime(slice, triggerTime);
            writes.written(group, client.create(slice));
        }
        for (EndpointSlice slice : plan.update()) {
            setTriggerTime(slice, triggerTime);
            try {
                writes.written(group, client.update(slice));
            } catch (NotFoundException e) {
                writes.forget(group, slice.getMetadata().getName()); // deleted meanwhile: the next sync creates
                throw e;
            }
        }
        for (EndpointSlice slice : plan.delete()) {
            try {
                EndpointSlice last = client.delete(slice).orElse(slice);
                writes.deleted(group, last);
            } catch (NotFoundException e) {
                writes.forget(group, slice.getMetadata().getName());
            }
        }
        if (!plan.isEmpty() && LOG.isDebugEnabled()) {
            LOG.debug(
                    "EndpointSlices of {}: {} created, {} updated, {} deleted",
                    group,
                    plan.create().size(),
                    plan.update().size(),
                    plan.delete().size());
        }
    }

    private static void setTriggerTime(EndpointSlice slice, Instant triggerTime) {
        Map<String, String> annotations =
                new LinkedHashMap<>(PodEndpoints.orEmpty(slice.getMetadata().getAnnotations()));
        if (triggerTime != null) {
            annotations.put(PodEndpoints.LAST_CHANGE_TRIGGER_TIME, PodEndpoints.formatRfc3339Nano(triggerTime));
        } else {
            annotations.remove(PodEndpoints.LAST_CHANGE_TRIGGER_TIME);
        }
        slice.getMetadata().setAnnotations(annotations.isEmpty() ? null : annotations);
    }

    private static boolean managed(EndpointSlice slice) {
        Map<String, String> labels = slice.getMetadata().getLabels();
        return labels != null && SliceReconciler.MANAGED_BY.equals(labels.get(SliceReconciler.LABEL_MANAGED_BY));
    }

    private static String serviceName(EndpointSlice slice) {
        Map<String, String> labels = slice.getMetadata().getLabels();
        return labels == null ? null : labels.get(SliceReconciler.LABEL_SERVICE_NAME);
    }

    private static String group(EndpointSlice slice) {
        return EndpointsController.key(slice.getMetadata().getNamespace(), serviceName(slice));
    }
}
