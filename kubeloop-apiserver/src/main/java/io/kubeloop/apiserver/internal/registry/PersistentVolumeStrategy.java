package io.kubeloop.apiserver.internal.registry;

import static io.kubeloop.apiserver.internal.registry.FieldChecks.forbidden;
import static io.kubeloop.apiserver.internal.registry.FieldChecks.notSupported;
import static io.kubeloop.apiserver.internal.registry.FieldChecks.required;

import io.kubeloop.model.Statuses.FieldError;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Core v1 PersistentVolume, as kube's {@code SetDefaults_PersistentVolume}, strategy and
 * {@code ValidatePersistentVolume(Update)}: persistentVolumeReclaimPolicy Retain and volumeMode Filesystem by
 * default, a new volume is Pending; access modes, a {@code storage} capacity (and nothing else) and exactly one
 * volume source are required; the volume source is immutable.
 */
final class PersistentVolumeStrategy implements ResourceStrategy {

    /** The volume sources of {@code PersistentVolumeSource}, inlined into the spec. */
    private static final List<String> SOURCES = List.of(
            "gcePersistentDisk",
            "awsElasticBlockStore",
            "hostPath",
            "glusterfs",
            "nfs",
            "rbd",
            "iscsi",
            "cinder",
            "cephfs",
            "fc",
            "flocker",
            "flexVolume",
            "azureFile",
            "vsphereVolume",
            "quobyte",
            "azureDisk",
            "photonPersistentDisk",
            "portworxVolume",
            "scaleIO",
            "local",
            "storageos",
            "csi");

    @Override
    public void applyDefaults(ObjectNode pv) {
        ObjectNode spec = JobStrategy.object(pv, "spec");
        if (!spec.has("persistentVolumeReclaimPolicy")) {
            spec.put("persistentVolumeReclaimPolicy", "Retain");
        }
        if (!spec.has("volumeMode")) {
            spec.put("volumeMode", "Filesystem");
        }
    }

    @Override
    public void prepareForCreate(ObjectNode pv) {
        pv.putObject("status").put("phase", "Pending");
    }

    @Override
    public List<FieldError> validate(ObjectNode pv) {
        List<FieldError> errors = new ArrayList<>();
        JsonNode spec = pv.path("spec");
        PersistentVolumeClaimStrategy.accessModes(errors, spec.path("accessModes"), "spec.accessModes");
        JsonNode capacity = spec.path("capacity");
        if (capacity.isEmpty()) {
            errors.add(required("spec.capacity", ""));
        }
        if (!capacity.has("storage") || capacity.size() > 1) {
            errors.add(new FieldError(
                    "Unsupported value", "spec.capacity", capacity.toString() + ": supported values: \"storage\""));
        }
        JsonNode policy = spec.get("persistentVolumeReclaimPolicy");
        if (policy != null && !List.of("Delete", "Recycle", "Retain").contains(FieldChecks.text(policy))) {
            errors.add(
                    notSupported("spec.persistentVolumeReclaimPolicy", policy, List.of("Delete", "Recycle", "Retain")));
        }
        PersistentVolumeClaimStrategy.volumeMode(errors, spec.get("volumeMode"), "spec.volumeMode");
        int sources = 0;
        for (String source : SOURCES) {
            if (spec.has(source) && !spec.get(source).isNull()) {
                if (++sources > 1) {
                    errors.add(forbidden("spec." + source, "may not specify more than 1 volume type"));
                }
            }
        }
        if (sources == 0) {
            errors.add(required("spec", "must specify a volume type"));
        }
        return errors;
    }

    @Override
    public List<FieldError> validateUpdate(ObjectNode next, ObjectNode current) {
        List<FieldError> errors = new ArrayList<>(validate(next));
        for (String source : SOURCES) {
            if (!FieldChecks.same(
                    next.path("spec").get(source), current.path("spec").get(source))) {
                errors.add(forbidden(
                        "spec.persistentvolumesource", "spec.persistentvolumesource is immutable after creation"));
                break;
            }
        }
        FieldChecks.immutable(
                errors,
                "volumeMode",
                next.path("spec").get("volumeMode"),
                current.path("spec").get("volumeMode"));
        return errors;
    }
}
