package io.kubeloop.informer.cache;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.kubeloop.model.selector.LabelSelector;
import java.util.List;
import java.util.Optional;

/**
 * Reads an informer's cache by name, label selector, namespace and index (client-go's listers). Every object
 * returned is the cache's own instance, shared with every other reader: copy it before changing it.
 *
 * <pre>{@code
 * Lister<Pod> pods = Lister.of(informer.getIndexer());
 * Optional<Pod> web = pods.namespace("default").get("web-0");
 * List<Pod> frontends = pods.namespace("default").list(LabelSelector.parse("tier=frontend"));
 * List<Node> nodes = Lister.of(nodeInformer.getIndexer()).list();
 * }</pre>
 *
 * <p>Lists are snapshots in no particular order. {@link LabelSelector#nothing()} selects nothing;
 * {@link LabelSelector#everything()} selects every object without looking at labels.
 *
 * @param <T> the object type
 */
public interface Lister<T extends HasMetadata> {

    /** A lister over {@code indexer}; namespace listers use its {@value Indexers#NAMESPACE_INDEX} index if any. */
    static <T extends HasMetadata> Lister<T> of(Indexer<T> indexer) {
        return new IndexerLister<>(indexer);
    }

    /** Every object. */
    List<T> list();

    /** The objects whose labels {@code selector} matches. */
    List<T> list(LabelSelector selector);

    /** The cluster-scoped object named {@code name} (key {@code name}). */
    Optional<T> get(String name);

    /**
     * A lister of one namespace; {@code ""} stands for all namespaces (client-go's {@code NamespaceAll}), whose
     * lister lists but cannot get by name.
     */
    NamespaceLister<T> namespace(String namespace);

    /**
     * The objects stored under {@code value} in index {@code indexName}.
     *
     * @throws IllegalArgumentException {@code Index with name <name> does not exist}
     */
    List<T> byIndex(String indexName, String value);
}
