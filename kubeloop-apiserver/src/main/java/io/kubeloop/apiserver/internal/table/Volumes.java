package io.kubeloop.apiserver.internal.table;

import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;

/** What the PersistentVolume and PersistentVolumeClaim printers share: kube's core/helper functions. */
final class Volumes {

    private Volumes() {}

    /** {@code GetAccessModesAsString}: RWO, ROX, RWX, RWOP in that order, each once. */
    static String accessModes(JsonNode modes) {
        List<String> present = new ArrayList<>();
        for (JsonNode m : modes) {
            present.add(Fields.text(m));
        }
        List<String> out = new ArrayList<>();
        String[][] table = {
            {"ReadWriteOnce", "RWO"}, {"ReadOnlyMany", "ROX"}, {"ReadWriteMany", "RWX"}, {"ReadWriteOncePod", "RWOP"}
        };
        for (String[] entry : table) {
            if (present.contains(entry[0])) {
                out.add(entry[1]);
            }
        }
        return String.join(",", out);
    }

    /**
     * {@code GetPersistentVolumeClass} / {@code GetPersistentVolumeClaimClass}: the beta annotation wins over
     * {@code spec.storageClassName}.
     */
    static String storageClass(JsonNode object) {
        JsonNode beta = object.path("metadata").path("annotations").get("volume.beta.kubernetes.io/storage-class");
        if (beta != null && beta.isString()) {
            return beta.asString();
        }
        return Fields.text(object.path("spec").get("storageClassName"));
    }

    /** A {@code storage} quantity as stored, or {@code 0} (the zero Quantity) when absent. */
    static String storage(JsonNode resources) {
        String value = Fields.text(resources.get("storage"));
        return value.isEmpty() ? "0" : value;
    }

    static String orUnset(JsonNode value) {
        return value != null && value.isString() ? value.asString() : "<unset>";
    }

    static boolean terminating(JsonNode object) {
        return !Fields.text(object.path("metadata").get("deletionTimestamp")).isEmpty();
    }
}
