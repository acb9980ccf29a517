package io.kubeloop.demo.internal.operator;

import io.kubeloop.client.KubernetesClient;
import io.kubeloop.clock.Clock;
import io.kubeloop.demo.PodGuardian;
import java.net.InetAddress;
import java.time.Duration;

/**
 * What {@link PodGuardian.Builder} collected; nulls mean the defaults its methods document ({@code namespace} null:
 * all namespaces; {@code leaseNamespace} null: no leader election; timings null: client-go's; {@code clock} null:
 * the client's; ports -1: none).
 */
public record OperatorSettings(
        KubernetesClient client,
        String namespace,
        String leaseNamespace,
        String identity,
        Duration leaseDuration,
        Duration renewDeadline,
        Duration retryPeriod,
        Clock clock,
        InetAddress bindAddress,
        int metricsPort,
        int healthProbePort,
        Duration auditThreshold,
        PodGuardian.Listener listener) {}
