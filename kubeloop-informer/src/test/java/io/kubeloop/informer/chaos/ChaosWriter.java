package io.kubeloop.informer.chaos;

import io.kubeloop.client.transport.RateLimiter;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The chaos run's writer: creates, updates and deletes configmaps {@code cm-000 ..} in one namespace, chosen by a
 * seeded random source, at a steady pace, for a bounded number of operations.
 *
 * <p>It writes over plain HTTP with its own User-Agent ({@value #USER_AGENT}), so that a partition scoped to the
 * informer's User-Agent ({@code kubeloop/}) cuts the informer off while the cluster keeps changing. It is the only
 * writer, so it knows whether each key exists: every write must succeed with the expected code, and a failure is
 * kept and ends the run.
 *
 * <p>Invariant: {@link #everCreated()} holds every key that existed at some point; a key in it and not on the
 * server at the end was deleted, and the informer's handlers must have seen that deletion last.
 */
final class ChaosWriter implements Runnable {

    static final String USER_AGENT = "chaos-writer/1.0";

    private final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10))
            .build();
    private final String collection;
    private final Random random;
    private final int keys;
    private final int operations;
    private final RateLimiter pace;
    private final boolean[] exists;
    private final Set<String> everCreated = ConcurrentHashMap.newKeySet();
    private final AtomicInteger done = new AtomicInteger();
    private final AtomicInteger creates = new AtomicInteger();
    private final AtomicInteger updates = new AtomicInteger();
    private final AtomicInteger deletes = new AtomicInteger();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private volatile boolean finished;

    /**
     * @param server the API server's URL
     * @param namespace where the configmaps live (it must exist)
     * @param seed the random source's seed: the same seed gives the same sequence of writes
     * @param keys how many distinct names ({@code cm-000} ...) the writer draws from
     * @param operations how many writes, in all
     * @param pace the writes' rate limit
     */
    ChaosWriter(URI server, String namespace, long seed, int keys, int operations, RateLimiter pace) {
        this.collection = server.toString().replaceAll("/$", "") + "/api/v1/namespaces/" + namespace + "/configmaps";
        this.random = new Random(seed);
        this.keys = keys;
        this.operations = operations;
        this.pace = pace;
        this.exists = new boolean[keys];
    }

    /** Creates {@code count} of the keys now, unpaced: the content the informer starts from. */
    void populate(int count) throws IOException, InterruptedException {
        for (int i = 0; i < count && i < keys; i++) {
            create(i, 0);
        }
    }

    @Override
    public void run() {
        try {
            for (int op = 1; op <= operations; op++) {
                pace.acquire();
                int k = random.nextInt(keys);
                if (!exists[k]) {
                    create(k, op);
                } else if (random.nextInt(10) < 7) {
                    update(k, op);
                } else {
                    delete(k);
                }
                done.incrementAndGet();
            }
        } catch (InterruptedException e) {
            failure.compareAndSet(
                    null, new IllegalStateException("the writer was interrupted after " + done.get() + " operations"));
        } catch (Throwable t) {
            failure.compareAndSet(null, t);
        } finally {
            finished = true;
        }
    }

    static String name(int k) {
        return String.format("cm-%03d", k);
    }

    private void create(int k, int op) throws IOException, InterruptedException {
        String body = "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"" + name(k)
                + "\",\"labels\":{\"app\":\"chaos\"}},\"data\":{\"op\":\"" + op + "\"}}";
        send(
                HttpRequest.newBuilder(URI.create(collection))
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(body)),
                201,
                "create " + name(k));
        exists[k] = true;
        everCreated.add(name(k));
        creates.incrementAndGet();
    }

    private void update(int k, int op) throws IOException, InterruptedException {
        String body = "{\"data\":{\"op\":\"" + op + "\"}}";
        send(
                HttpRequest.newBuilder(URI.create(collection + "/" + name(k)))
                        .header("Content-Type", "application/merge-patch+json")
                        .method("PATCH", HttpRequest.BodyPublishers.ofString(body)),
                200,
                "update " + name(k));
        updates.incrementAndGet();
    }

    private void delete(int k) throws IOException, InterruptedException {
        send(HttpRequest.newBuilder(URI.create(collection + "/" + name(k))).DELETE(), 200, "delete " + name(k));
        exists[k] = false;
        deletes.incrementAndGet();
    }

    private void send(HttpRequest.Builder request, int expected, String what) throws IOException, InterruptedException {
        HttpResponse<String> response = http.send(
                request.header("User-Agent", USER_AGENT)
                        .header("Accept", "application/json")
                        .timeout(Duration.ofSeconds(30))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != expected) {
            throw new IllegalStateException("the writer's " + what + " was answered " + response.statusCode()
                    + " (expected " + expected + "): " + response.body());
        }
    }

    /** Operations done so far (the initial population not counted). */
    int done() {
        return done.get();
    }

    boolean finished() {
        return finished;
    }

    /** The writer's failure, if any: a write answered with an unexpected code, or an I/O error. */
    Throwable failure() {
        return failure.get();
    }

    /** The name (in the writer's namespace) of every configmap that ever existed. */
    Set<String> everCreated() {
        return everCreated;
    }

    @Override
    public String toString() {
        return done.get() + "/" + operations + " operations (" + creates.get() + " creates, " + updates.get()
                + " updates, " + deletes.get() + " deletes)";
    }
}
