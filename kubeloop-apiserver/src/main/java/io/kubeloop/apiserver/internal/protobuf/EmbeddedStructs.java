package io.kubeloop.apiserver.internal.protobuf;

import com.google.protobuf.Descriptors.FieldDescriptor;
import java.util.Set;

/**
 * Fields that are embedded Go structs tagged {@code json:",inline"}: protobuf gives them a field of their own
 * (named after the Go type), Go's JSON promotes their fields into the enclosing object. So
 * {@code Volume {name = 1; VolumeSource volumeSource = 2}} is the JSON {@code {"name": .., "configMap": ..}}.
 * A test fails on any message-typed field named like its type that is neither here nor known to be a plain field.
 */
final class EmbeddedStructs {

    private static final String CORE = "k8s.io.api.core.v1.";

    private static final Set<String> INLINE = Set.of(
            CORE + "Volume.volumeSource",
            CORE + "PersistentVolumeSpec.persistentVolumeSource",
            "k8s.io.api.networking.v1.IngressRule.ingressRuleValue",
            CORE + "Probe.handler",
            CORE + "EphemeralContainer.ephemeralContainerCommon",
            CORE + "ConfigMapEnvSource.localObjectReference",
            CORE + "ConfigMapKeySelector.localObjectReference",
            CORE + "ConfigMapProjection.localObjectReference",
            CORE + "ConfigMapVolumeSource.localObjectReference",
            CORE + "SecretEnvSource.localObjectReference",
            CORE + "SecretKeySelector.localObjectReference",
            CORE + "SecretProjection.localObjectReference");

    private EmbeddedStructs() {}

    static boolean isInline(FieldDescriptor field) {
        return INLINE.contains(field.getFullName());
    }

    /** The table, for the test that checks every entry names a real field. */
    static Set<String> all() {
        return INLINE;
    }
}
