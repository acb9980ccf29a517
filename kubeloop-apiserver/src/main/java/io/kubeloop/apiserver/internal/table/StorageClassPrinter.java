package io.kubeloop.apiserver.internal.table;

import java.time.Instant;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * StorageClasses (kube's {@code printStorageClass}): NAME ({@code (default)} appended for the default class),
 * PROVISIONER, RECLAIMPOLICY ({@code Delete}), VOLUMEBINDINGMODE ({@code Immediate}), ALLOWVOLUMEEXPANSION
 * ({@code false}), AGE.
 */
final class StorageClassPrinter implements Printer {

    private static final List<Column> COLUMNS = List.of(
            Column.NAME,
            Column.string("Provisioner", "provisioner indicates the type of the provisioner."),
            Column.string(
                    "ReclaimPolicy",
                    "reclaimPolicy controls the reclaimPolicy for dynamically provisioned PersistentVolumes of "
                            + "this storage class. Defaults to Delete."),
            Column.string(
                    "VolumeBindingMode",
                    "volumeBindingMode indicates how PersistentVolumeClaims should be provisioned and bound.  When "
                            + "unset, VolumeBindingImmediate is used. This field is only honored by servers that "
                            + "enable the VolumeScheduling feature."),
            Column.string(
                    "AllowVolumeExpansion",
                    "allowVolumeExpansion shows whether the storage class allow volume expand."),
            Column.AGE);

    @Override
    public List<Column> columns() {
        return COLUMNS;
    }

    @Override
    public Row row(ObjectNode storageClass, Instant now) {
        String name = Fields.text(storageClass.path("metadata").get("name"));
        if (isDefault(storageClass.path("metadata").path("annotations"))) {
            name += " (default)";
        }
        String reclaimPolicy = Fields.text(storageClass.get("reclaimPolicy"));
        String bindingMode = Fields.text(storageClass.get("volumeBindingMode"));
        return Row.of(
                name,
                Fields.text(storageClass.get("provisioner")),
                reclaimPolicy.isEmpty() ? "Delete" : reclaimPolicy,
                bindingMode.isEmpty() ? "Immediate" : bindingMode,
                Fields.bool(storageClass.get("allowVolumeExpansion")) ? "true" : "false",
                Ages.of(storageClass, now));
    }

    /** {@code storageutil.IsDefaultAnnotation}: the GA annotation or the beta one, "true". */
    private static boolean isDefault(JsonNode annotations) {
        return Fields.text(annotations.get("storageclass.kubernetes.io/is-default-class"))
                        .equals("true")
                || Fields.text(annotations.get("storageclass.beta.kubernetes.io/is-default-class"))
                        .equals("true");
    }
}
