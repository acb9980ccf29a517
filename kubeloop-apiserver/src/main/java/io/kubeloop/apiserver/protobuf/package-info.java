/**
 * Reading Kubernetes protobuf request bodies: {@link io.kubeloop.apiserver.protobuf.WireReader} reads the
 * protobuf wire format field by field, {@link io.kubeloop.apiserver.protobuf.Envelope} unwraps the
 * {@code k8s\0} + {@code runtime.Unknown} envelope that client-go sends. Decoders of particular kinds build
 * on these two.
 */
package io.kubeloop.apiserver.protobuf;
