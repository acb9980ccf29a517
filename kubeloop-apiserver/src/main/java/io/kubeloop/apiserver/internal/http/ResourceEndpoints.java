package io.kubeloop.apiserver.internal.http;

import static io.kubeloop.apiserver.internal.http.QueryParameters.methodNotAllowed;

import io.kubeloop.apiserver.fault.FaultInjector;
import io.kubeloop.apiserver.internal.crd.RejectedException;
import io.kubeloop.apiserver.internal.lifecycle.LifecycleException;
import io.kubeloop.apiserver.internal.registry.AdmissionException;
import io.kubeloop.apiserver.internal.storage.StorageException;
import io.kubeloop.model.ResourceType;
import io.kubeloop.model.StatusReason;
import io.kubeloop.model.Statuses;
import java.io.IOException;

/**
 * The verbs on resources, dispatched: get, list and {@code /scale} reads to {@link ReadEndpoints}, watches to
 * {@link WatchEndpoints}, create, update, patch, delete and deletecollection to {@link WriteEndpoints}, on the main
 * resource and its {@code status} and {@code scale} subresources (see the apiserver protocol reference §1.4–§1.7).
 * A POST to {@code pods/{name}/eviction} goes to {@link WriteEndpoints#evict}, one to {@code pods/{name}/binding}
 * or to the legacy {@code bindings} collection to {@link WriteEndpoints#bind}. Checks what every verb shares first: the verb's metric label, injected faults, the namespace scope of the path,
 * the subresource, and whether the answer's media type can be served.
 *
 * <p>Invariant: every refusal below (an {@link ApiException}, a storage, admission, lifecycle or custom resource
 * refusal) is answered as its kube Status; anything else is left to {@link ApiHttpHandler}'s 500.
 */
final class ResourceEndpoints {

    private final Responses responses;
    private final Protobuf protobuf;
    private final ServerExtensions extensions;
    private final ReadEndpoints reads;
    private final WriteEndpoints writes;
    private final WatchEndpoints watches;
    private final PodRuntimeEndpoints podRuntime;

    ResourceEndpoints(
            Responses responses,
            Protobuf protobuf,
            ServerExtensions extensions,
            ReadEndpoints reads,
            WriteEndpoints writes,
            WatchEndpoints watches,
            PodRuntimeEndpoints podRuntime) {
        this.responses = responses;
        this.protobuf = protobuf;
        this.extensions = extensions;
        this.reads = reads;
        this.writes = writes;
        this.watches = watches;
        this.podRuntime = podRuntime;
    }

    void handle(ResourceRequest request) throws IOException {
        try {
            dispatch(request);
        } catch (ApiException e) {
            responses.status(request.exchange(), e.status());
        } catch (StorageException e) {
            responses.object(request.exchange(), e.code(), e.toStatus());
        } catch (RejectedException e) {
            responses.status(request.exchange(), e.status());
        } catch (LifecycleException e) {
            responses.status(request.exchange(), e.status());
        } catch (AdmissionException e) {
            responses.status(request.exchange(), e.status());
        }
    }

