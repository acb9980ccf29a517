package io.kubeloop.apiserver.internal.protobuf;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Descriptors.FileDescriptor;
import io.kubeloop.apiserver.internal.types.GoType;
import io.kubernetes.client.proto.V1;
import io.kubernetes.client.proto.V1Admissionregistration;
import io.kubernetes.client.proto.V1Apps;
import io.kubernetes.client.proto.V1Autoscaling;
import io.kubernetes.client.proto.V1Batch;
import io.kubernetes.client.proto.V1Certificates;
import io.kubernetes.client.proto.V1Networking;
import io.kubernetes.client.proto.V1Policy;
import io.kubernetes.client.proto.V1Rbac;
import io.kubernetes.client.proto.V1Scheduling;
import io.kubernetes.client.proto.V1Storage;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The Go types of the built-in kinds, read from the protobuf descriptors the codec uses ({@link Schemas}, and for a
 * kind it does not register, the client-java-proto file of its group and version, so that a kind added to the
 * server's registry is checked without a line here). Special messages ({@link SpecialMessage}) become the scalar
 * kinds Go's JSON gives them, inline embedded structs ({@link EmbeddedStructs}) lend their fields to the parent.
 *
 * <p>Go names: a message {@code k8s.io.api.core.v1.PodSpec} is {@code v1.PodSpec}; a map of quantities is
 * {@code v1.ResourceList}. What protobuf does not keep — Go's named string types such as {@code v1.RestartPolicy} —
 * is named by its underlying type ({@code string}).
 *
 * <p>Thread-safe: one lock guards the building; a kind's table is built once per JVM and then only read.
 */
public final class GoTypes {

    private static final Object LOCK = new Object();
    /** Every message type built so far, by full name (shared between kinds: ObjectMeta is built once). */
    private static final Map<String, GoType> MESSAGES = new HashMap<>();

    private static volatile Schemas schemas;

    private GoTypes() {}

    /** The Go type of a top-level object of this apiVersion and kind (TypeMeta included), if the schemas have it. */
    public static Optional<GoType> of(String apiVersion, String kind) {
        synchronized (LOCK) {
            if (schemas == null) {
                schemas = new Schemas();
            }
            Descriptor message = schemas.find(apiVersion, kind).orElseGet(() -> byPackage(apiVersion, kind));
            if (message == null) {
                return Optional.empty();
            }
            GoType top = GoType.struct(goName(message));
            // TypeMeta is embedded inline in every kind's struct (protobuf leaves it out): Go names the kind's struct
            top.addField("apiVersion", STRING, simpleName(message));
            top.addField("kind", STRING, simpleName(message));
            copyFields(message, top, simpleName(message));
            return Optional.of(top);
        }
    }

    private static final GoType STRING = GoType.scalar(GoType.Kind.STRING, "string");
    private static final GoType BOOL = GoType.scalar(GoType.Kind.BOOL, "bool");
    private static final GoType INT32 = GoType.scalar(GoType.Kind.INT32, "int32");
    private static final GoType INT64 = GoType.scalar(GoType.Kind.INT64, "int64");
    private static final GoType BYTES = GoType.scalar(GoType.Kind.BYTES, "[]uint8");

    private static Descriptor byPackage(String apiVersion, String kind) {
        int slash = apiVersion.indexOf('/');
        String group = slash < 0 ? "core" : apiVersion.substring(0, slash);
        String version = apiVersion.substring(slash + 1);
        int dot = group.indexOf('.');
        String pkg = "k8s.io.api." + (dot < 0 ? group : group.substring(0, dot)) + "." + version;
        for (FileDescriptor file : files()) {
            if (file.getPackage().equals(pkg)) {
                Descriptor message = file.findMessageTypeByName(kind);
                if (message != null) {
                    return message;
                }
            }
        }
        return null;
    }

    private static List<FileDescriptor> files() {
        return List.of(
                V1.getDescriptor(),
                V1Apps.getDescriptor(),
                V1Batch.getDescriptor(),
                V1Networking.getDescriptor(),
                V1Policy.getDescriptor(),
                V1Storage.getDescriptor(),
                V1Rbac.getDescriptor(),
                V1Autoscaling.getDescriptor(),
                V1Scheduling.getDescriptor(),
                V1Certificates.getDescriptor(),
                V1Admissionregistration.getDescriptor(),
                MissingSchemas.coordinationV1(),
                MissingSchemas.eventsV1());
    }

    /** The struct of a message (built once; a recursive type refers to the same instance). */
    private static GoType message(Descriptor message) {
        GoType built = MESSAGES.get(message.getFullName());
        if (built != null) {
            return built;
        }
        GoType struct = GoType.struct(goName(message));
        MESSAGES.put(message.getFullName(), struct);
        copyFields(message, struct, simpleName(message));
        return struct;
    }

    private static void copyFields(Descriptor message, GoType into, String struct) {
        for (FieldDescriptor field : message.getFields()) {
            if (EmbeddedStructs.isInline(field)) {
                // Go promotes the embedded struct's fields; errors name the enclosing struct
                copyFields(field.getMessageType(), into, struct);
                continue;
            }
            into.addField(GoJsonNames.of(field), fieldType(field), struct);
        }
    }

    private static GoType fieldType(FieldDescriptor field) {
        if (field.isMapField()) {
            GoType value = single(field.getMessageType().findFieldByNumber(2));
            return GoType.map(value, value.kind() == GoType.Kind.QUANTITY ? "v1.ResourceList" : null);
        }
        GoType single = single(field);
        return field.isRepeated() ? GoType.array(single) : single;
    }

    private static GoType single(FieldDescriptor field) {
        return switch (field.getType()) {
            case STRING -> STRING;
            case BOOL -> BOOL;
            case INT32 -> INT32;
            case INT64 -> INT64;
            case BYTES -> BYTES;
            case MESSAGE -> {
                Descriptor type = field.getMessageType();
                SpecialMessage special = SpecialMessage.of(type);
                yield special == null ? message(type) : special(special, type);
            }
            default -> throw new IllegalStateException("unmapped field type " + field.getFullName());
        };
    }

    private static GoType special(SpecialMessage special, Descriptor type) {
        return switch (special) {
            case TIME, MICRO_TIME -> GoType.scalar(GoType.Kind.TIME, goName(type));
            case DURATION -> GoType.scalar(GoType.Kind.DURATION, goName(type));
            case QUANTITY -> GoType.scalar(GoType.Kind.QUANTITY, "resource.Quantity");
            case INT_OR_STRING -> GoType.scalar(GoType.Kind.INT_OR_STRING, "intstr.IntOrString");
            case RAW_EXTENSION, FIELDS_V1 -> GoType.scalar(GoType.Kind.ANY, goName(type));
            case STRING_LIST -> GoType.array(STRING, goName(type));
        };
    }

    /** {@code k8s.io.api.core.v1.PodSpec} → {@code v1.PodSpec}. */
    private static String goName(Descriptor message) {
        String full = message.getFullName();
        int last = full.lastIndexOf('.');
        int previous = full.lastIndexOf('.', last - 1);
        return full.substring(previous + 1);
    }

    private static String simpleName(Descriptor message) {
        return message.getName();
    }
}
