package io.kubeloop.controller.internal.controller;

import io.kubeloop.controller.Request;
import io.kubeloop.workqueue.RateLimitingQueue;

/**
 * Where a priority meets the queue. Until kubeloop-workqueue's {@code PriorityWorkQueue} is available here, the
 * controller's queue is client-go's FIFO rate-limiting queue and priorities are recorded but not applied.
 */
final class Priorities {

    private Priorities() {}

    static void add(RateLimitingQueue<Request> queue, Request request, int priority) {
        queue.add(request);
    }
}