    private void dispatch(ResourceRequest request) throws IOException {
        RequestInfo info = request.info();
        ResourceType type = request.type();
        String method = request.method();
        boolean watch = request.isWatch();
        request.labels().verb = switch (method) {
            case "GET", "HEAD" -> watch ? "WATCH" : info.isCollection() ? "LIST" : "GET";
            case "DELETE" -> info.isCollection() ? "DELETECOLLECTION" : "DELETE";
            case "PATCH" -> "application/apply-patch+yaml".equals(request.header("Content-Type")) ? "APPLY" : "PATCH";
            default -> method;
        };
        FaultInjector injector = extensions.faults();
        io.fabric8.kubernetes.api.model.Status injected = injector == null
                ? null
                : injector.beforeResourceRequest(
                        request.exchange(), type.group(), type.plural(), request.labels().verb);
        if (injected != null) {
            throw new ApiException(injected);
        }
        boolean allNamespacesRead = info.isCollection() && (method.equals("GET") || method.equals("HEAD"));
        if ((!type.namespaced() && !info.namespace().isEmpty())
                || (type.namespaced() && info.namespace().isEmpty() && !allNamespacesRead)) {
            throw new ApiException(Statuses.routeNotFound());
        }
        String sub = info.subresource();
        if (PodRuntimeEndpoints.handles(type, sub)) {
            podRuntime.handle(request);
            return;
        }
        if (type.group().isEmpty() && type.plural().equals("bindings")) {
            legacyBinding(request);
            return;
        }
        if (!sub.isEmpty()
                && !(sub.equals("status") && type.hasStatus())
                && !(sub.equals(ResourceType.BINDING) && type.subresources().contains(ResourceType.BINDING))
                && !(sub.equals("scale") && type.hasScale())
                && !(sub.equals(ResourceType.EVICTION) && type.subresources().contains(ResourceType.EVICTION))) {
            throw new ApiException(Statuses.routeNotFound());
        }
        if (request.wantsProtobuf()
                && protobuf.refusesProtobufOnly(answerApiVersion(info, type), answerKind(info, type))) {
            throw new ApiException(Protobuf.notAcceptable()); // custom resources and CRDs
        }
        request.negotiated(Negotiated.of(request.header("Accept"), watch, protobuf));
        if (info.isCollection()) {
            switch (method) {
                case "GET", "HEAD" -> {
                    if (watch) {
                        watches.watch(request, null);
                    } else {
                        reads.list(request);
                    }
                }
                case "POST" -> writes.create(request);
                case "DELETE" -> writes.deleteCollection(request);
                default -> throw methodNotAllowed();
            }
            return;
        }
        if ((sub.equals(ResourceType.EVICTION) || sub.equals(ResourceType.BINDING)) && !method.equals("POST")) {
            throw methodNotAllowed(); // pods/eviction and pods/binding are create only
        }
        switch (method) {
            case "GET", "HEAD" -> {
                if (watch) {
                    watches.watch(request, info.name());
                } else if (sub.equals("scale")) {
                    reads.getScale(request);
                } else {
                    reads.get(request);
                }
            }
            case "POST" -> {
                if (sub.equals(ResourceType.BINDING)) {
                    writes.bind(request, type);
                } else if (sub.equals(ResourceType.EVICTION)) {
                    writes.evict(request);
                } else {
                    throw methodNotAllowed();
                }
            }
            case "PUT" -> {
                if (sub.equals("scale")) {
                    writes.scale(request, null);
                } else {
                    writes.update(request);
                }
            }
            case "PATCH" -> {
                Patches patchType = Patches.of(request.header("Content-Type"));
                if (patchType == Patches.STRATEGIC_MERGE_PATCH && extensions.isCustom(type)) {
                    throw new ApiException(
                            Statuses.failure(
                                    StatusReason.UnsupportedMediaType,
                                    "the body of the "
                                            + "request was in an unknown format - accepted media types include: "
                                            + "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml"));
                }
                if (sub.equals("scale")) {
                    writes.scale(request, patchType);
                } else {
                    writes.patch(request, patchType);
                }
            }
            case "DELETE" -> {
                if (!sub.isEmpty()) {
                    throw methodNotAllowed();
                }
                writes.delete(request);
            }
            default -> throw methodNotAllowed();
        }
    }

    /**
     * The legacy {@code bindings} collection: create only, in a namespace (kube serves nothing else there, not
     * even a list across namespaces).
     */
    private void legacyBinding(ResourceRequest request) throws IOException {
        RequestInfo info = request.info();
        if (info.namespace().isEmpty() || !info.subresource().isEmpty()) {
            throw new ApiException(Statuses.routeNotFound());
        }
        if (!info.isCollection() || !request.method().equals("POST")) {
            throw methodNotAllowed();
        }
        request.negotiated(Negotiated.of(request.header("Accept"), false, protobuf));
        writes.bind(request, Bindings.PODS);
    }

    /** The apiVersion of what a request to {@code info} answers: autoscaling/v1 for {@code /scale}. */
    private static String answerApiVersion(RequestInfo info, ResourceType type) {
        return info.subresource().equals("scale")
                ? "autoscaling/v1"
                : type.gvk().apiVersion();
    }

    /** The kind of what a request to {@code info} answers (lists and Status aside): Scale for {@code /scale}. */
    private static String answerKind(RequestInfo info, ResourceType type) {
        return info.subresource().equals("scale") ? "Scale" : type.kind();
    }
}
