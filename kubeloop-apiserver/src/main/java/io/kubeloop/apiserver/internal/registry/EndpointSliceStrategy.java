package io.kubeloop.apiserver.internal.registry;

import static io.kubeloop.apiserver.internal.registry.FieldChecks.notSupported;
import static io.kubeloop.apiserver.internal.registry.FieldChecks.required;

import io.kubeloop.model.Statuses.FieldError;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * discovery.k8s.io/v1 EndpointSlice: addressType is required (IPv4, IPv6 or FQDN) and immutable; every endpoint
 * has at least one address, as kube validates it.
 */
final class EndpointSliceStrategy implements ResourceStrategy {

    private static final List<String> ADDRESS_TYPES = List.of("FQDN", "IPv4", "IPv6");

    @Override
    public List<FieldError> validate(ObjectNode slice) {
        List<FieldError> errors = new ArrayList<>();
        JsonNode type = slice.get("addressType");
        if (type == null || FieldChecks.text(type).isEmpty()) {
            errors.add(required("addressType", ""));
        } else if (!ADDRESS_TYPES.contains(FieldChecks.text(type))) {
            errors.add(notSupported("addressType", type, ADDRESS_TYPES));
        }
        JsonNode endpoints = slice.path("endpoints");
        for (int i = 0; i < endpoints.size(); i++) {
            if (endpoints.get(i).path("addresses").isEmpty()) {
                errors.add(required("endpoints[" + i + "].addresses", "must contain at least 1 address"));
            }
        }
        return errors;
    }

    @Override
    public List<FieldError> validateUpdate(ObjectNode next, ObjectNode current) {
        List<FieldError> errors = new ArrayList<>(validate(next));
        FieldChecks.immutable(errors, "addressType", next.get("addressType"), current.get("addressType"));
        return errors;
    }
}
