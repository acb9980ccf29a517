/**
 * The patch engines of the embedded API server: pure functions from (stored object, patch) to a new object,
 * with no HTTP in them. The REST layer picks one by {@code Content-Type}:
 *
 * <ul>
 *   <li>{@code application/merge-patch+json}: {@link io.kubeloop.apiserver.internal.patch.JsonMergePatch} (RFC 7386);</li>
 *   <li>{@code application/json-patch+json}: {@link io.kubeloop.apiserver.internal.patch.JsonPatch} (RFC 6902);</li>
 *   <li>{@code application/strategic-merge-patch+json}: {@link io.kubeloop.apiserver.internal.patch.StrategicMergePatch}
 *       with the kind's {@link io.kubeloop.apiserver.internal.patch.PatchSchema} (415 for kinds without one);</li>
 *   <li>{@code application/apply-patch+yaml}: {@link io.kubeloop.apiserver.internal.patch.ServerSideApply}.</li>
 * </ul>
 *
 * <p>Every failure is a {@link io.kubeloop.apiserver.internal.patch.PatchException} carrying the status code, reason and
 * message kube-apiserver would answer with. Inputs are never modified and results never share nodes with them.
 * Parsing the request body is the caller's job; to reject JSON documents with duplicate member names (RFC 6902
 * appendix A.13), parse with {@code StreamReadFeature.STRICT_DUPLICATE_DETECTION}.
 */
package io.kubeloop.apiserver.internal.patch;
