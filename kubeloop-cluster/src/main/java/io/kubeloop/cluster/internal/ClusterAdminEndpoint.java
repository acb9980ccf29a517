package io.kubeloop.cluster.internal;

import io.kubeloop.apiserver.AdminEndpoint;
import io.kubeloop.cluster.EmbeddedCluster;
import io.kubeloop.cluster.SimulatedNode;
import java.time.Duration;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.stream.Collectors;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The cluster's admin path {@code /kubeloop/cluster}, served by the API server next to {@code /kubeloop/faults}
 * (administrators only); the {@code kubeloop node}, {@code pod} and {@code controllers} commands use it.
 *
 * <pre>
 * GET  /kubeloop/cluster                          the speed, the nodes and the controllers' state
 * GET  /kubeloop/cluster/nodes                    {"items": [{"name", "zone", "state"}, …]}
 * GET  /kubeloop/cluster/nodes/NAME               one node
 * POST /kubeloop/cluster/nodes/NAME/stop          stop its kubelet
 * POST /kubeloop/cluster/nodes/NAME/start         start it again (also ends a partition)
 * POST /kubeloop/cluster/nodes/NAME/partition     cut it off from the server, for ?seconds=S (or {"seconds": S})
 *                                                 of cluster time, or until started
 * POST /kubeloop/cluster/pods/NAMESPACE/NAME/crash  crash the pod's containers, as its kubelet would report it
 * POST /kubeloop/cluster/controllers/restart      restart the controllers and the scheduler
 * </pre>
 *
 * Each answers a JSON object; an unknown node or pod is a 404 naming it, a bad argument a 400, a known path with
 * another method a 405. Made before the server starts (the server takes it at build time) and attached to the
 * cluster once that runs; until then every call answers that the cluster is starting.
 */
public final class ClusterAdminEndpoint implements AdminEndpoint {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    /** What "partition without --seconds" means: until the node is started again (a century of cluster time). */
    static final Duration UNTIL_STARTED = Duration.ofDays(36_500);

    private volatile EmbeddedCluster cluster;
    private volatile ControlPlane controlPlane;

    /** Serves {@code cluster} from now on. */
    public void attach(EmbeddedCluster cluster, ControlPlane controlPlane) {
        this.controlPlane = controlPlane;
        this.cluster = cluster;
    }

    @Override
    public String handle(String method, String subpath, Map<String, String> query, String body) {
        EmbeddedCluster c = cluster;
        if (c == null) {
            throw new IllegalStateException("the cluster is starting");
        }
        String[] p = subpath.isEmpty() ? new String[0] : subpath.substring(1).split("/", -1);
        if (p.length == 0) {
            requireMethod("GET", method, subpath);
            ObjectNode answer = JSON.createObjectNode();
            answer.put("speed", c.timings().speed());
            answer.set("nodes", nodes(c));
            ObjectNode controllers = answer.putObject("controllers");
            controllers.put("generation", controlPlane.generation());
            String problems = controlPlane.problems();
            controllers.put("healthy", problems == null);
            if (problems != null) {
                controllers.put("problems", problems);
            }
            return answer.toString();
        }
        switch (p[0]) {
            case "nodes" -> {
                if (p.length == 1) {
                    requireMethod("GET", method, subpath);
                    ObjectNode answer = JSON.createObjectNode();
                    answer.set("items", nodes(c));
                    return answer.toString();
                }
                SimulatedNode node = node(c, p[1]);
                if (p.length == 2) {
                    requireMethod("GET", method, subpath);
                    return describe(node).toString();
                }
                if (p.length == 3) {
                    requireMethod("POST", method, subpath);
                    try {
                        switch (p[2]) {
                            case "stop" -> node.stop();
                            case "start" -> node.start();
                            case "partition" -> node.partition(partitionDuration(query, body));
                            default -> throw unknown(subpath);
                        }
                    } catch (IllegalStateException notNow) { // e.g. partitioning a stopped node: the caller's error
                        throw new IllegalArgumentException(notNow.getMessage(), notNow);
                    }
                    return describe(node).toString();
                }
            }
            case "pods" -> {
                if (p.length == 4 && "crash".equals(p[3])) {
                    requireMethod("POST", method, subpath);
                    try {
                        c.crashContainer(p[1], p[2]);
                    } catch (IllegalStateException notNow) { // the pod's node is stopped, say
                        throw new IllegalArgumentException(notNow.getMessage(), notNow);
                    }
                    return JSON.createObjectNode()
                            .put("namespace", p[1])
                            .put("name", p[2])
                            .put("crashed", true)
                            .toString();
                }
            }
            case "controllers" -> {
                if (p.length == 2 && "restart".equals(p[1])) {
                    requireMethod("POST", method, subpath);
                    c.restartControllers();
                    return JSON.createObjectNode()
                            .put("generation", controlPlane.generation())
                            .toString();
                }
            }
            default -> {}
        }
        throw unknown(subpath);
    }

    private static NoSuchElementException unknown(String subpath) {
        return new NoSuchElementException("no cluster operation /kubeloop/cluster" + subpath
                + " (GET nodes, GET nodes/NAME, POST nodes/NAME/stop|start|partition, POST pods/NAMESPACE/NAME/crash, "
                + "POST controllers/restart)");
    }

    private static void requireMethod(String wanted, String method, String subpath) {
        if (!wanted.equals(method)) {
            throw new UnsupportedOperationException(
                    method + " is not allowed on /kubeloop/cluster" + subpath + ", only " + wanted);
        }
    }

    private static SimulatedNode node(EmbeddedCluster c, String name) {
        try {
            return c.node(name);
        } catch (NoSuchElementException e) {
            throw new NoSuchElementException("node \"" + name + "\" not found; the cluster's nodes are "
                    + c.nodes().stream().map(SimulatedNode::name).collect(Collectors.joining(", ")));
        }
    }

    private static ArrayNode nodes(EmbeddedCluster c) {
        ArrayNode items = JSON.createArrayNode();
        for (SimulatedNode n : c.nodes()) {
            items.add(describe(n));
        }
        return items;
    }

    private static ObjectNode describe(SimulatedNode n) {
        return JSON.createObjectNode()
                .put("name", n.name())
                .put("zone", n.zone())
                .put("state", n.state().name());
    }

    /** {@code ?seconds=S} or {@code {"seconds": S}}: a positive number of cluster seconds; neither: until started. */
    static Duration partitionDuration(Map<String, String> query, String body) {
        String given = query.get("seconds");
        if (given == null && body != null && !body.isBlank()) {
            JsonNode tree;
            try {
                tree = JSON.readTree(body);
            } catch (JacksonException e) {
                throw new IllegalArgumentException("the body is not JSON: " + e.getOriginalMessage());
            }
            JsonNode s = tree.path("seconds");
            if (!s.isMissingNode() && !s.isNull()) {
                if (!s.isNumber()) {
                    throw new IllegalArgumentException("seconds must be a number, was " + s);
                }
                given = s.asString();
            }
        }
        if (given == null) {
            return UNTIL_STARTED;
        }
        double seconds;
        try {
            seconds = Double.parseDouble(given);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("seconds must be a number, was \"" + given + "\"");
        }
        if (!(seconds > 0) || seconds > UNTIL_STARTED.toSeconds()) {
            throw new IllegalArgumentException(
                    "seconds must be a positive number of cluster seconds (at most a century), was " + given);
        }
        return Duration.ofNanos((long) (seconds * 1e9));
    }
}
