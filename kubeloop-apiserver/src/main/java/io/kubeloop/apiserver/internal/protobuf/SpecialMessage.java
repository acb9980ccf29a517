package io.kubeloop.apiserver.internal.protobuf;

import com.google.protobuf.Descriptors.Descriptor;
import java.util.Map;

/**
 * Messages whose Go types marshal to JSON as something other than an object of their fields (they implement
 * {@code json.Marshaler}, or are Go named slices). Every other message maps field by field. The set is checked
 * by a test that walks every message reachable from a supported kind.
 */
enum SpecialMessage {
    /** meta/v1 Time {int64 seconds = 1; int32 nanos = 2}: RFC 3339 in UTC to the second; an empty message is Go's zero time. */
    TIME,
    /** meta/v1 MicroTime, the same message as Time: RFC 3339 in UTC with six fractional digits. */
    MICRO_TIME,
    /** meta/v1 Duration {int64 duration = 1} (nanoseconds): Go's duration text, {@code 1h0m0s}. */
    DURATION,
    /** resource.Quantity {string string = 1}: the string. */
    QUANTITY,
    /** intstr.IntOrString {int64 type = 1; int32 intVal = 2; string strVal = 3}: a number (type 0) or a string (1). */
    INT_OR_STRING,
    /** runtime.RawExtension {bytes raw = 1}: the JSON document in raw (in a WatchEvent, an embedded protobuf body). */
    RAW_EXTENSION,
    /** meta/v1 FieldsV1 {bytes Raw = 1}: the JSON document in Raw. */
    FIELDS_V1,
    /** A Go named {@code []string} such as authentication/v1 ExtraValue {repeated string items = 1}: an array. */
    STRING_LIST;

    private static final String META = "k8s.io.apimachinery.pkg.apis.meta.v1.";

    private static final Map<String, SpecialMessage> BY_NAME = Map.ofEntries(
            Map.entry(META + "Time", TIME),
            Map.entry(META + "MicroTime", MICRO_TIME),
            Map.entry(META + "Duration", DURATION),
            Map.entry(META + "FieldsV1", FIELDS_V1),
            Map.entry(META + "Verbs", STRING_LIST),
            Map.entry("k8s.io.apimachinery.pkg.api.resource.Quantity", QUANTITY),
            Map.entry("k8s.io.apimachinery.pkg.util.intstr.IntOrString", INT_OR_STRING),
            Map.entry("k8s.io.apimachinery.pkg.runtime.RawExtension", RAW_EXTENSION),
            Map.entry("k8s.io.api.authentication.v1.ExtraValue", STRING_LIST),
            Map.entry("k8s.io.api.authorization.v1.ExtraValue", STRING_LIST),
            Map.entry("k8s.io.api.certificates.v1.ExtraValue", STRING_LIST));

    /** The special mapping of this message type, or null if it maps field by field. */
    static SpecialMessage of(Descriptor type) {
        return BY_NAME.get(type.getFullName());
    }
}
