package io.kubeloop.informer;

import io.fabric8.kubernetes.api.model.HasMetadata;
import java.util.Objects;
import java.util.function.UnaryOperator;

/**
 * Per-informer options of {@link SharedInformerFactory#informerFor(Class, InformerOptions)}: which objects to
 * cache and how. A {@link SharedInformerFactory} keeps one informer per resource type and set of these options.
 *
 * <pre>{@code
 * InformerOptions.builder().namespace("shop").labelSelector("app=web").transform(Transforms.stripManagedFields()).build()
 * }</pre>
 *
 * @param namespace the namespace to watch; null for the factory's (by default all namespaces); ignored for
 *     cluster-scoped types
 * @param labelSelector e.g. {@code app=web}; null or empty for none. Selectors are compared in their canonical
 *     form, so {@code b=2,a=1} and {@code a=1,b=2} share an informer
 * @param fieldSelector e.g. {@code spec.nodeName=node-1}; null or empty for none
 * @param transform null for the factory's; compared by identity, so pass the same instance (a constant, or
 *     {@link Transforms#stripManagedFields()}) to share an informer
 */
public record InformerOptions(
        String namespace, String labelSelector, String fieldSelector, UnaryOperator<HasMetadata> transform) {

    private static final InformerOptions DEFAULTS = new InformerOptions(null, null, null, null);

    public InformerOptions {
        if (namespace != null && namespace.isBlank()) {
            throw new IllegalArgumentException("namespace is blank; use null for all namespaces");
        }
    }

    /** The factory's namespace, no selectors, the factory's transform. */
    public static InformerOptions defaults() {
        return DEFAULTS;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Builds {@link InformerOptions}. */
    public static final class Builder {
        private String namespace;
        private String labelSelector;
        private String fieldSelector;
        private UnaryOperator<HasMetadata> transform;

        private Builder() {}

        public Builder namespace(String namespace) {
            this.namespace = namespace;
            return this;
        }

        public Builder labelSelector(String labelSelector) {
            this.labelSelector = labelSelector;
            return this;
        }

        public Builder fieldSelector(String fieldSelector) {
            this.fieldSelector = fieldSelector;
            return this;
        }

        public Builder transform(UnaryOperator<HasMetadata> transform) {
            this.transform = Objects.requireNonNull(transform, "transform");
            return this;
        }

        public InformerOptions build() {
            return new InformerOptions(namespace, labelSelector, fieldSelector, transform);
        }
    }
}
