package io.kubeloop.apiserver.internal.protobuf;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Descriptors.FileDescriptor;
import io.kubernetes.client.proto.Meta;
import io.kubernetes.client.proto.V1;
import io.kubernetes.client.proto.V1Apps;
import io.kubernetes.client.proto.V1Authentication;
import io.kubernetes.client.proto.V1Authorization;
import io.kubernetes.client.proto.V1Autoscaling;
import io.kubernetes.client.proto.V1Batch;
import io.kubernetes.client.proto.V1Networking;
import io.kubernetes.client.proto.V1Policy;
import io.kubernetes.client.proto.V1Rbac;
import io.kubernetes.client.proto.V1Storage;
import io.kubernetes.client.proto.V2beta2Autoscaling;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Which protobuf message holds each supported apiVersion and kind: the server's built-in kinds and their lists,
 * the review kinds, autoscaling/v1 Scale, the v1 Binding of {@code pods/binding}, and the meta/v1 kinds a client sends or receives (Status,
 * DeleteOptions, WatchEvent). Descriptors come from client-java-proto's generated files, plus
 * {@link MissingSchemas} for the kinds it lacks. CustomResourceDefinitions (apiextensions.k8s.io) are not here:
 * kube-apiserver speaks protobuf for them, but client-java-proto has only their v1beta1 schema.
 *
 * <p>Invariant: every message reachable from a supported kind has only field types the codec maps (string,
 * bytes, bool, int32, int64, embedded messages, maps with string keys); the constructor checks it, so a
 * schema the codec cannot handle fails at startup instead of on a request.
 */
final class Schemas {

    /** meta/v1 kinds that Go registers in every group version (metav1.AddToGroupVersion), plus meta.k8s.io/v1. */
    private static final Set<String> OPTIONS_KINDS = Set.of("DeleteOptions", "WatchEvent");

    private final Map<String, Descriptor> byKey = new LinkedHashMap<>();
    private final Map<String, Descriptor> optionsKinds = new HashMap<>();

    Schemas() {
        FileDescriptor core = V1.getDescriptor();
        register(
                "v1",
                core,
                List.of(
                        "Namespace",
                        "Pod",
                        "Node",
                        "Service",
                        "Endpoints",
                        "ConfigMap",
                        "Secret",
                        "ServiceAccount",
                        "Event",
                        "PersistentVolume",
                        "PersistentVolumeClaim"),
                true);
        register(
                "apps/v1",
                V1Apps.getDescriptor(),
                List.of("Deployment", "ReplicaSet", "StatefulSet", "DaemonSet"),
                true);
        register(
                "rbac.authorization.k8s.io/v1",
                V1Rbac.getDescriptor(),
                List.of("Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding"),
                true);
        register("coordination.k8s.io/v1", MissingSchemas.coordinationV1(), List.of("Lease"), true);
        register("batch/v1", V1Batch.getDescriptor(), List.of("Job", "CronJob"), true);
        register(
                "networking.k8s.io/v1",
                V1Networking.getDescriptor(),
                List.of("Ingress", "IngressClass", "NetworkPolicy"),
                true);
        register("policy/v1", V1Policy.getDescriptor(), List.of("PodDisruptionBudget"), true);
        register("policy/v1", V1Policy.getDescriptor(), List.of("Eviction"), false);
        register("storage.k8s.io/v1", V1Storage.getDescriptor(), List.of("StorageClass"), true);
        // client-java-proto has no autoscaling/v2 file; v2 was promoted from v2beta2 unchanged on the wire (same
        // messages, same field numbers), and the type's name never travels: the envelope carries autoscaling/v2.
        register("autoscaling/v2", V2beta2Autoscaling.getDescriptor(), List.of("HorizontalPodAutoscaler"), true);
        register("discovery.k8s.io/v1", MissingSchemas.discoveryV1(), List.of("EndpointSlice"), true);
        register("events.k8s.io/v1", MissingSchemas.eventsV1(), List.of("Event"), true);
        register(
                "authorization.k8s.io/v1",
                V1Authorization.getDescriptor(),
                List.of(
                        "SelfSubjectAccessReview",
                        "SubjectAccessReview",
                        "SelfSubjectRulesReview",
                        "LocalSubjectAccessReview"),
                false);
        register(
                "authentication.k8s.io/v1",
                V1Authentication.getDescriptor(),
                List.of("SelfSubjectReview", "TokenReview"),
                false);
        register("autoscaling/v1", V1Autoscaling.getDescriptor(), List.of("Scale"), false);
        register("v1", core, List.of("Binding"), false); // POSTed to pods/binding by schedulers
        register("v1", Meta.getDescriptor(), List.of("Status"), false);
        // Metadata-only answers (Accept ...;as=PartialObjectMetadata[List];g=meta.k8s.io), as client-go's metadata
        // client asks for them in protobuf first; v1beta1's messages are v1's.
        for (String metaVersion : List.of("meta.k8s.io/v1", "meta.k8s.io/v1beta1")) {
            register(
                    metaVersion,
                    Meta.getDescriptor(),
                    List.of("PartialObjectMetadata", "PartialObjectMetadataList"),
                    false);
        }
        for (String kind : OPTIONS_KINDS) {
            optionsKinds.put(kind, Meta.getDescriptor().findMessageTypeByName(kind));
        }
        checkFieldTypes();
    }

