package io.kubeloop.controller.internal.client;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.kubeloop.client.codec.Decoding;
import io.kubeloop.model.ResourceRegistry;
import io.kubeloop.model.ResourceType;
import io.kubeloop.model.selector.FieldSelector;
import io.kubeloop.model.selector.SelectableFields;
import io.kubeloop.model.selector.SelectorParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import tools.jackson.databind.JsonNode;

/**
 * Field selectors evaluated on cached objects with the API server's rules: a built-in type accepts the fields
 * kube-apiserver accepts for it (pods: {@code spec.nodeName}, {@code status.phase}, ...; see
 * {@code SelectableFields}), with the same values; a custom resource accepts {@code metadata.name} and
 * {@code metadata.namespace} (its CRD's {@code selectableFields} are not known to the client: index such fields and
 * use {@code listByIndex}). {@code metadata.*} is read from the object directly; other fields from its JSON tree,
 * made only when needed.
 */
final class FieldSelectors {

    private static final ResourceRegistry BUILT_IN = ResourceRegistry.builtIn();
    private static final String NAME = "metadata.name";
    private static final String NAMESPACE = "metadata.namespace";

    private FieldSelectors() {}

    /**
     * {@code selector} checked and converted for {@code type}.
     *
     * @throws IllegalArgumentException a field the type cannot be selected by, with the server's message
     */
    static FieldSelector convert(ResourceType type, FieldSelector selector) {
        if (selector.isEverything()) {
            return selector;
        }
        try {
            return builtIn(type)
                    ? SelectableFields.convert(type.plural(), type.group(), selector)
                    : SelectableFields.convert(type.namespaced(), Set.of(), selector);
        } catch (SelectorParseException e) {
            throw new IllegalArgumentException(
                    "field selector \"" + selector + "\" on the cache of " + type.qualifiedName() + ": "
                            + e.getMessage()
                            + (builtIn(type)
                                    ? ""
                                    : " (the cache selects custom resources by metadata.name and metadata.namespace"
                                            + " only: add an index for other fields and use listByIndex)"),
                    e);
        }
    }

    /** The objects {@code selector} (converted by {@link #convert}) matches. */
    static <T extends HasMetadata> List<T> select(ResourceType type, FieldSelector selector, List<T> objects) {
        if (selector.isEverything()) {
            return objects;
        }
        List<T> out = new ArrayList<>();
        for (T object : objects) {
            if (matches(type, selector, object)) {
                out.add(object);
            }
        }
        return out;
    }

    private static boolean matches(ResourceType type, FieldSelector selector, HasMetadata object) {
        ObjectMeta meta = object.getMetadata();
        JsonNode[] tree = {null};
        return selector.matches(field -> switch (field) {
            case NAME -> meta == null ? null : meta.getName();
            case NAMESPACE -> meta == null ? null : meta.getNamespace();
            default -> {
                if (tree[0] == null) {
                    tree[0] = Decoding.standard().mapper().valueToTree(object);
                }
                yield SelectableFields.valueOf(type.plural(), type.group(), tree[0], field);
            }
        });
    }

    private static boolean builtIn(ResourceType type) {
        return BUILT_IN.byResource(type.gvr()).isPresent();
    }
}
