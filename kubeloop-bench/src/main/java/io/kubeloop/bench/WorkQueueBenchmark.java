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
 * add/get/done throughput of kubeloop's work queue and client-java's {@code DefaultRateLimitingQueue}, with 1, 2
 * and 4 worker threads, over distinct keys and over a hot set of 16 keys.
 *
 * <h2>What one operation is</h2>
 * Every worker thread runs the same loop, and one JMH operation is one turn of a controller worker: it takes one
 * item, events arrive meanwhile, it finishes the item. So the score is <b>items processed per second</b>.
 * <ul>
 *   <li>{@code distinct}: <pre>{@code item = get(); add(freshKey); done(item);}</pre> The queue starts with
 *       {@value #BACKLOG} queued keys; each thread adds keys from its own ring of {@value #RING} keys (disjoint
 *       between threads). A key leaves the FIFO queue within {@value #BACKLOG}+threads gets and comes round again
 *       only {@value #RING} turns of its thread later, so every add really queues a new item (no
 *       de-duplication), {@code done} just finishes, and the queue stays about {@value #BACKLOG} long: the path
 *       of a controller with many objects. (Only a worker descheduled between its get and its done for two
 *       whole laps of another worker's ring could make that worker's add find its key still dirty; the ring
 *       is large so that this does not happen at measurable rates. The queue length printed after each
 *       iteration shows it: it would shrink.)</li>
 *   <li>{@code hot}: <pre>{@code item = get(); add(hotKey); add(item); done(item);}</pre> The queue starts with
 *       the {@value #HOT_KEYS} hot keys; {@code hotKey} is one of them picked at random (per-thread xorshift).
 *       Every hot key is always queued or being processed, so {@code add(hotKey)} is de-duplicated (already
 *       queued, or already dirty) or marks a key in processing dirty; {@code add(item)} marks the item dirty
 *       while it is processed, and {@code done} re-queues it: the path of a few objects that change all the
 *       time. (With a single random add per turn the hot queue would drain to about one item and the workers
 *       would mostly measure park/unpark of threads waiting in {@code get()}, not the queue.)</li>
 * </ul>
 *
 * <h2>Why it can neither deadlock nor drain</h2>
 * After any turn completes, the keys it added are dirty: each is either queued, or being processed by some
 * worker whose {@code done} will queue it. So at no time are all workers blocked in {@code get()} with nothing
 * queued and nothing in processing: some worker always has an item to get or a {@code done} to call that
 * queues one. That holds for any choice of keys and any number of threads, and at the end of an iteration too
 * (each thread finishes its current turn; a thread waiting in {@code get()} is woken by another thread's last
 * {@code add} or {@code done}). In practice no worker ever waits: the queue holds about {@value #BACKLOG}
 * (distinct) or at least {@value #HOT_KEYS} minus the number of workers (hot) items at all times. The queue is
 * never shut down while threads run; {@link Shared#close} shuts it down after the trial.
 *
 * <p>Threads: {@code @Threads(1|2|4)} on three otherwise identical methods, so every worker count runs in one
 * JMH run. The machine this was written for has 2 cores, so 4 workers are over-subscribed; that row measures
 * the lock under contention with preempted holders, which a real controller on a small node also sees.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class WorkQueueBenchmark {

    static final int BACKLOG = 1024;
    static final int RING = 65536;
    static final int HOT_KEYS = 16;

    static final String[] HOT = new String[HOT_KEYS];

    static {
        for (int i = 0; i < HOT_KEYS; i++) {
            HOT[i] = "default/hot-" + i;
        }
    }

    /** The queue under test, shared by all worker threads of one benchmark. */
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
            if (keys.equals("hot")) {
                for (String k : HOT) {
                    queue.add(k);
                }
            } else {
                for (int i = 0; i < BACKLOG; i++) {
                    queue.add("backlog/obj-" + i);
                }
            }
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

    /** A worker's keys: its own ring of distinct keys, and its random state for picking hot keys. */
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

        String nextHotKey() {
            int x = Keys.xorshift(random);
            random = x;
            return HOT[x & (HOT_KEYS - 1)];
        }

        String nextFreshKey() {
            String k = ring[next];
            next = (next + 1) & (RING - 1);
            return k;
        }
    }

    static String turn(QueueUnderTest q, Worker w) throws InterruptedException {
        String item = q.get();
        if (w.hot) {
            q.add(w.nextHotKey());
            q.add(item);
        } else {
            q.add(w.nextFreshKey());
        }
        q.done(item);
        return item;
    }

    @Benchmark
    @Threads(1)
    public String addGetDone_1worker(Shared s, Worker w) throws InterruptedException {
        return turn(s.queue, w);
    }

    @Benchmark
    @Threads(2)
    public String addGetDone_2workers(Shared s, Worker w) throws InterruptedException {
        return turn(s.queue, w);
    }

    @Benchmark
    @Threads(4)
    public String addGetDone_4workers(Shared s, Worker w) throws InterruptedException {
        return turn(s.queue, w);
    }
}
