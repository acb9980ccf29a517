/**
 * Type checking of built-in objects as kube-apiserver's decoder does it (it decodes every write into its Go
 * structs): {@link io.kubeloop.apiserver.internal.types.BuiltInTypes} gives each built-in kind's table of
 * {@link io.kubeloop.apiserver.internal.types.GoType}s (built once per JVM from the protobuf descriptors), and
 * {@link io.kubeloop.apiserver.internal.types.TypeCheck} walks an object against it once: wrong types and numbers an
 * integer cannot hold are refused with Go's wording, unknown fields dropped and reported. The registry's
 * {@code Admission} runs it on every body and every patch result.
 */
package io.kubeloop.apiserver.internal.types;
