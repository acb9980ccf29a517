package io.kubeloop.apiserver.internal.protobuf;

import com.google.protobuf.Descriptors.FieldDescriptor;
import java.util.Map;

/**
 * The few fields whose protobuf name is not their JSON name: go-to-protobuf derives the protobuf name from the
 * Go field name, the JSON name comes from the json tag, and they differ where the Go name starts with an
 * initialism ({@code APIGroup} is {@code aPIGroup} in protobuf, {@code apiGroup} in JSON). Every other field's
 * protobuf name is its JSON name.
 */
final class GoJsonNames {

    private static final Map<String, String> RENAMED =
            Map.of("k8s.io.api.networking.v1.IngressClassParametersReference.aPIGroup", "apiGroup");

    private GoJsonNames() {}

    /** The JSON name of {@code field}. */
    static String of(FieldDescriptor field) {
        String renamed = RENAMED.get(field.getFullName());
        return renamed == null ? field.getName() : renamed;
    }

    /** The table, for the test that checks every entry names a real field. */
    static Map<String, String> all() {
        return RENAMED;
    }
}
