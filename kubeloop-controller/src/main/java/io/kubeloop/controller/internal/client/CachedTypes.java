package io.kubeloop.controller.internal.client;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.client.resource.ResourceClient;
import io.kubeloop.clock.Clock;
import io.kubeloop.controller.ControllerClient;
import io.kubeloop.informer.InformerHealth;
import io.kubeloop.informer.InformerKey;
import io.kubeloop.informer.SharedIndexInformer;
import io.kubeloop.informer.SharedInformerFactory;
import io.kubeloop.model.ResourceType;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The informer behind each type the client reads: the manager's own (the one its controllers watch) when the
 * factory has it, else one the client asks the factory for and starts, once per type (logged at INFO), or an
 * exception when the manager fails on missing informers.
 *
 * <p>A read waits for the informer to sync, at most the manager's cache sync timeout, then fails naming the type
 * and the informer's last error (a forbidden list, say). After such a timeout, reads of that type fail at once
 * while the informer has still not synced (it keeps retrying in the background), so that a type that can never
 * sync does not hold every worker for the whole timeout on every read; once it syncs, reads succeed again.
 */
final class CachedTypes {

    private static final Logger log = LoggerFactory.getLogger(ControllerClient.class);

    private final KubernetesClient client;
    private final SharedInformerFactory factory;
    /** The manager's namespace; null: every namespace. */
    private final String namespace;

    private final Clock clock;
    private final Duration syncTimeout;
    private final boolean failOnMissingInformer;
    private final ConcurrentHashMap<Class<?>, Cached<?>> byType = new ConcurrentHashMap<>();

    CachedTypes(
            KubernetesClient client,
            SharedInformerFactory factory,
            String namespace,
            Clock clock,
            Duration syncTimeout,
            boolean failOnMissingInformer) {
        this.client = client;
        this.factory = factory;
        this.namespace = namespace;
        this.clock = clock;
        this.syncTimeout = syncTimeout;
        this.failOnMissingInformer = failOnMissingInformer;
    }

    /** One type's informer, and whether a read timed out waiting for it. */
    static final class Cached<T extends HasMetadata> {
        final Class<T> type;
        final ResourceType resource;
        final SharedIndexInformer<T> informer;
        /** Null: every namespace (or a cluster-scoped type). */
        final String namespace;
        /** Set when a read gave up waiting for the sync; reads then fail at once until the informer syncs. */
        volatile boolean gaveUp;

        Cached(Class<T> type, ResourceType resource, SharedIndexInformer<T> informer, String namespace) {
            this.type = type;
            this.resource = resource;
            this.informer = informer;
            this.namespace = namespace;
        }

        /** Whether the cache can hold objects of {@code objectNamespace} ("" for cluster-scoped). */
        boolean covers(String objectNamespace) {
            return namespace == null || !resource.namespaced() || namespace.equals(objectNamespace);
        }
    }

    /**
     * The type's informer if the client reads it or the manager's factory has it; null otherwise. Never creates or
     * starts an informer: for writes, whose read-your-own-writes bookkeeping needs a cache only if there is one.
     */
    @SuppressWarnings("unchecked")
    <T extends HasMetadata> Cached<T> ifPresent(Class<T> type) {
        Cached<T> cached = (Cached<T>) byType.get(type);
        if (cached != null || type == GenericKubernetesResource.class) {
            return cached;
        }
        SharedIndexInformer<T> existing = existing(type);
        if (existing == null) {
            return null;
        }
        return (Cached<T>) byType.computeIfAbsent(type, t -> cached(type, existing));
    }

    private <T extends HasMetadata> Cached<T> cached(Class<T> type, SharedIndexInformer<T> informer) {
        ResourceType resource = client.resources(type).type();
        return new Cached<>(type, resource, informer, resource.namespaced() ? namespace : null);
    }

    /**
     * The synced informer of {@code type}: found or started, then waited for.
     *
     * @throws IllegalStateException the type is not cached and the manager fails on missing informers; or its
     *     informer did not sync in time
     */
    <T extends HasMetadata> Cached<T> synced(Class<T> type) {
        Objects.requireNonNull(type, "type");
        @SuppressWarnings("unchecked")
        Cached<T> cached = (Cached<T>) byType.computeIfAbsent(type, t -> lookUp(type));
        awaitSynced(cached);
        return cached;
    }

    private <T extends HasMetadata> Cached<T> lookUp(Class<T> type) {
        if (type == GenericKubernetesResource.class) {
            throw new IllegalArgumentException("the client reads typed classes only; for GenericKubernetesResource "
                    + "read manager.informerFactory().genericInformerFor(apiVersion, kind)");
        }
        ResourceClient<T> resources = client.resources(type);
        ResourceType resource = resources.type();
        String ns = resource.namespaced() ? namespace : null;
        SharedIndexInformer<T> existing = existing(type);
        if (existing != null) {
            if (existing.health().state() == InformerHealth.State.NOT_STARTED) {
                factory.start(); // read before the manager started
            }
            return new Cached<>(type, resource, existing, ns);
        }
        String scope = ns != null
                ? "namespace " + ns
                : resource.namespaced() ? "every namespace (cluster-wide)" : "cluster-wide";
        if (failOnMissingInformer) {
            throw new IllegalStateException(type.getSimpleName() + " (" + resource.qualifiedName()
                    + ") is not cached: no controller watches it and the manager fails on missing informers "
                    + "(failOnMissingInformer). Watch it in a controller (owns/watches), or read it with apiReader()");
        }
        SharedIndexInformer<T> informer = factory.informerFor(type);
        factory.start();
        log.info(
                "client: {} ({}) is read but no controller watches it: started an informer for it; it is now cached "
                        + "for {}",
                type.getSimpleName(),
                resource.qualifiedName(),
                scope);
        return new Cached<>(type, resource, informer, ns);
    }

    /**
     * The factory's informer of {@code type} without selectors, the one the manager's controllers use; null when
     * there is none.
     */
    private <T extends HasMetadata> SharedIndexInformer<T> existing(Class<T> type) {
        for (Map.Entry<InformerKey, SharedIndexInformer<?>> e :
                factory.informers().entrySet()) {
            InformerKey key = e.getKey();
            if (key.objectType() == type
                    && key.labelSelector().isEmpty()
                    && key.fieldSelector().isEmpty()) {
                @SuppressWarnings("unchecked")
                SharedIndexInformer<T> informer = (SharedIndexInformer<T>) e.getValue();
                return informer;
            }
        }
        return null;
    }

    private void awaitSynced(Cached<?> cached) {
        SharedIndexInformer<?> informer = cached.informer;
        if (informer.hasSynced()) {
            cached.gaveUp = false;
            return;
        }
        if (cached.gaveUp) {
            throw notSynced(cached, "it did not sync within " + syncTimeout + " before and has not synced since");
        }
        if (!SharedIndexInformer.waitForCacheSync(clock, syncTimeout, informer::hasSynced)) {
            if (Thread.currentThread().isInterrupted()) {
                throw new IllegalStateException(
                        "interrupted while waiting for the cache of " + cached.type.getSimpleName() + " to sync");
            }
            cached.gaveUp = true;
            throw notSynced(cached, "timed out after " + syncTimeout);
        }
    }

    private static IllegalStateException notSynced(Cached<?> cached, String why) {
        InformerHealth health = cached.informer.health();
        return new IllegalStateException("the cache of " + cached.type.getSimpleName() + " ("
                + cached.resource.qualifiedName() + ") has not synced: " + why + "; informer "
                + health.name() + " is " + health.state()
                + (health.lastError() == null ? "" : ", last error: " + health.lastError()));
    }
}
