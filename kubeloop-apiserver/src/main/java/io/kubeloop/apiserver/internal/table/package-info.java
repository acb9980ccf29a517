/**
 * Server-side tables ({@code Accept: application/json;as=Table;v=v1;g=meta.k8s.io}): the
 * {@code meta.k8s.io/v1 Table} that kubectl prints for {@code get}, {@code get -o wide}, {@code get -A},
 * {@code get --show-labels} and {@code get -w}. {@link io.kubeloop.apiserver.internal.table.Tables} is the one entry
 * point; the per-kind printers mirror kube-apiserver 1.32's
 * {@code k8s.io/kubernetes/pkg/printers/internalversion/printers.go}, and every other kind gets the generic
 * Name / Created At table of {@code k8s.io/apiserver/pkg/registry/rest/table.go}.
 */
package io.kubeloop.apiserver.internal.table;
