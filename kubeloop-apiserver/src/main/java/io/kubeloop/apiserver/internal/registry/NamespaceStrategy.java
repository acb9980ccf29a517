package io.kubeloop.apiserver.internal.registry;

import io.kubeloop.model.Statuses.FieldError;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * kube's Namespace defaulting and validation: the {@code kubernetes.io/metadata.name} label always holds the name
 * ({@code SetDefaults_Namespace}), and {@code spec.finalizers} are qualified names, kube's own or domain-prefixed.
 * The {@code kubernetes} finalizer and {@code status.phase: Active} of a new namespace, and the lifecycle after, are
 * the server's namespace lifecycle's ({@code internal.lifecycle}).
 */
final class NamespaceStrategy implements ResourceStrategy {

    static final String NAME_LABEL = "kubernetes.io/metadata.name";

    @Override
    public void applyDefaults(ObjectNode object) {
        String name = object.path("metadata").path("name").asString("");
        if (name.isEmpty() || !(object.get("metadata") instanceof ObjectNode meta)) {
            return;
        }
        ObjectNode labels = meta.get("labels") instanceof ObjectNode l ? l : meta.putObject("labels");
        labels.put(NAME_LABEL, name);
    }

    @Override
    public List<FieldError> validate(ObjectNode object) {
        List<FieldError> errors = new ArrayList<>(0);
        for (JsonNode f : object.path("spec").path("finalizers")) {
            String finalizer = f.asString("");
            for (String message : ObjectMetaValidation.qualifiedNameErrors(finalizer)) {
                errors.add(ObjectMetaValidation.invalid("spec.finalizers", finalizer, message));
            }
            FieldError standard = ObjectMetaValidation.kubeFinalizerName(finalizer, "spec.finalizers");
            if (standard != null) {
                errors.add(standard);
            }
        }
        return errors;
    }
}
