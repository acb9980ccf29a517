/**
 * The consistency audit: {@link io.kubeloop.informer.audit.CacheAuditor} compares an informer's cache with a fresh
 * list from the server and reports what drifted as an {@link io.kubeloop.informer.audit.AuditResult}, a metric and
 * a log line.
 */
package io.kubeloop.informer.audit;
