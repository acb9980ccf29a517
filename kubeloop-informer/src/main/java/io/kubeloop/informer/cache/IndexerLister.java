package io.kubeloop.informer.cache;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.kubeloop.model.selector.LabelSelector;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link Lister} over an {@link Indexer}: client-go's {@code ListAll}, {@code ListAllByNamespace} and generic
 * listers. Holds no state of its own besides whether it has warned about a missing namespace index.
 */
final class IndexerLister<T extends HasMetadata> implements Lister<T> {

    private static final Logger log = LoggerFactory.getLogger(Lister.class);

    private final Indexer<T> indexer;
    /** Set once the lister warned that it scans for lack of a namespace index, so the log is not flooded. */
    private final AtomicBoolean warnedNoNamespaceIndex = new AtomicBoolean();

    IndexerLister(Indexer<T> indexer) {
        this.indexer = Objects.requireNonNull(indexer, "indexer");
    }

    @Override
    public List<T> list() {
        return indexer.list();
    }

    @Override
    public List<T> list(LabelSelector selector) {
        Objects.requireNonNull(selector, "selector");
        return select(indexer.list(), selector);
    }

    @Override
    public Optional<T> get(String name) {
        Objects.requireNonNull(name, "name");
        return indexer.getByKey(name);
    }

    @Override
    public NamespaceLister<T> namespace(String namespace) {
        Objects.requireNonNull(namespace, "namespace (use \"\" for all namespaces)");
        return new Namespaced(namespace);
    }

    @Override
    public List<T> byIndex(String indexName, String value) {
        return indexer.byIndex(indexName, value);
    }

    /** {@code objects} filtered by {@code selector}; labels are not read when it selects everything. */
    private static <T extends HasMetadata> List<T> select(List<T> objects, LabelSelector selector) {
        if (selector.isEverything()) {
            return objects;
        }
        List<T> out = new ArrayList<>();
        for (T object : objects) {
            ObjectMeta metadata = object.getMetadata();
            if (selector.matches(metadata == null ? null : metadata.getLabels())) {
                out.add(object);
            }
        }
        return out;
    }

    /** The objects of {@code namespace}, through the namespace index when the indexer has one. */
    private List<T> inNamespace(String namespace) {
        if (namespace.isEmpty()) {
            return indexer.list();
        }
        if (indexer.indexers().containsKey(Indexers.NAMESPACE_INDEX)) {
            return indexer.byIndex(Indexers.NAMESPACE_INDEX, namespace);
        }
        if (warnedNoNamespaceIndex.compareAndSet(false, true)) {
            log.warn(
                    "listing namespace {} by scanning every object: the indexer has no \"{}\" index",
                    namespace,
                    Indexers.NAMESPACE_INDEX);
        }
        List<T> out = new ArrayList<>();
        for (T object : indexer.list()) {
            ObjectMeta metadata = object.getMetadata();
            if (metadata != null && namespace.equals(metadata.getNamespace())) {
                out.add(object);
            }
        }
        return out;
    }

    private final class Namespaced implements NamespaceLister<T> {
        private final String namespace;

        Namespaced(String namespace) {
            this.namespace = namespace;
        }

        @Override
        public String namespace() {
            return namespace;
        }

        @Override
        public List<T> list() {
            return inNamespace(namespace);
        }

        @Override
        public List<T> list(LabelSelector selector) {
            Objects.requireNonNull(selector, "selector");
            return select(inNamespace(namespace), selector);
        }

        @Override
        public Optional<T> get(String name) {
            Objects.requireNonNull(name, "name");
            if (namespace.isEmpty()) {
                throw new IllegalStateException("get(\"" + name + "\") on the all-namespaces lister: name the "
                        + "namespace with Lister.namespace(ns), or use Lister.get(name) for a cluster-scoped object");
            }
            return indexer.getByKey(namespace + "/" + name);
        }

        @Override
        public String toString() {
            return "NamespaceLister[" + (namespace.isEmpty() ? "all namespaces" : namespace) + "]";
        }
    }
}
