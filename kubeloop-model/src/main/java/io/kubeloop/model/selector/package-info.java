/**
 * Kubernetes label and field selectors with kube-apiserver's exact syntax, matching and error messages:
 * {@link io.kubeloop.model.selector.LabelSelector} ({@code labelSelector=}, and metav1 {@code LabelSelector}
 * objects), {@link io.kubeloop.model.selector.FieldSelector} ({@code fieldSelector=}), and
 * {@link io.kubeloop.model.selector.SelectableFields}, which says which fields each resource can be selected
 * by and reads their values from JSON objects. Bad input throws
 * {@link io.kubeloop.model.selector.SelectorParseException} with the message a real server would return.
 */
package io.kubeloop.model.selector;
