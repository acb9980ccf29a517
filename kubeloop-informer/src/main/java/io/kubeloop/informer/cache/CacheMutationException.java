package io.kubeloop.informer.cache;

import java.util.List;

/**
 * A cached object was changed after it was stored: the cache mutation detector found it
 * ({@link CacheMutationDetector}). The message names each object (kind, namespace/name, resourceVersion) and shows
 * a bounded excerpt of what changed.
 *
 * <p>Cached objects are shared with the informer's indexes and every handler; changing one corrupts the cache
 * and what every other reader sees. Copy an object before changing it (for example with its fabric8 builder,
 * {@code new PodBuilder(pod).build()}).
 */
public final class CacheMutationException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final transient List<String> objects; // not serialized: an immutable List need not be Serializable

    CacheMutationException(List<MutationDetector.Mutation> mutations) {
        super(message(mutations));
        this.objects = mutations.stream().map(MutationDetector.Mutation::object).toList();
    }

    /** The mutated objects, each as {@code Kind namespace/name (resourceVersion N)}. */
    public List<String> objects() {
        return objects;
    }

    private static String message(List<MutationDetector.Mutation> mutations) {
        String advice = "Cached objects are shared with the cache's indexes and every handler and must never be "
                + "mutated: copy an object before changing it.";
        if (mutations.size() == 1) {
            return "cached object mutated: " + mutations.get(0).describe() + ". " + advice;
        }
        StringBuilder b = new StringBuilder(mutations.size() + " cached objects mutated:");
        int shown = 0;
        for (MutationDetector.Mutation m : mutations) {
            if (shown++ == 10) {
                b.append("\n  - ... and ").append(mutations.size() - 10).append(" more");
                break;
            }
            b.append("\n  - ").append(m.describe());
        }
        return b.append("\n").append(advice).toString();
    }
}
