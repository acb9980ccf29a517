/**
 * What kube-apiserver's registry does to a built-in object between decoding a write and storing it: one
 * {@link io.kubeloop.apiserver.internal.registry.ResourceStrategy} per resource that needs one (defaulting,
 * preparation, validation, immutability), found through
 * {@link io.kubeloop.apiserver.internal.registry.Strategies}, and run in kube's order by
 * {@link io.kubeloop.apiserver.internal.registry.Admission}. No HTTP here: failures are
 * {@link io.kubeloop.apiserver.internal.registry.AdmissionException}s carrying a kube Status, warnings go to
 * {@link io.kubeloop.apiserver.internal.registry.Warnings}.
 */
package io.kubeloop.apiserver.internal.registry;
