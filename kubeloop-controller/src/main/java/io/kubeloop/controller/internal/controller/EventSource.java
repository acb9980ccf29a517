package io.kubeloop.controller.internal.controller;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.kubeloop.controller.EventFilter;
import io.kubeloop.controller.EventHandler;
import io.kubeloop.controller.Request;
import io.kubeloop.controller.RequestMapper;
import io.kubeloop.informer.ResourceEventHandler;
import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.Supplier;
import org.slf4j.Logger;

/**
 * One watch of a controller: a type, its event filter and how an object of it maps to requests of the controller's
 * type (the object itself, its controlling owner, or a user's {@link RequestMapper}) — or a user's {@link EventHandler}
 * that enqueues by itself. It makes the informer handler that feeds the controller's current queue.
 *
 * <p>Handler rules (controller-runtime's {@code handler} package with the priority-queue wrapper of §3.2):
 * <ul>
 *   <li>a creation is enqueued at {@link RequestQueue#LOW_PRIORITY} when it belongs to the initial list (or a replay
 *       of the cache to a handler added late), else at normal priority;</li>
 *   <li>an update is enqueued at low priority when both objects have the same resourceVersion (a resync), else at
 *       normal priority; the requests of the old <em>and</em> the new object are enqueued, each once;</li>
 *   <li>a deletion is always enqueued at normal priority.</li>
 * </ul>
 * A user's {@link EventHandler} gets a {@link EventHandler.Queue} whose adds carry the same priorities.
 * A filter or mapper that throws is logged at ERROR with the controller and the object, and its event is dropped:
 * the informer's dispatcher carries on.
 *
 * @param <S> the watched type
 */
public final class EventSource<S extends HasMetadata> {

    /** How an object of the watched type maps to requests. */
    @FunctionalInterface
    interface Mapping<S> {
        Collection<Request> requests(S object);
    }

    private final Class<S> type;
    private final EventFilter<? super S> filter;
    /** How events become requests: through {@code mapping}, or by {@code custom} itself (exactly one is set). */
    private final Mapping<S> mapping;

    private final EventHandler<? super S> custom;
    private final String description;

    private EventSource(
            Class<S> type,
            EventFilter<? super S> filter,
            Mapping<S> mapping,
            EventHandler<? super S> custom,
            String description) {
        this.type = Objects.requireNonNull(type, "type");
        this.filter = filter != null ? filter : new EventFilter<S>() {};
        this.mapping = mapping;
        this.custom = custom;
        this.description = description;
    }

    private EventSource(Class<S> type, EventFilter<? super S> filter, Mapping<S> mapping, String description) {
        this(type, filter, mapping, null, description);
    }

    /** Events of {@code type} go to {@code handler}, which enqueues what it wants. */
    public static <S extends HasMetadata> EventSource<S> handled(
            Class<S> type, EventFilter<? super S> filter, EventHandler<? super S> handler) {
        Objects.requireNonNull(handler, "handler");
        return new EventSource<>(type, filter, null, handler, "watches " + type.getSimpleName() + " with " + handler);
    }

    /** Events of {@code type} enqueue the object itself. */
    public static <S extends HasMetadata> EventSource<S> forObject(Class<S> type, EventFilter<? super S> filter) {
        return new EventSource<>(type, filter, o -> List.of(Request.of(o)), "for " + type.getSimpleName());
    }

    /**
     * Events of {@code type} enqueue the controlling owner (the owner reference with {@code controller: true}) when it
     * is of group {@code ownerGroup} and kind {@code ownerKind}; a namespaced owner is in the object's namespace, a
     * cluster-scoped one ({@code ownerNamespaced} false) has namespace "".
     */
    public static <S extends HasMetadata> EventSource<S> controllerOwner(
            Class<S> type,
            EventFilter<? super S> filter,
            String ownerGroup,
            String ownerKind,
            boolean ownerNamespaced) {
        Mapping<S> mapping = object -> {
            ObjectMeta meta = object.getMetadata();
            if (meta == null || meta.getOwnerReferences() == null) {
                return List.of();
            }
            for (OwnerReference ref : meta.getOwnerReferences()) {
                if (!Boolean.TRUE.equals(ref.getController())) {
                    continue;
                }
                // only one reference may be the controller: the first one decides
                if (ownerKind.equals(ref.getKind())
                        && ownerGroup.equals(groupOf(ref.getApiVersion()))
                        && ref.getName() != null
                        && !ref.getName().isEmpty()) {
                    String ns = ownerNamespaced && meta.getNamespace() != null ? meta.getNamespace() : "";
                    return List.of(new Request(ns, ref.getName()));
                }
                return List.of();
            }
            return List.of();
        };
        return new EventSource<>(type, filter, mapping, "owns " + type.getSimpleName());
    }

