package io.kubeloop.bench;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.ThreadParams;

/**
 * addRateLimited/forget cycles of kubeloop's work queue and client-java's {@code DefaultRateLimitingQueue}, with
 * 1, 2 and 4 threads, over distinct keys and over a hot set of 16 keys.
 *
 * <h2>What one operation is</h2>
 * {@code queue.addRateLimited(key); queue.forget(key);} with the rate limiter of {@link QueueUnderTest}
 * (max of exponential 5 ms .. 1000 s and a token bucket of 10/s, burst 100) on both sides. Because every key is
 * forgotten right away, the exponential part always answers 5 ms; the shared bucket is empty after the first 100
 * operations, and from then on it answers an ever longer delay (it is 10 per second and we ask millions of times
 * per second), so after a few microseconds of each trial every {@code addRateLimited} is an
 * {@code addAfter(key, long delay)}: this is a controller retrying errors faster than its overall retry budget,
 * the regime where the cost of {@code addRateLimited} matters.
 *
 * <h2>Why memory stays bounded without draining</h2>
 * <ul>
 *   <li>kubeloop keeps one waiting entry per key (a later ready time for a key already waiting is ignored), so
 *       its waiting heap holds at most one entry per key of the key set; the first 100 (zero-delay) adds sit in
 *       the queue, at most one per key.</li>
 *   <li>client-java hands each delayed item to its waiting-loop thread through a 1,000-slot
 *       {@code LinkedBlockingQueue} with {@code offer}, which <b>drops the item silently when full</b>; the loop
 *       moves items into a {@code DelayQueue} with one entry per key. So it is bounded too, but by dropping:
 *       the benchmark counts the drops (see {@link QueueUnderTest.ClientJava}) and prints them after each
 *       iteration; a dropped retry is a retry that never happens. Its waiting loop also runs on a second
 *       thread, which on this 2-core machine competes with the benchmark threads for a core.</li>
 * </ul>
 * Nothing ever becomes ready during a trial, so no item needs a get/done; the queue and its waiting structures
 * are thrown away after the trial.
 *
 * <h2>Key sets</h2>
 * {@code distinct}: each thread cycles through its own {@value #RING} keys (disjoint between threads), so the
 * waiting structures hold up to {@value #RING} entries per thread. {@code hot}: each operation picks one of
 * {@value WorkQueueBenchmark#HOT_KEYS} shared keys at random.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class RateLimitedCycleBenchmark {

    static final int RING = 4096;

    /** The queue under test, shared by all threads of one benchmark. */
    @State(Scope.Benchmark)
    public static class Shared {
        @Param({"kubeloop", "client-java"})
        public String impl;

        @Param({"distinct", "hot"})
        public String keys;

        QueueUnderTest queue;

        @Setup(Level.Trial)
        public void open() {
            queue = QueueUnderTest.create(impl);
        }

        @TearDown(Level.Iteration)
        public void report() {
            System.out.print(" [" + queue.diagnostics() + "] ");
        }

        @TearDown(Level.Trial)
        public void close() throws InterruptedException {
            queue.close();
        }
    }

    /** A thread's keys: its own ring of distinct keys, and its random state for picking hot keys. */
    @State(Scope.Thread)
    public static class Worker {
        String[] ring;
        int next;
        int random;
        boolean hot;

        @Setup(Level.Trial)
        public void setUp(Shared shared, ThreadParams thread) {
            hot = shared.keys.equals("hot");
            int t = thread.getThreadIndex();
            ring = Keys.ring(t, RING);
            random = Keys.seed(t);
        }

        String nextKey() {
            if (hot) {
                int x = Keys.xorshift(random);
                random = x;
                return WorkQueueBenchmark.HOT[x & (WorkQueueBenchmark.HOT_KEYS - 1)];
            }
            String k = ring[next];
            next = (next + 1) & (RING - 1);
            return k;
        }
    }

    static void cycle(QueueUnderTest q, Worker w) {
        String key = w.nextKey();
        q.addRateLimited(key);
        q.forget(key);
    }

    @Benchmark
    @Threads(1)
    public void addRateLimitedForget_1worker(Shared s, Worker w) {
        cycle(s.queue, w);
    }

    @Benchmark
    @Threads(2)
    public void addRateLimitedForget_2workers(Shared s, Worker w) {
        cycle(s.queue, w);
    }

    @Benchmark
    @Threads(4)
    public void addRateLimitedForget_4workers(Shared s, Worker w) {
        cycle(s.queue, w);
    }
}
