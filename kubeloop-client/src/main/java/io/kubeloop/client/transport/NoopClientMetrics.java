package io.kubeloop.client.transport;

/** {@link ClientMetrics#noop()}. */
enum NoopClientMetrics implements ClientMetrics {
    INSTANCE;

    @Override
    public void recordRequest(String method, String host, int code, long durationNanos) {}

    @Override
    public void recordFailedRequest(String method, String host, long durationNanos) {}

    @Override
    public void recordRateLimiterWait(String method, String host, long waitNanos) {}

    @Override
    public void recordRetry(String method, String host, int code) {}
}
