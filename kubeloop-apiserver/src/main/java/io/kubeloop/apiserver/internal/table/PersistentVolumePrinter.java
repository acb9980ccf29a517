package io.kubeloop.apiserver.internal.table;

import java.time.Instant;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * PersistentVolumes (kube's {@code printPersistentVolume}): CAPACITY, ACCESS MODES ({@code RWO,ROX}), RECLAIM
 * POLICY, STATUS (phase, {@code Terminating} when deleted), CLAIM ({@code namespace/name}), STORAGECLASS,
 * VOLUMEATTRIBUTESCLASS ({@code <unset>}), REASON, AGE; wide: VOLUMEMODE.
 */
final class PersistentVolumePrinter implements Printer {

    private static final List<Column> COLUMNS = List.of(
            Column.NAME,
            Column.string(
                    "Capacity",
                    "capacity is the description of the persistent volume's resources and capacity. More info: "
                            + "https://kubernetes.io/docs/concepts/storage/persistent-volumes#capacity"),
            Column.string(
                    "Access Modes",
                    "accessModes contains all ways the volume can be mounted. More info: "
                            + "https://kubernetes.io/docs/concepts/storage/persistent-volumes#access-modes"),
            Column.string(
                    "Reclaim Policy",
                    "persistentVolumeReclaimPolicy defines what happens to a persistent volume when released from "
                            + "its claim. Valid options are Retain (default for manually created "
                            + "PersistentVolumes), Delete (default for dynamically provisioned PersistentVolumes), "
                            + "and Recycle (deprecated). Recycle must be supported by the volume plugin underlying "
                            + "this PersistentVolume. More info: "
                            + "https://kubernetes.io/docs/concepts/storage/persistent-volumes#reclaiming"),
            Column.string(
                    "Status",
                    "phase indicates if a volume is available, bound to a claim, or released by a claim. More "
                            + "info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#phase"),
            Column.string(
                    "Claim",
                    "claimRef is part of a bi-directional binding between PersistentVolume and "
                            + "PersistentVolumeClaim. Expected to be non-nil when bound. claim.VolumeName is the "
                            + "authoritative bind between PV and PVC. More info: "
                            + "https://kubernetes.io/docs/concepts/storage/persistent-volumes#binding"),
            Column.string("StorageClass", "StorageClass of the pv"),
            Column.string("VolumeAttributesClass", "VolumeAttributesClass of the pv"),
            Column.string(
                    "Reason",
                    "reason is a brief CamelCase string that describes any failure and is meant for machine "
                            + "parsing and tidy display in the CLI."),
            Column.AGE,
            Column.wide(
                    "VolumeMode",
                    "volumeMode defines if a volume is intended to be used with a formatted filesystem or to "
                            + "remain in raw block state. Value of Filesystem is implied when not included in spec."));

    @Override
    public List<Column> columns() {
        return COLUMNS;
    }

    @Override
    public Row row(ObjectNode pv, Instant now) {
        JsonNode spec = pv.path("spec");
        JsonNode status = pv.path("status");
        String claim = "";
        if (Fields.isSet(spec.get("claimRef"))) {
            claim = Fields.text(spec.path("claimRef").get("namespace")) + "/"
                    + Fields.text(spec.path("claimRef").get("name"));
        }
        String phase = Volumes.terminating(pv) ? "Terminating" : Fields.text(status.get("phase"));
        return Row.of(
                Fields.text(pv.path("metadata").get("name")),
                Volumes.storage(spec.path("capacity")),
                Volumes.accessModes(spec.path("accessModes")),
                Fields.text(spec.get("persistentVolumeReclaimPolicy")),
                phase,
                claim,
                Volumes.storageClass(pv),
                Volumes.orUnset(spec.get("volumeAttributesClassName")),
                Fields.text(status.get("reason")),
                Ages.of(pv, now),
                Volumes.orUnset(spec.get("volumeMode")));
    }
}
