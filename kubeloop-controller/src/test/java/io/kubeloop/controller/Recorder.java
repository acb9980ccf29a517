package io.kubeloop.controller;

import io.fabric8.kubernetes.api.model.HasMetadata;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A reconciler for tests: records every call (request, start and end on the clock it is given, thread) and answers
 * with a script: the n-th call for a request (1-based) gets {@code script.answer(request, n)}.
 */
final class Recorder<T extends HasMetadata> implements Reconciler<T> {

    /** What the n-th reconcile of a request does: return a Result or throw. */
    @FunctionalInterface
    interface Script {
        Result answer(Request request, int attempt) throws Exception;
    }

    record Call(Request request, int attempt, String thread) {}

    final List<Call> calls = new CopyOnWriteArrayList<>();
    private final Map<Request, AtomicInteger> attempts = new ConcurrentHashMap<>();
    private final Map<Request, AtomicInteger> inFlight = new ConcurrentHashMap<>();
    /** Times a request was reconciled by two workers at once: must stay 0. */
    final AtomicInteger overlaps = new AtomicInteger();
    /** The most reconciles seen running at once, across requests. */
    final AtomicInteger maxConcurrent = new AtomicInteger();

    private final AtomicInteger running = new AtomicInteger();
    private volatile Script script = (r, n) -> Result.done();

    Recorder<T> answering(Script script) {
        this.script = script;
        return this;
    }

    /** The ConfigMap every namespace of a cluster has: reconciled (done) but not recorded or scripted. */
    static final String SEEDED = "kube-root-ca.crt";

    @Override
    public Result reconcile(Request request) throws Exception {
        if (request.name().equals(SEEDED)) {
            return Result.done();
        }
        int n = attempts.computeIfAbsent(request, r -> new AtomicInteger()).incrementAndGet();
        calls.add(new Call(request, n, Thread.currentThread().getName()));
        AtomicInteger mine = inFlight.computeIfAbsent(request, r -> new AtomicInteger());
        if (mine.incrementAndGet() > 1) {
            overlaps.incrementAndGet();
        }
        maxConcurrent.accumulateAndGet(running.incrementAndGet(), Math::max);
        try {
            return script.answer(request, n);
        } finally {
            running.decrementAndGet();
            mine.decrementAndGet();
        }
    }

    /** How many times {@code name} (in any namespace) was reconciled. */
    int count(String name) {
        return (int) calls.stream().filter(c -> c.request().name().equals(name)).count();
    }
}
