package io.kubeloop.apiserver.internal.bootstrap;

import io.kubeloop.apiserver.internal.storage.AlreadyExistsException;
import io.kubeloop.apiserver.internal.storage.NotFoundException;
import io.kubeloop.apiserver.internal.storage.StorageException;
import io.kubeloop.apiserver.internal.storage.StorageKey;
import io.kubeloop.apiserver.internal.storage.Store;
import io.kubeloop.apiserver.internal.storage.StoreEvent;
import io.kubeloop.apiserver.internal.storage.StoreWatch;
import io.kubeloop.clock.Clock;
import io.kubeloop.model.Timestamps;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The objects a cluster has from the start and keeps, as kube-apiserver and kube-controller-manager keep them:
 *
 * <ul>
 *   <li>the {@code kubernetes} Service in {@code default} (cluster IP {@value #KUBERNETES_SERVICE_IP}, the first
 *       address of the service range; port 443 {@code https} to the server's own port) and its Endpoints (the
 *       server's address), written at start as kube-apiserver's bootstrap controller writes them;
 *   <li>in every namespace the {@code kube-root-ca.crt} ConfigMap ({@code ca.crt}: the server's CA in PEM; empty
 *       over plain HTTP, where the server has no CA) and the {@code default} ServiceAccount, created when the
 *       namespace appears and again when deleted (the root-ca-cert-publisher and serviceaccounts controllers); a
 *       changed {@code ca.crt} is put back.
 * </ul>
 *
 * <p>A namespace that is terminating gets nothing; an object created just as its namespace started terminating is
 * deleted again, so namespace deletion is never held up. One virtual thread per followed resource (namespaces,
 * configmaps, serviceaccounts) follows the store with list-and-watch until {@link #close()}; a watch that ends is
 * started again. Writes go straight to the store, as a controller's would, with the metadata the API would give.
 */
public final class ClusterObjects implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ClusterObjects.class);

    public static final String KUBERNETES_SERVICE_IP = "10.96.0.1";
    public static final String ROOT_CA_CONFIG_MAP = "kube-root-ca.crt";
    static final String DEFAULT_SERVICE_ACCOUNT = "default";
    static final String ROOT_CA_DESCRIPTION = "Contains a CA bundle that can be used to verify the kube-apiserver when "
            + "using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is "
            + "guaranteed across distributions of Kubernetes clusters.";

    private static final Duration FOREVER = Duration.ofDays(365L * 200);
    private static final int WATCH_BUFFER = 100_000;

    private final Store store;
    private final Clock clock;
    private final JsonMapper json;
    private final String caPem;
    private final Set<StoreWatch> watches = ConcurrentHashMap.newKeySet();
    private final List<Thread> threads;
    private volatile boolean closed;

    private ClusterObjects(Store store, Clock clock, JsonMapper json, String caPem) {
        this.store = store;
        this.clock = clock;
        this.json = json;
        this.caPem = caPem;
        // the filters run on the writer's thread: a name comparison keeps every other object's events off these queues
        this.threads = List.of(
                follow("namespaces", null, this::namespaceEvent),
                follow("configmaps", named(ROOT_CA_CONFIG_MAP), this::configMapEvent),
                follow("serviceaccounts", named(DEFAULT_SERVICE_ACCOUNT), this::serviceAccountEvent));
    }

    /**
     * Writes the {@code kubernetes} Service and Endpoints and every existing namespace's objects, then keeps them.
     *
     * @param caPem the server's CA certificate in PEM, or "" when it serves plain HTTP
     * @param host the address clients reach the server on; {@code port} its port
     */
    public static ClusterObjects start(Store store, Clock clock, JsonMapper json, String caPem, String host, int port) {
        ClusterObjects objects = new ClusterObjects(store, clock, json, caPem);
        objects.createIfMissing(
                new StorageKey("", "services", "default", "kubernetes"), objects.kubernetesService(port));
        objects.createIfMissing(
                new StorageKey("", "endpoints", "default", "kubernetes"), objects.kubernetesEndpoints(host, port));
        for (ObjectNode ns :
                store.list("", "namespaces", null, 0, null, 0, null).items()) {
            objects.ensure(ns);
        }
        return objects;
    }

    private static Predicate<ObjectNode> named(String name) {
        return object -> object.path("metadata").path("name").asString("").equals(name);
    }

    private Thread follow(
            String plural, Predicate<ObjectNode> filter, java.util.function.Consumer<StoreEvent> handler) {
        return Thread.ofVirtual().name("apiserver-cluster-objects-" + plural).start(() -> {
            while (!closed) {
                StoreWatch watch;
                try {
                    watch = store.listAndWatch("", plural, null, filter, WATCH_BUFFER);
                } catch (IllegalStateException storeClosed) {
                    return;
                }
                watches.add(watch);
                try {
                    while (!closed) {
                        StoreEvent event = watch.next(FOREVER);
                        if (event == null || event.type() == StoreEvent.Type.ERROR) {
                            break; // overflowed or closed: list again
                        }
                        if (event.type() != StoreEvent.Type.BOOKMARK) {
                            handler.accept(event);
                        }
                    }
                } catch (InterruptedException e) {
                    return;
                } catch (RuntimeException e) {
                    if (!closed) {
                        log.warn("cluster objects: following {} failed; listing again", plural, e);
                    }
                } finally {
                    watches.remove(watch);
                    watch.close();
                }
            }
        });
    }

    private void namespaceEvent(StoreEvent event) {
        if (event.type() != StoreEvent.Type.DELETED) {
            ensure(event.object());
        }
    }

    private void configMapEvent(StoreEvent event) {
        JsonNode meta = event.object().path("metadata");
        if (!meta.path("name").asString("").equals(ROOT_CA_CONFIG_MAP)) {
            return;
        }
        String namespace = meta.path("namespace").asString("");
        if (event.type() == StoreEvent.Type.DELETED) {
            activeNamespace(namespace).ifPresent(this::ensure);
        } else if (!event.object().path("data").path("ca.crt").asString("").equals(caPem)) {
            StorageKey key = new StorageKey("", "configmaps", namespace, ROOT_CA_CONFIG_MAP);
            try {
                store.guaranteedUpdate(key, io.kubeloop.apiserver.internal.storage.Preconditions.NONE, cm -> {
                    cm.putObject("data").put("ca.crt", caPem);
                    return cm;
                });
            } catch (StorageException goneMeanwhile) {
                // deleted or replaced: its own event brings it back
            }
        }
    }

    private void serviceAccountEvent(StoreEvent event) {
        JsonNode meta = event.object().path("metadata");
        if (event.type() == StoreEvent.Type.DELETED
                && meta.path("name").asString("").equals(DEFAULT_SERVICE_ACCOUNT)) {
            activeNamespace(meta.path("namespace").asString("")).ifPresent(this::ensure);
        }
    }

    private java.util.Optional<ObjectNode> activeNamespace(String name) {
        try {
            ObjectNode ns = store.get(StorageKey.clusterScoped("", "namespaces", name));
            return terminating(ns) ? java.util.Optional.empty() : java.util.Optional.of(ns);
        } catch (NotFoundException gone) {
            return java.util.Optional.empty();
        }
    }

    private static boolean terminating(JsonNode ns) {
        return ns.path("metadata").has("deletionTimestamp")
                || ns.path("status").path("phase").asString("").equals("Terminating");
    }

    /** Creates what {@code ns} lacks, unless it is terminating; undoes it if it started terminating meanwhile. */
    private void ensure(JsonNode ns) {
        if (closed || terminating(ns)) {
            return;
        }
        String namespace = ns.path("metadata").path("name").asString("");
        StorageKey configMap = new StorageKey("", "configmaps", namespace, ROOT_CA_CONFIG_MAP);
        StorageKey serviceAccount = new StorageKey("", "serviceaccounts", namespace, DEFAULT_SERVICE_ACCOUNT);
        boolean created = createIfMissing(configMap, rootCa(namespace));
        created |= createIfMissing(serviceAccount, defaultServiceAccount(namespace));
        if (created && activeNamespace(namespace).isEmpty()) {
            deleteQuietly(configMap);
            deleteQuietly(serviceAccount);
        }
    }

    private boolean createIfMissing(StorageKey key, ObjectNode object) {
        try {
            store.create(key, object);
            return true;
        } catch (AlreadyExistsException exists) {
            return false;
        } catch (IllegalStateException storeClosed) {
            return false;
        }
    }

    private void deleteQuietly(StorageKey key) {
        try {
            store.delete(key, io.kubeloop.apiserver.internal.storage.Preconditions.NONE);
        } catch (StorageException | IllegalStateException goneOrClosed) {
            // the namespace controller got there first
        }
    }

    private ObjectNode object(String kind, String namespace, String name) {
        ObjectNode object = json.createObjectNode();
        object.put("apiVersion", "v1");
        object.put("kind", kind);
        ObjectNode meta = object.putObject("metadata");
        meta.put("name", name);
        meta.put("namespace", namespace);
        meta.put("uid", UUID.randomUUID().toString());
        meta.put("creationTimestamp", Timestamps.format(clock.now()));
        return object;
    }

    private ObjectNode rootCa(String namespace) {
        ObjectNode cm = object("ConfigMap", namespace, ROOT_CA_CONFIG_MAP);
        ((ObjectNode) cm.get("metadata"))
                .putObject("annotations")
                .put("kubernetes.io/description", ROOT_CA_DESCRIPTION);
        cm.putObject("data").put("ca.crt", caPem);
        return cm;
    }

    private ObjectNode defaultServiceAccount(String namespace) {
        return object("ServiceAccount", namespace, DEFAULT_SERVICE_ACCOUNT);
    }

    private ObjectNode kubernetesService(int port) {
        ObjectNode svc = object("Service", "default", "kubernetes");
        ObjectNode labels = ((ObjectNode) svc.get("metadata")).putObject("labels");
        labels.put("component", "apiserver");
        labels.put("provider", "kubernetes");
        ObjectNode spec = svc.putObject("spec");
        spec.put("clusterIP", KUBERNETES_SERVICE_IP);
        spec.putArray("clusterIPs").add(KUBERNETES_SERVICE_IP);
        spec.put("internalTrafficPolicy", "Cluster");
        spec.putArray("ipFamilies").add("IPv4");
        spec.put("ipFamilyPolicy", "SingleStack");
        ObjectNode https = spec.putArray("ports").addObject();
        https.put("name", "https");
        https.put("port", 443);
        https.put("protocol", "TCP");
        https.put("targetPort", port);
        spec.put("sessionAffinity", "None");
        spec.put("type", "ClusterIP");
        svc.putObject("status").putObject("loadBalancer");
        return svc;
    }

    private ObjectNode kubernetesEndpoints(String host, int port) {
        ObjectNode ep = object("Endpoints", "default", "kubernetes");
        ((ObjectNode) ep.get("metadata")).putObject("labels").put("endpointslice.kubernetes.io/skip-mirror", "true");
        ObjectNode subset = ep.putArray("subsets").addObject();
        subset.putArray("addresses").addObject().put("ip", host);
        ObjectNode https = subset.putArray("ports").addObject();
        https.put("name", "https");
        https.put("port", port);
        https.put("protocol", "TCP");
        return ep;
    }

    /** Stops following the store (idempotent); the store is the caller's to close. */
    @Override
    public void close() {
        closed = true;
        watches.forEach(StoreWatch::close);
        threads.forEach(Thread::interrupt);
    }
}
