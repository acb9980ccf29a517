package io.kubeloop.apiserver.internal.registry;

import static io.kubeloop.apiserver.internal.registry.FieldChecks.forbidden;
import static io.kubeloop.apiserver.internal.registry.FieldChecks.invalid;
import static io.kubeloop.apiserver.internal.registry.FieldChecks.notSupported;
import static io.kubeloop.apiserver.internal.registry.FieldChecks.required;

import io.kubeloop.model.Statuses.FieldError;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Core v1 PersistentVolumeClaim, as kube's {@code ValidatePersistentVolumeClaim(Update)} and strategy: access
 * modes and {@code resources.requests.storage} (greater than zero) are required, volumeMode defaults to
 * Filesystem, a new claim is Pending. After creation the spec is immutable except {@code volumeName} (set once),
 * and, for a Bound claim, {@code resources.requests} (growing only) and {@code volumeAttributesClassName}.
 */
final class PersistentVolumeClaimStrategy implements ResourceStrategy {

    static final List<String> ACCESS_MODES =
            List.of("ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod");

    @Override
    public void applyDefaults(ObjectNode pvc) {
        ObjectNode spec = JobStrategy.object(pvc, "spec");
        if (!spec.has("volumeMode")) {
            spec.put("volumeMode", "Filesystem");
        }
    }

    @Override
    public void prepareForCreate(ObjectNode pvc) {
        pvc.putObject("status").put("phase", "Pending");
    }

    @Override
    public List<FieldError> validate(ObjectNode pvc) {
        List<FieldError> errors = new ArrayList<>();
        JsonNode spec = pvc.path("spec");
        accessModes(errors, spec.path("accessModes"), "spec.accessModes");
        JsonNode storage = spec.path("resources").path("requests").get("storage");
        if (storage == null || storage.isNull()) {
            errors.add(required("spec.resources[storage]", ""));
        } else {
            BigDecimal size = FieldChecks.quantity(FieldChecks.text(storage));
            if (size != null && size.signum() <= 0) {
                errors.add(invalid("spec.resources[storage]", storage, "must be greater than zero"));
            }
        }
        volumeMode(errors, spec.get("volumeMode"), "spec.volumeMode");
        return errors;
    }

    static void accessModes(List<FieldError> errors, JsonNode modes, String path) {
        if (modes.isEmpty()) {
            errors.add(required(path, "at least 1 access mode is required"));
        }
        boolean readWriteOncePod = false;
        for (JsonNode mode : modes) {
            if (!ACCESS_MODES.contains(FieldChecks.text(mode))) {
                errors.add(notSupported(path, mode, ACCESS_MODES));
            }
            readWriteOncePod |= FieldChecks.text(mode).equals("ReadWriteOncePod");
        }
        if (readWriteOncePod && modes.size() > 1) {
            errors.add(forbidden(path, "may not use ReadWriteOncePod with other access modes"));
        }
    }

    static void volumeMode(List<FieldError> errors, JsonNode mode, String path) {
        if (mode != null && mode.isString() && !List.of("Block", "Filesystem").contains(mode.asString())) {
            errors.add(notSupported(path, mode, List.of("Block", "Filesystem")));
        }
    }

    @Override
    public List<FieldError> validateUpdate(ObjectNode next, ObjectNode current) {
        List<FieldError> errors = new ArrayList<>(validate(next));
        ObjectNode newSpec = ((ObjectNode) next.path("spec")).deepCopy();
        ObjectNode oldSpec =
                current.path("spec").isObject() ? ((ObjectNode) current.get("spec")).deepCopy() : next.objectNode();
        if (FieldChecks.text(oldSpec.get("volumeName")).isEmpty()) {
            copy(newSpec, oldSpec, "volumeName"); // set once, by the binder
        }
        boolean bound = FieldChecks.text(current.path("status").get("phase")).equals("Bound");
        if (bound) {
            copy(oldSpec, newSpec, "resources");
            copy(oldSpec, newSpec, "volumeAttributesClassName");
        }
        if (!FieldChecks.same(newSpec, oldSpec)) {
            errors.add(forbidden(
                    "spec",
                    "spec is immutable after creation except resources.requests and volumeAttributesClassName "
                            + "for bound claims"));
        }
        BigDecimal oldSize = size(current);
        BigDecimal newSize = size(next);
        if (oldSize != null && newSize != null && newSize.compareTo(oldSize) < 0) {
            errors.add(forbidden("spec.resources.requests.storage", "field can not be less than previous value"));
        }
        return errors;
    }

    /** {@code to.field = from.field} (absent stays absent). */
    private static void copy(ObjectNode from, ObjectNode to, String field) {
        if (from.has(field)) {
            to.set(field, from.get(field).deepCopy());
        } else {
            to.remove(field);
        }
    }

    private static BigDecimal size(ObjectNode pvc) {
        return FieldChecks.quantity(FieldChecks.text(
                pvc.path("spec").path("resources").path("requests").get("storage")));
    }
}
