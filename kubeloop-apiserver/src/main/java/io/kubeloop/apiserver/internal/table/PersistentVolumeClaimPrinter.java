package io.kubeloop.apiserver.internal.table;

import java.time.Instant;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * PersistentVolumeClaims (kube's {@code printPersistentVolumeClaim}): STATUS (phase, {@code Terminating}),
 * VOLUME, CAPACITY and ACCESS MODES (from status, only once bound to a volume), STORAGECLASS,
 * VOLUMEATTRIBUTESCLASS ({@code <unset>}), AGE; wide: VOLUMEMODE.
 */
final class PersistentVolumeClaimPrinter implements Printer {

    private static final List<Column> COLUMNS = List.of(
            Column.NAME,
            Column.string("Status", "phase represents the current phase of PersistentVolumeClaim."),
            Column.string("Volume", "volumeName is the binding reference to the PersistentVolume backing this claim."),
            Column.string("Capacity", "capacity represents the actual resources of the underlying volume."),
            Column.string(
                    "Access Modes",
                    "accessModes contains the actual access modes the volume backing the PVC has. More info: "
                            + "https://kubernetes.io/docs/concepts/storage/persistent-volumes#access-modes-1"),
            Column.string("StorageClass", "StorageClass of the pvc"),
            Column.string("VolumeAttributesClass", "VolumeAttributesClass of the pvc"),
            Column.AGE,
            Column.wide(
                    "VolumeMode",
                    "volumeMode defines what type of volume is required by the claim. Value of Filesystem is "
                            + "implied when not included in claim spec."));

    @Override
    public List<Column> columns() {
        return COLUMNS;
    }

    @Override
    public Row row(ObjectNode pvc, Instant now) {
        JsonNode spec = pvc.path("spec");
        JsonNode status = pvc.path("status");
        String phase = Volumes.terminating(pvc) ? "Terminating" : Fields.text(status.get("phase"));
        String volumeName = Fields.text(spec.get("volumeName"));
        String capacity = "";
        String accessModes = "";
        if (!volumeName.isEmpty()) {
            accessModes = Volumes.accessModes(status.path("accessModes"));
            capacity = Volumes.storage(status.path("capacity"));
        }
        return Row.of(
                Fields.text(pvc.path("metadata").get("name")),
                phase,
                volumeName,
                capacity,
                accessModes,
                Volumes.storageClass(pvc),
                Volumes.orUnset(spec.get("volumeAttributesClassName")),
                Ages.of(pvc, now),
                Volumes.orUnset(spec.get("volumeMode")));
    }
}
