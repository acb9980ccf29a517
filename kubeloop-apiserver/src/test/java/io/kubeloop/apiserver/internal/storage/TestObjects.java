package io.kubeloop.apiserver.internal.storage;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.awaitility.core.ConditionFactory;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/** Test objects, keys and waiting helpers shared by the storage tests. */
final class TestObjects {

    static final JsonMapper JSON = JsonMapper.builder().build();
    static final Duration TIMEOUT = Duration.ofSeconds(10);

    private TestObjects() {}

    static StorageKey pod(String namespace, String name) {
        return new StorageKey("", "pods", namespace, name);
    }

    static StorageKey deployment(String namespace, String name) {
        return new StorageKey("apps", "deployments", namespace, name);
    }

    static StorageKey node(String name) {
        return StorageKey.clusterScoped("", "nodes", name);
    }

    /** An object for {@code key} with a spec and the given labels ({@code k=v} strings). */
    static ObjectNode object(StorageKey key, String... labels) {
        ObjectNode o = JsonNodeFactory.instance.objectNode();
        o.put("apiVersion", key.group().isEmpty() ? "v1" : key.group() + "/v1");
        o.put("kind", "Thing");
        ObjectNode meta = o.putObject("metadata");
        meta.put("name", key.name());
        if (!key.namespace().isEmpty()) {
            meta.put("namespace", key.namespace());
        }
        meta.put("uid", "uid-" + key.name());
        if (labels.length > 0) {
            ObjectNode l = meta.putObject("labels");
            for (String kv : labels) {
                String[] p = kv.split("=", 2);
                l.put(p[0], p[1]);
            }
        }
        ObjectNode spec = o.putObject("spec");
        spec.put("replicas", 1);
        spec.putArray("containers").addObject().put("name", "main").put("image", "nginx:1");
        return o;
    }

    /** A deep copy of {@code stored} with {@code spec.replicas} set. */
    static ObjectNode withReplicas(ObjectNode stored, int replicas) {
        ObjectNode o = stored.deepCopy();
        ((ObjectNode) o.get("spec")).put("replicas", replicas);
        return o;
    }

    /** A deep copy of {@code stored} with one label set (or removed, if {@code value} is null). */
    static ObjectNode withLabel(ObjectNode stored, String label, String value) {
        ObjectNode o = stored.deepCopy();
        ObjectNode meta = (ObjectNode) o.get("metadata");
        ObjectNode labels = meta.has("labels") ? (ObjectNode) meta.get("labels") : meta.putObject("labels");
        if (value == null) {
            labels.remove(label);
        } else {
            labels.put(label, value);
        }
        return o;
    }

    static String rv(ObjectNode o) {
        return o.get("metadata").get("resourceVersion").stringValue();
    }

    static long revision(ObjectNode o) {
        return Long.parseLong(rv(o));
    }

    static String name(ObjectNode o) {
        return o.get("metadata").get("name").stringValue();
    }

    static String label(ObjectNode o, String label) {
        var labels = o.get("metadata").get("labels");
        return labels == null || labels.get(label) == null
                ? null
                : labels.get(label).stringValue();
    }

    static List<String> names(List<ObjectNode> objects) {
        List<String> names = new ArrayList<>();
        objects.forEach(o -> names.add(name(o)));
        return names;
    }

    /** Runs {@code body} on a new platform thread (never the common pool, which may have one thread). */
    static <V> CompletableFuture<V> async(Callable<V> body) {
        CompletableFuture<V> result = new CompletableFuture<>();
        Thread.ofPlatform().daemon(true).start(() -> {
            try {
                result.complete(body.call());
            } catch (Throwable e) {
                result.completeExceptionally(e);
            }
        });
        return result;
    }

    /** Runs {@code body} on a new platform thread and waits for it. */
    static void inAnotherThread(Runnable body) {
        try {
            async(() -> {
                        body.run();
                        return null;
                    })
                    .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause());
        } catch (InterruptedException | TimeoutException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Awaitility with an explicit bound and a fast poll. */
    static ConditionFactory eventually() {
        return await().atMost(TIMEOUT).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(1));
    }

    /** Takes every event available right now (without waiting). */
    static List<StoreEvent> drainNow(StoreWatch w) throws InterruptedException {
        List<StoreEvent> events = new ArrayList<>();
        for (int i = 0; i < 1_000_000; i++) {
            StoreEvent e = w.next(Duration.ZERO);
            if (e == null) {
                return events;
            }
            events.add(e);
        }
        throw new AssertionError("more than a million events");
    }

    /** Takes exactly {@code n} events, waiting (on the system clock) at most {@link #TIMEOUT} for each. */
    static List<StoreEvent> take(StoreWatch w, int n) throws InterruptedException {
        List<StoreEvent> events = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            StoreEvent e = w.next(TIMEOUT);
            if (e == null) {
                throw new AssertionError("got only " + events.size() + " of " + n + " events: " + events
                        + "; watch ended: " + w.endReason());
            }
            events.add(e);
        }
        return events;
    }

    /** "TYPE name@revision" for compact assertions. */
    static String describe(StoreEvent e) {
        return switch (e.type()) {
            case BOOKMARK -> "BOOKMARK@" + e.revision();
            case ERROR -> "ERROR " + e.object().get("message").stringValue();
            default -> e.type() + " " + name(e.object()) + "@" + e.revision();
        };
    }

    static List<String> describe(List<StoreEvent> events) {
        return events.stream().map(TestObjects::describe).toList();
    }
}
