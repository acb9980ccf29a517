package io.kubeloop.bench;

import io.kubeloop.apiserver.EmbeddedApiServer;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Realistic pods for the client benchmarks: labels, annotations, one container with env, ports,
 * resources, probes and mounts, two volumes, tolerations, and a status with four conditions and a container status.
 * About 3.3 KB of JSON as sent, and 6.3 KB as the embedded server returns it (uid, creationTimestamp,
 * resourceVersion and about 3 KB of managedFields added, as kube-apiserver does).
 */
public final class ClientPods {

    public static final String NAMESPACE = "bench";

    private ClientPods() {}

    /** The JSON body to create pod number {@code i} (no uid, resourceVersion or timestamps: the server adds them). */
    // No ownerReferences: the embedded server's garbage collector deletes pods whose owner does not exist.
    public static String podJson(int i) {
        String name = "web-7c9d8f5b4-" + String.format("%05d", i);
        String ip = "10.244." + (i / 250) % 256 + "." + (i % 250 + 2);
        return """
            {"apiVersion":"v1","kind":"Pod","metadata":{"name":"%1$s","generateName":"web-7c9d8f5b4-",\
            "namespace":"%3$s","labels":{"app":"web","pod-template-hash":"7c9d8f5b4","tier":"frontend",\
            "version":"v1.27.%4$d"},"annotations":{"kubectl.kubernetes.io/restartedAt":"2026-11-30T10:00:00Z",\
            "prometheus.io/scrape":"true","prometheus.io/port":"9090"}},"spec":{"containers":[{"name":"nginx",\
            "image":"registry.example.com/frontend/nginx:1.27.3","imagePullPolicy":"IfNotPresent",\
            "args":["--config","/etc/nginx/nginx.conf","--log-level","info"],\
            "env":[{"name":"POD_NAME","valueFrom":{"fieldRef":{"apiVersion":"v1","fieldPath":"metadata.name"}}},\
            {"name":"POD_IP","valueFrom":{"fieldRef":{"apiVersion":"v1","fieldPath":"status.podIP"}}},\
            {"name":"LOG_FORMAT","value":"json"},{"name":"UPSTREAM","value":"http://api.bench.svc:8080"},\
            {"name":"WORKERS","value":"4"}],"ports":[{"name":"http","containerPort":8080,"protocol":"TCP"},\
            {"name":"metrics","containerPort":9090,"protocol":"TCP"}],"resources":{"requests":{"cpu":"250m",\
            "memory":"256Mi"},"limits":{"cpu":"1","memory":"512Mi"}},"readinessProbe":{"httpGet":{"path":"/healthz",\
            "port":8080,"scheme":"HTTP"},"initialDelaySeconds":5,"periodSeconds":10,"timeoutSeconds":1,\
            "successThreshold":1,"failureThreshold":3},"volumeMounts":[{"name":"config","mountPath":"/etc/nginx",\
            "readOnly":true},{"name":"kube-api-access-x7k2p","mountPath":"/var/run/secrets/kubernetes.io/serviceaccount",\
            "readOnly":true}],"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"}],\
            "volumes":[{"name":"config","configMap":{"name":"web-nginx","defaultMode":420}},\
            {"name":"kube-api-access-x7k2p","projected":{"sources":[{"serviceAccountToken":{"expirationSeconds":3607,\
            "path":"token"}}],"defaultMode":420}}],"restartPolicy":"Always","terminationGracePeriodSeconds":30,\
            "dnsPolicy":"ClusterFirst","serviceAccountName":"web","nodeName":"node-%5$d","schedulerName":\
            "default-scheduler","tolerations":[{"key":"node.kubernetes.io/not-ready","operator":"Exists",\
            "effect":"NoExecute","tolerationSeconds":300},{"key":"node.kubernetes.io/unreachable",\
            "operator":"Exists","effect":"NoExecute","tolerationSeconds":300}],"priority":0},\
            "status":{"phase":"Running","conditions":[{"type":"Initialized","status":"True",\
            "lastTransitionTime":"2026-11-30T10:00:01Z"},{"type":"Ready","status":"True",\
            "lastTransitionTime":"2026-11-30T10:00:09Z"},{"type":"ContainersReady","status":"True",\
            "lastTransitionTime":"2026-11-30T10:00:09Z"},{"type":"PodScheduled","status":"True",\
            "lastTransitionTime":"2026-11-30T10:00:00Z"}],"hostIP":"192.168.10.%5$d","podIP":"%2$s",\
            "podIPs":[{"ip":"%2$s"}],"startTime":"2026-11-30T10:00:00Z","containerStatuses":[{"name":"nginx",\
            "state":{"running":{"startedAt":"2026-11-30T10:00:03Z"}},"ready":true,"restartCount":0,\
            "image":"registry.example.com/frontend/nginx:1.27.3","imageID":"registry.example.com/frontend/nginx@\
            sha256:4c0fdaa8b6341bfdeca5f18f7837462c80cff90527ee35ef185571e1c327beac","containerID":"containerd://\
            9f8e7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a39281706f5e4d3c2b1a0","started":true}],"qosClass":"Burstable"}}""".formatted(name, ip, NAMESPACE, i % 10, i % 50 + 1);
    }