    /** The message of this apiVersion and kind, if supported. */
    Optional<Descriptor> find(String apiVersion, String kind) {
        Descriptor type = byKey.get(apiVersion + "\n" + kind);
        if (type == null && OPTIONS_KINDS.contains(kind) && isKnownGroupVersion(apiVersion)) {
            type = optionsKinds.get(kind);
        }
        return Optional.ofNullable(type);
    }

    /** Every message type reachable from a supported kind. */
    Collection<Descriptor> reachable() {
        Map<String, Descriptor> seen = new LinkedHashMap<>();
        Deque<Descriptor> queue = new ArrayDeque<>(byKey.values());
        queue.addAll(optionsKinds.values());
        while (!queue.isEmpty()) {
            Descriptor type = queue.poll();
            if (seen.putIfAbsent(type.getFullName(), type) == null) {
                for (FieldDescriptor field : type.getFields()) {
                    if (field.getJavaType() == FieldDescriptor.JavaType.MESSAGE) {
                        queue.add(field.getMessageType());
                    }
                }
            }
        }
        return seen.values();
    }

    private boolean isKnownGroupVersion(String apiVersion) {
        if (apiVersion.equals("meta.k8s.io/v1")) {
            return true;
        }
        String prefix = apiVersion + "\n";
        return byKey.keySet().stream().anyMatch(key -> key.startsWith(prefix));
    }

    private void register(String apiVersion, FileDescriptor file, List<String> kinds, boolean withLists) {
        for (String kind : kinds) {
            put(apiVersion, kind, file);
            if (withLists) {
                put(apiVersion, kind + "List", file);
            }
        }
    }

    private void put(String apiVersion, String kind, FileDescriptor file) {
        Descriptor type = file.findMessageTypeByName(kind);
        if (type == null) {
            throw new IllegalStateException(file.getName() + " has no message " + kind);
        }
        byKey.put(apiVersion + "\n" + kind, type);
    }

    private void checkFieldTypes() {
        Set<FieldDescriptor.Type> mapped = Set.of(
                FieldDescriptor.Type.STRING,
                FieldDescriptor.Type.BYTES,
                FieldDescriptor.Type.BOOL,
                FieldDescriptor.Type.INT32,
                FieldDescriptor.Type.INT64,
                FieldDescriptor.Type.MESSAGE);
        Set<String> unmapped = new HashSet<>();
        for (Descriptor type : reachable()) {
            for (FieldDescriptor field : type.getFields()) {
                if (!mapped.contains(field.getType())) {
                    unmapped.add(field.getFullName() + " (" + field.getType() + ")");
                }
                if (field.isMapField()
                        && field.getMessageType().findFieldByNumber(1).getType() != FieldDescriptor.Type.STRING) {
                    unmapped.add(field.getFullName() + " (a map whose keys are not strings)");
                }
            }
        }
        if (!unmapped.isEmpty()) {
            throw new IllegalStateException("protobuf fields of types the codec does not map: " + unmapped);
        }
    }
}
