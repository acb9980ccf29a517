package io.kubeloop.controller;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.kubeloop.model.selector.LabelSelector;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.BiPredicate;

/**
 * Decides which events of a watched type reach the controller's queue (controller-runtime's {@code predicate}).
 * An event that a filter rejects enqueues nothing; filters never change what the cache holds.
 *
 * <p>Each method defaults to {@code true}: override only the events you want to filter. The ready-made filters
 * follow controller-runtime's semantics (§4.5 of the reference):
 * <ul>
 *   <li>{@link #generationChanged()}, {@link #resourceVersionChanged()}, {@link #labelsChanged()},
 *       {@link #annotationsChanged()} filter <em>updates</em> only (creates and deletes pass);</li>
 *   <li>{@link #labelSelector} filters every event by the labels of the (new) object;</li>
 *   <li>{@link #and}, {@link #or} and {@link #not} combine filters event by event.</li>
 * </ul>
 *
 * <pre>{@code
 * manager.newControllerFor(Deployment.class)
 *         .withEventFilter(EventFilter.or(EventFilter.generationChanged(), EventFilter.labelsChanged()))
 *         .complete(reconciler);
 * }</pre>
 *
 * <p>Filters run on the informer's dispatcher threads, one event at a time per watch: they must be fast, must not
 * block and must not change the objects they are given (those are the cache's). A filter that throws is logged and
 * its event dropped.
 *
 * @param <T> the type of the filtered objects
 */
public interface EventFilter<T> {

    /**
     * Whether a creation (or an object of the initial list: {@code isInInitialList}) is enqueued. Default true.
     */
    default boolean create(T object, boolean isInInitialList) {
        return true;
    }

    /** Whether an update (or a resync, when both have the same resourceVersion) is enqueued. Default true. */
    default boolean update(T oldObject, T newObject) {
        return true;
    }

    /**
     * Whether a deletion is enqueued; {@code finalStateUnknown}: the deletion was inferred from a relist and
     * {@code object} is the last state the cache knew. Default true.
     */
    default boolean delete(T object, boolean finalStateUnknown) {
        return true;
    }

    /**
     * Passes updates whose {@code metadata.generation} changed (controller-runtime's
     * {@code GenerationChangedPredicate}): spec changes, not status-only ones. Caveat, as upstream: a status the
     * reconciler should restore is not seen again, and some built-ins bump the generation on other changes.
     */
    static EventFilter<HasMetadata> generationChanged() {
        return updateOnly((o, n) -> !Objects.equals(meta(o).getGeneration(), meta(n).getGeneration()));
    }

    /** Passes updates whose resourceVersion changed: drops the informer's periodic resyncs. */
    static EventFilter<HasMetadata> resourceVersionChanged() {
        return updateOnly((o, n) -> !Objects.equals(meta(o).getResourceVersion(), meta(n).getResourceVersion()));
    }

    /** Passes updates whose labels changed (a missing label map equals an empty one). */
    static EventFilter<HasMetadata> labelsChanged() {
        return updateOnly((o, n) -> !orEmpty(meta(o).getLabels()).equals(orEmpty(meta(n).getLabels())));
    }

    /** Passes updates whose annotations changed (a missing annotation map equals an empty one). */
    static EventFilter<HasMetadata> annotationsChanged() {
        return updateOnly((o, n) -> !orEmpty(meta(o).getAnnotations()).equals(orEmpty(meta(n).getAnnotations())));
    }

    /**
     * Passes events of objects whose labels match {@code selector} — for an update, the new object's labels
     * (controller-runtime's {@code LabelSelectorPredicate}).
     *
     * @param selector a label selector in Kubernetes' syntax, e.g. {@code "app=web,tier in (front,edge)"}
     * @throws IllegalArgumentException the selector does not parse (the message says where)
     */
    static EventFilter<HasMetadata> labelSelector(String selector) {
        Objects.requireNonNull(selector, "selector");
        LabelSelector parsed;
        try {
            parsed = LabelSelector.parse(selector);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(
                    "invalid label selector \"" + selector + "\" for an event filter: " + e.getMessage(), e);
        }
        return labelSelector(parsed);
    }

