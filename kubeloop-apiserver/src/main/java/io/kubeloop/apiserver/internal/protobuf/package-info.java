/**
 * Kubernetes protobuf bodies ({@code application/vnd.kubernetes.protobuf}) for the built-in kinds.
 *
 * <p>The public surface: {@link io.kubeloop.apiserver.internal.protobuf.ProtobufSupport#codec} gives the
 * {@link io.kubeloop.apiserver.internal.protobuf.ProtobufCodec} when the optional dependency
 * {@code io.kubernetes:client-java-proto} is on the class path; {@link io.kubeloop.apiserver.internal.protobuf.WireReader}
 * reads the wire format field by field and {@link io.kubeloop.apiserver.internal.protobuf.Envelope} unwraps the
 * {@code k8s\0} + {@code runtime.Unknown} envelope (the hand-written review decoder builds on these two).
 *
 * <p>Inside: {@code Schemas} maps apiVersion and kind to a message descriptor (client-java-proto's, plus
 * {@code MissingSchemas} for Lease and events.k8s.io/v1 Event); {@code ProtoToJson} and {@code JsonToProto}
 * walk the descriptors to convert between protobuf and the JSON Go's encoding/json writes, with Go's special
 * JSON forms in {@code SpecialMessage}, inline embedded structs in {@code EmbeddedStructs} and the zero-value
 * rule in {@code ExplicitZeros}. The user-facing description is docs/protobuf.md.
 */
package io.kubeloop.apiserver.internal.protobuf;
