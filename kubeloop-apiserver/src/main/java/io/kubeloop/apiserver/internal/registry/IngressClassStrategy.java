package io.kubeloop.apiserver.internal.registry;

import static io.kubeloop.apiserver.internal.registry.FieldChecks.required;

import io.kubeloop.model.Statuses.FieldError;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.node.ObjectNode;

/** networking.k8s.io/v1 IngressClass: a controller is required and immutable, as kube validates it. */
final class IngressClassStrategy implements ResourceStrategy {

    @Override
    public List<FieldError> validate(ObjectNode ingressClass) {
        List<FieldError> errors = new ArrayList<>();
        if (FieldChecks.text(ingressClass.path("spec").get("controller")).isEmpty()) {
            errors.add(required("spec.controller", ""));
        }
        return errors;
    }

    @Override
    public List<FieldError> validateUpdate(ObjectNode next, ObjectNode current) {
        List<FieldError> errors = new ArrayList<>(validate(next));
        FieldChecks.immutable(
                errors,
                "spec.controller",
                next.path("spec").get("controller"),
                current.path("spec").get("controller"));
        return errors;
    }
}
