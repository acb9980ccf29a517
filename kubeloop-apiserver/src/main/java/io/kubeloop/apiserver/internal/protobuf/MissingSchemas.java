package io.kubeloop.apiserver.internal.protobuf;

import com.google.protobuf.DescriptorProtos.DescriptorProto;
import com.google.protobuf.DescriptorProtos.FieldDescriptorProto;
import com.google.protobuf.DescriptorProtos.FieldDescriptorProto.Label;
import com.google.protobuf.DescriptorProtos.FieldDescriptorProto.Type;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.Descriptors.DescriptorValidationException;
import com.google.protobuf.Descriptors.FileDescriptor;
import io.kubernetes.client.proto.Meta;
import io.kubernetes.client.proto.V1;

/**
 * Descriptors of the served kinds that client-java-proto lacks: coordination.k8s.io/v1 Lease,
 * events.k8s.io/v1 Event and discovery.k8s.io/v1 EndpointSlice. They are written here from the public API's wire format (field numbers are part of
 * the Kubernetes API's compatibility guarantee), in the proto2 form the other Kubernetes schemas use, under the
 * same package names kube-apiserver uses, so full names read like the rest.
 */
final class MissingSchemas {

    private static final String META = ".k8s.io.apimachinery.pkg.apis.meta.v1.";
    private static final String CORE = ".k8s.io.api.core.v1.";

    private MissingSchemas() {}

    /** coordination.k8s.io/v1: Lease, LeaseSpec, LeaseList. */
    static FileDescriptor coordinationV1() {
        String pkg = ".k8s.io.api.coordination.v1.";
        return build(
                FileDescriptorProto.newBuilder()
                        .setName("kubeloop/k8s.io/api/coordination/v1/lease.proto")
                        .setPackage("k8s.io.api.coordination.v1")
                        .addDependency(Meta.getDescriptor().getName())
                        .addMessageType(message(
                                "Lease",
                                message(1, "metadata", META + "ObjectMeta"),
                                message(2, "spec", pkg + "LeaseSpec")))
                        .addMessageType(message(
                                "LeaseSpec",
                                scalar(1, "holderIdentity", Type.TYPE_STRING),
                                scalar(2, "leaseDurationSeconds", Type.TYPE_INT32),
                                message(3, "acquireTime", META + "MicroTime"),
                                message(4, "renewTime", META + "MicroTime"),
                                scalar(5, "leaseTransitions", Type.TYPE_INT32),
                                scalar(6, "strategy", Type.TYPE_STRING),
                                scalar(7, "preferredHolder", Type.TYPE_STRING)))
                        .addMessageType(list("LeaseList", pkg + "Lease")),
                Meta.getDescriptor());
    }

    /** events.k8s.io/v1: Event, EventSeries, EventList. */
    static FileDescriptor eventsV1() {
        String pkg = ".k8s.io.api.events.v1.";
        return build(
                FileDescriptorProto.newBuilder()
                        .setName("kubeloop/k8s.io/api/events/v1/event.proto")
                        .setPackage("k8s.io.api.events.v1")
                        .addDependency(V1.getDescriptor().getName())
                        .addDependency(Meta.getDescriptor().getName())
                        .addMessageType(message(
                                "Event",
                                message(1, "metadata", META + "ObjectMeta"),
                                message(2, "eventTime", META + "MicroTime"),
                                message(3, "series", pkg + "EventSeries"),
                                scalar(4, "reportingController", Type.TYPE_STRING),
                                scalar(5, "reportingInstance", Type.TYPE_STRING),
                                scalar(6, "action", Type.TYPE_STRING),
                                scalar(7, "reason", Type.TYPE_STRING),
                                message(8, "regarding", CORE + "ObjectReference"),
                                message(9, "related", CORE + "ObjectReference"),
                                scalar(10, "note", Type.TYPE_STRING),
                                scalar(11, "type", Type.TYPE_STRING),
                                message(12, "deprecatedSource", CORE + "EventSource"),
                                message(13, "deprecatedFirstTimestamp", META + "Time"),
                                message(14, "deprecatedLastTimestamp", META + "Time"),
                                scalar(15, "deprecatedCount", Type.TYPE_INT32)))
                        .addMessageType(message(
                                "EventSeries",
                                scalar(1, "count", Type.TYPE_INT32),
                                message(2, "lastObservedTime", META + "MicroTime")))
                        .addMessageType(list("EventList", pkg + "Event")),
                V1.getDescriptor(),
                Meta.getDescriptor());
    }