    /** Creates {@code count} pods in {@link #NAMESPACE} over HTTP, 4 requests at a time. */
    public static void populate(EmbeddedApiServer server, int count) throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        HttpResponse<String> ns = http.send(
                HttpRequest.newBuilder(URI.create(server.url() + "/api/v1/namespaces"))
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString("{\"metadata\":{\"name\":\"" + NAMESPACE + "\"}}"))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        if (ns.statusCode() != 201) {
            throw new IllegalStateException("create of namespace " + NAMESPACE + " answered " + ns.statusCode());
        }
        URI pods = URI.create(server.url() + "/api/v1/namespaces/" + NAMESPACE + "/pods");
        try (ExecutorService pool = Executors.newFixedThreadPool(4)) {
            List<Future<?>> done = new ArrayList<>();
            for (int w = 0; w < 4; w++) {
                int first = w;
                done.add(pool.submit(() -> {
                    for (int i = first; i < count; i += 4) {
                        HttpResponse<String> r = http.send(
                                HttpRequest.newBuilder(pods)
                                        .header("Content-Type", "application/json")
                                        .POST(HttpRequest.BodyPublishers.ofString(podJson(i)))
                                        .build(),
                                HttpResponse.BodyHandlers.ofString());
                        if (r.statusCode() != 201) {
                            throw new IllegalStateException("create of pod " + i + " answered " + r.statusCode() + ": "
                                    + r.body()
                                            .substring(0, Math.min(300, r.body().length())));
                        }
                        // a create starts the pod Pending, as kube-apiserver does: its running status is a
                        // /status write, as a kubelet's
                        String name = "web-7c9d8f5b4-" + String.format("%05d", i);
                        HttpResponse<String> s = http.send(
                                HttpRequest.newBuilder(URI.create(pods + "/" + name + "/status"))
                                        .header("Content-Type", "application/json")
                                        .PUT(HttpRequest.BodyPublishers.ofString(podJson(i)))
                                        .build(),
                                HttpResponse.BodyHandlers.ofString());
                        if (s.statusCode() != 200) {
                            throw new IllegalStateException("status of pod " + i + " answered " + s.statusCode() + ": "
                                    + s.body()
                                            .substring(0, Math.min(300, s.body().length())));
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
        }
    }

    /**
     * A watch stream of {@code events} events, one compact JSON event per line as kube-apiserver writes them:
     * the first {@code pods.size()} events ADDED, the rest MODIFIED with the pods cycled and a fresh
     * resourceVersion each. {@code pods} are the items of a list from the embedded server, so each object is a
     * pod exactly as the server serves it.
     */
    public static byte[] watchStream(List<ObjectNode> pods, int events) {
        JsonMapper mapper = JsonMapper.builder().build();
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream(events * 6400);
        for (int i = 0; i < events; i++) {
            // A watch event's object carries apiVersion and kind (a list's items do not); fabric8 needs them.
            ObjectNode pod = mapper.createObjectNode().put("apiVersion", "v1").put("kind", "Pod");
            pod.setAll(pods.get(i % pods.size()).deepCopy());
            ((ObjectNode) pod.get("metadata")).put("resourceVersion", Integer.toString(1_000_000 + i));
            ObjectNode event = mapper.createObjectNode();
            event.put("type", i < pods.size() ? "ADDED" : "MODIFIED");
            event.set("object", pod);
            out.writeBytes(mapper.writeValueAsBytes(event));
            out.write('\n');
        }
        return out.toByteArray();
    }

    /** The items of a plain JSON list of pods from the server, as trees. */
    public static List<ObjectNode> listItems(EmbeddedApiServer server) throws Exception {
        HttpResponse<InputStream> r = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create(server.url() + "/api/v1/namespaces/" + NAMESPACE + "/pods"))
                                .build(),
                        HttpResponse.BodyHandlers.ofInputStream());
        JsonNode list;
        try (InputStream in = r.body()) {
            list = JsonMapper.builder().build().readTree(in);
        }
        List<ObjectNode> items = new ArrayList<>();
        for (JsonNode item : (ArrayNode) list.get("items")) {
            items.add((ObjectNode) item);
        }
        return items;
    }
}