    /** {@link #labelSelector(String)} with a parsed selector. */
    static EventFilter<HasMetadata> labelSelector(LabelSelector selector) {
        Objects.requireNonNull(selector, "selector");
        return new EventFilter<>() {
            @Override
            public boolean create(HasMetadata object, boolean isInInitialList) {
                return selector.matches(orEmpty(meta(object).getLabels()));
            }

            @Override
            public boolean update(HasMetadata oldObject, HasMetadata newObject) {
                return selector.matches(orEmpty(meta(newObject).getLabels()));
            }

            @Override
            public boolean delete(HasMetadata object, boolean finalStateUnknown) {
                return selector.matches(orEmpty(meta(object).getLabels()));
            }

            @Override
            public String toString() {
                return "labelSelector(" + selector + ")";
            }
        };
    }

    /** Passes an event when every filter passes it (in order; stops at the first that rejects it). */
    @SafeVarargs
    @SuppressWarnings("varargs") // List.of only reads and copies the array, so no heap pollution can escape
    static <T> EventFilter<T> and(EventFilter<? super T>... filters) {
        List<EventFilter<? super T>> all = List.of(filters);
        return new EventFilter<>() {
            @Override
            public boolean create(T object, boolean isInInitialList) {
                return all.stream().allMatch(f -> f.create(object, isInInitialList));
            }

            @Override
            public boolean update(T oldObject, T newObject) {
                return all.stream().allMatch(f -> f.update(oldObject, newObject));
            }

            @Override
            public boolean delete(T object, boolean finalStateUnknown) {
                return all.stream().allMatch(f -> f.delete(object, finalStateUnknown));
            }

            @Override
            public String toString() {
                return "and" + all;
            }
        };
    }

    /** Passes an event when at least one filter passes it (in order; stops at the first that does). */
    @SafeVarargs
    @SuppressWarnings("varargs") // List.of only reads and copies the array, so no heap pollution can escape
    static <T> EventFilter<T> or(EventFilter<? super T>... filters) {
        List<EventFilter<? super T>> any = List.of(filters);
        return new EventFilter<>() {
            @Override
            public boolean create(T object, boolean isInInitialList) {
                return any.stream().anyMatch(f -> f.create(object, isInInitialList));
            }

            @Override
            public boolean update(T oldObject, T newObject) {
                return any.stream().anyMatch(f -> f.update(oldObject, newObject));
            }

            @Override
            public boolean delete(T object, boolean finalStateUnknown) {
                return any.stream().anyMatch(f -> f.delete(object, finalStateUnknown));
            }

            @Override
            public String toString() {
                return "or" + any;
            }
        };
    }

    /** Passes exactly the events {@code filter} rejects. */
    static <T> EventFilter<T> not(EventFilter<? super T> filter) {
        Objects.requireNonNull(filter, "filter");
        return new EventFilter<>() {
            @Override
            public boolean create(T object, boolean isInInitialList) {
                return !filter.create(object, isInInitialList);
            }

            @Override
            public boolean update(T oldObject, T newObject) {
                return !filter.update(oldObject, newObject);
            }

            @Override
            public boolean delete(T object, boolean finalStateUnknown) {
                return !filter.delete(object, finalStateUnknown);
            }

            @Override
            public String toString() {
                return "not(" + filter + ")";
            }
        };
    }

    private static EventFilter<HasMetadata> updateOnly(BiPredicate<HasMetadata, HasMetadata> test) {
        return new EventFilter<>() {
            @Override
            public boolean update(HasMetadata oldObject, HasMetadata newObject) {
                return test.test(oldObject, newObject);
            }
        };
    }

    private static ObjectMeta meta(HasMetadata object) {
        ObjectMeta m = object.getMetadata();
        return m != null ? m : new ObjectMeta();
    }

    private static Map<String, String> orEmpty(Map<String, String> map) {
        return map != null ? map : Map.of();
    }
}