    /** Events of {@code type} enqueue what {@code mapper} returns. */
    public static <S extends HasMetadata> EventSource<S> mapped(
            Class<S> type, EventFilter<? super S> filter, RequestMapper<? super S> mapper) {
        Objects.requireNonNull(mapper, "mapper");
        Mapping<S> mapping = object -> {
            Collection<Request> requests = mapper.map(object);
            if (requests == null) {
                throw new NullPointerException("request mapper " + mapper + " returned null (return an empty list)");
            }
            return requests;
        };
        return new EventSource<>(type, filter, mapping, "watches " + type.getSimpleName());
    }

    public Class<S> type() {
        return type;
    }

    static String groupOf(String apiVersion) {
        if (apiVersion == null) {
            return "";
        }
        int slash = apiVersion.indexOf('/');
        return slash < 0 ? "" : apiVersion.substring(0, slash);
    }

    /** The informer handler that feeds whatever queue {@code queue} returns when an event arrives (null: none). */
    ResourceEventHandler<S> handler(Supplier<RequestQueue> queue, String controller, Logger log) {
        return new ResourceEventHandler<>() {
            @Override
            public void onAdd(S object, boolean isInInitialList) {
                try {
                    if (!filter.create(object, isInInitialList)) {
                        return;
                    }
                    int priority = isInInitialList ? RequestQueue.LOW_PRIORITY : RequestQueue.NORMAL_PRIORITY;
                    if (custom != null) {
                        custom.onCreate(object, isInInitialList, view(priority));
                    } else {
                        enqueue(mapping.requests(object), priority);
                    }
                } catch (RuntimeException e) {
                    dropped("create", object, e);
                }
            }

            @Override
            public void onUpdate(S oldObject, S newObject) {
                try {
                    if (!filter.update(oldObject, newObject)) {
                        return;
                    }
                    if (custom != null) {
                        custom.onUpdate(
                                oldObject,
                                newObject,
                                view(
                                        isResync(oldObject, newObject)
                                                ? RequestQueue.LOW_PRIORITY
                                                : RequestQueue.NORMAL_PRIORITY));
                    } else {
                        Set<Request> requests = new LinkedHashSet<>(mapping.requests(oldObject));
                        requests.addAll(mapping.requests(newObject));
                        enqueue(
                                requests,
                                isResync(oldObject, newObject)
                                        ? RequestQueue.LOW_PRIORITY
                                        : RequestQueue.NORMAL_PRIORITY);
                    }
                } catch (RuntimeException e) {
                    dropped("update", newObject, e);
                }
            }

            @Override
            public void onDelete(S object, boolean finalStateUnknown) {
                if (object == null) {
                    return;
                }
                try {
                    if (!filter.delete(object, finalStateUnknown)) {
                        return;
                    }
                    if (custom != null) {
                        custom.onDelete(object, finalStateUnknown, view(RequestQueue.NORMAL_PRIORITY));
                    } else {
                        enqueue(mapping.requests(object), RequestQueue.NORMAL_PRIORITY);
                    }
                } catch (RuntimeException e) {
                    dropped("delete", object, e);
                }
            }

            private EventHandler.Queue view(int priority) {
                return new EventHandler.Queue() {
                    @Override
                    public void add(Request request) {
                        RequestQueue q = queue.get();
                        if (q != null) {
                            q.add(Objects.requireNonNull(request, "request"), priority);
                        }
                    }

                    @Override
                    public void addAfter(Request request, Duration delay) {
                        Objects.requireNonNull(request, "request");
                        Objects.requireNonNull(delay, "delay");
                        RequestQueue q = queue.get();
                        if (q == null) {
                            return;
                        }
                        if (delay.isNegative() || delay.isZero()) {
                            q.add(request, priority);
                        } else {
                            q.addAfter(request, delay, priority);
                        }
                    }
                };
            }

            private void enqueue(Collection<Request> requests, int priority) {
                RequestQueue q = queue.get();
                if (q == null) {
                    return;
                }
                for (Request r : requests) {
                    q.add(r, priority);
                }
            }

            private void dropped(String event, S object, RuntimeException e) {
                log.error(
                        "controller {}: the event filter, request mapper or event handler of {} failed on the {} of {};"
                                + " event dropped",
                        controller,
                        description,
                        event,
                        keyOf(object),
                        e);
            }

            @Override
            public String toString() {
                return controller + " (" + description + ")";
            }
        };
    }

    private static boolean isResync(HasMetadata oldObject, HasMetadata newObject) {
        if (oldObject == newObject) {
            return true;
        }
        String oldRv = oldObject.getMetadata() != null ? oldObject.getMetadata().getResourceVersion() : null;
        String newRv = newObject.getMetadata() != null ? newObject.getMetadata().getResourceVersion() : null;
        return oldRv != null && oldRv.equals(newRv);
    }

    private static String keyOf(HasMetadata object) {
        ObjectMeta m = object.getMetadata();
        if (m == null) {
            return "an object without metadata";
        }
        return m.getNamespace() == null || m.getNamespace().isEmpty()
                ? m.getName()
                : m.getNamespace() + "/" + m.getName();
    }

    @Override
    public String toString() {
        return description;
    }
}
