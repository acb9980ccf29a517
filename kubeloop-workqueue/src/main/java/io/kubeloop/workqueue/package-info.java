/**
 * Rate-limited work queues with the exact semantics of client-go's {@code util/workqueue}: the queue
 * ({@link io.kubeloop.workqueue.WorkQueue}), the delaying queue ({@link io.kubeloop.workqueue.DelayingQueue}),
 * the rate-limiting queue ({@link io.kubeloop.workqueue.RateLimitingQueue}), controller-runtime's priority
 * queue with aging ({@link io.kubeloop.workqueue.PriorityWorkQueue}), the rate limiters
 * ({@link io.kubeloop.workqueue.RateLimiters}), and the injectable {@link io.kubeloop.clock.Clock} with
 * its {@link io.kubeloop.clock.FakeClock} for tests. Start at {@link io.kubeloop.workqueue.WorkQueue#builder()}.
 */
package io.kubeloop.workqueue;