    /** discovery.k8s.io/v1: EndpointSlice, Endpoint, EndpointConditions, EndpointHints, ForZone, EndpointPort. */
    static FileDescriptor discoveryV1() {
        String pkg = ".k8s.io.api.discovery.v1.";
        DescriptorProto topologyEntry = DescriptorProto.newBuilder()
                .setName("DeprecatedTopologyEntry")
                .addField(scalar(1, "key", Type.TYPE_STRING))
                .addField(scalar(2, "value", Type.TYPE_STRING))
                .setOptions(com.google.protobuf.DescriptorProtos.MessageOptions.newBuilder()
                        .setMapEntry(true))
                .build();
        DescriptorProto endpoint = message(
                        "Endpoint",
                        scalar(1, "addresses", Type.TYPE_STRING).setLabel(Label.LABEL_REPEATED),
                        message(2, "conditions", pkg + "EndpointConditions"),
                        scalar(3, "hostname", Type.TYPE_STRING),
                        message(4, "targetRef", CORE + "ObjectReference"),
                        message(5, "deprecatedTopology", pkg + "Endpoint.DeprecatedTopologyEntry")
                                .setLabel(Label.LABEL_REPEATED),
                        scalar(6, "nodeName", Type.TYPE_STRING),
                        scalar(7, "zone", Type.TYPE_STRING),
                        message(8, "hints", pkg + "EndpointHints"))
                .toBuilder()
                .addNestedType(topologyEntry)
                .build();
        return build(
                FileDescriptorProto.newBuilder()
                        .setName("kubeloop/k8s.io/api/discovery/v1/endpointslice.proto")
                        .setPackage("k8s.io.api.discovery.v1")
                        .addDependency(V1.getDescriptor().getName())
                        .addDependency(Meta.getDescriptor().getName())
                        .addMessageType(message(
                                "EndpointSlice",
                                message(1, "metadata", META + "ObjectMeta"),
                                message(2, "endpoints", pkg + "Endpoint").setLabel(Label.LABEL_REPEATED),
                                message(3, "ports", pkg + "EndpointPort").setLabel(Label.LABEL_REPEATED),
                                scalar(4, "addressType", Type.TYPE_STRING)))
                        .addMessageType(endpoint)
                        .addMessageType(message(
                                "EndpointConditions",
                                scalar(1, "ready", Type.TYPE_BOOL),
                                scalar(2, "serving", Type.TYPE_BOOL),
                                scalar(3, "terminating", Type.TYPE_BOOL)))
                        .addMessageType(message(
                                "EndpointHints",
                                message(1, "forZones", pkg + "ForZone").setLabel(Label.LABEL_REPEATED)))
                        .addMessageType(message("ForZone", scalar(1, "name", Type.TYPE_STRING)))
                        .addMessageType(message(
                                "EndpointPort",
                                scalar(1, "name", Type.TYPE_STRING),
                                scalar(2, "protocol", Type.TYPE_STRING),
                                scalar(3, "port", Type.TYPE_INT32),
                                scalar(4, "appProtocol", Type.TYPE_STRING)))
                        .addMessageType(list("EndpointSliceList", pkg + "EndpointSlice")),
                V1.getDescriptor(),
                Meta.getDescriptor());
    }

    private static DescriptorProto list(String name, String itemType) {
        return message(
                name,
                message(1, "metadata", META + "ListMeta"),
                field(2, "items", Type.TYPE_MESSAGE, itemType).setLabel(Label.LABEL_REPEATED));
    }

    private static DescriptorProto message(String name, FieldDescriptorProto.Builder... fields) {
        DescriptorProto.Builder message = DescriptorProto.newBuilder().setName(name);
        for (FieldDescriptorProto.Builder field : fields) {
            message.addField(field);
        }
        return message.build();
    }

    private static FieldDescriptorProto.Builder scalar(int number, String name, Type type) {
        return field(number, name, type, null);
    }

    private static FieldDescriptorProto.Builder message(int number, String name, String type) {
        return field(number, name, Type.TYPE_MESSAGE, type);
    }

    private static FieldDescriptorProto.Builder field(int number, String name, Type type, String typeName) {
        FieldDescriptorProto.Builder field = FieldDescriptorProto.newBuilder()
                .setNumber(number)
                .setName(name)
                .setJsonName(name)
                .setType(type)
                .setLabel(Label.LABEL_OPTIONAL);
        if (typeName != null) {
            field.setTypeName(typeName);
        }
        return field;
    }

    private static FileDescriptor build(FileDescriptorProto.Builder file, FileDescriptor... dependencies) {
        try {
            return FileDescriptor.buildFrom(file.build(), dependencies);
        } catch (DescriptorValidationException e) {
            throw new IllegalStateException("a built-in protobuf schema is invalid: " + e.getMessage(), e);
        }
    }
}
