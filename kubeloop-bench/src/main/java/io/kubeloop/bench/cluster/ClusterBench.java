package io.kubeloop.bench.cluster;

import static io.kubeloop.bench.ProcessMeasures.arg;
import static io.kubeloop.bench.ProcessMeasures.cpuNanos;
import static io.kubeloop.bench.ProcessMeasures.intArg;
import static io.kubeloop.bench.ProcessMeasures.json;
import static io.kubeloop.bench.ProcessMeasures.seconds;
import static io.kubeloop.bench.ProcessMeasures.usedAfterGc;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.kubeloop.apiserver.EmbeddedApiServer;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.client.config.ClientConfig;
import io.kubeloop.client.resource.WatchOptions;
import io.kubeloop.client.watch.Watch;
import io.kubeloop.client.watch.WatchEvent;
import io.kubeloop.cluster.EmbeddedCluster;
import java.lang.management.ManagementFactory;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The embedded cluster's whole-process benchmark (BENCHMARKS.md, "Embedded cluster"): one JVM holding the API
 * server, N simulated nodes and the control plane, measured in three phases, one {@code RESULT {json}} line.
 *
 * <ol>
 *   <li><b>ready</b>: {@code EmbeddedCluster.start()} until every node is Ready (start() returns then), and the
 *       JVM's uptime at that moment;
 *   <li><b>pods</b>: D Deployments of R replicas each (one namespace each, one container, no resource requests)
 *       created at once; the time and process CPU from the first create until every pod is Running and Ready, seen
 *       on a watch of all pods: the whole Deployment → ReplicaSet → scheduler → kubelet chain, over HTTP;
 *   <li><b>idle</b>: after a settle period, the process CPU used over a window at rest with the default timers
 *       (node leases every 10 s, node status, the node monitor every 5 s), as a percentage of one core; then the
 *       heap after GC.
 * </ol>
 *
 * <pre>
 * java -Xmx8g -cp ... io.kubeloop.bench.cluster.ClusterBench --nodes 1000 --deployments 100 --replicas 1000 \
 *     --settle 20 --idle 60
 * </pre>
 */
public final class ClusterBench {

    private ClusterBench() {}

    public static void main(String[] args) throws Exception {
        int nodes = intArg(args, "--nodes", 1000);
        int deployments = intArg(args, "--deployments", 100);
        int replicas = intArg(args, "--replicas", 1000);
        int settleSeconds = intArg(args, "--settle", 20);
        int idleSeconds = intArg(args, "--idle", 60);
        double speed = Double.parseDouble(arg(args, "--speed", "1"));
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("nodes", nodes);
        result.put("deployments", deployments);
        result.put("replicas", replicas);
        result.put("speed", speed);

        long cpu0 = cpuNanos();
        long t0 = System.nanoTime();
        try (EmbeddedCluster cluster = EmbeddedCluster.builder()
                .apiServer(EmbeddedApiServer.builder())
                .nodes(nodes)
                .speed(speed)
                .start()) {
            long t1 = System.nanoTime();
            result.put("ready_s", seconds(t1 - t0));
            result.put("ready_cpu_s", seconds(cpuNanos() - cpu0));
            result.put("uptime_at_ready_s", ManagementFactory.getRuntimeMXBean().getUptime() / 1000.0);
            System.err.printf("ready: %d nodes in %.3f s%n", nodes, (t1 - t0) / 1e9);

            try (KubernetesClient client = KubernetesClient.create(
                    ClientConfig.builder().server(cluster.apiServer().url()).build())) {
                int total = deployments * replicas;
                if (total > 0) {
                    runPods(client, deployments, replicas, result);
                }
                Thread.sleep(TimeUnit.SECONDS.toMillis(settleSeconds)); // let the chain's last writes drain
                long idleCpu0 = cpuNanos();
                long idle0 = System.nanoTime();
                Thread.sleep(TimeUnit.SECONDS.toMillis(idleSeconds));
                double idleCpu = (cpuNanos() - idleCpu0) / 1e9;
                double idleWall = (System.nanoTime() - idle0) / 1e9;
                result.put("idle_window_s", Math.round(idleWall * 10) / 10.0);
                result.put("idle_cpu_s", Math.round(idleCpu * 1000) / 1000.0);
                result.put("idle_core_percent", Math.round(idleCpu / idleWall * 1000) / 10.0);
                result.put("heap_after_gc_mb", Math.round(usedAfterGc() / 1e5) / 10.0);
            }
        }
        System.out.println("RESULT " + json(result));
    }

    private static void runPods(KubernetesClient client, int deployments, int replicas, Map<String, Object> result)
            throws Exception {
        int total = deployments * replicas;
        Set<String> running = ConcurrentHashMap.newKeySet();
        CountDownLatch all = new CountDownLatch(1);
        var pods = client.resources(Pod.class).inAnyNamespace();
        String rv = pods.list().resourceVersion();
        Watch<Pod> watch = pods.watch(WatchOptions.builder().resourceVersion(rv).build());
        Thread counter = Thread.ofPlatform().name("bench-running-pods").start(() -> {
            for (WatchEvent<Pod> event : watch) {
                if (event instanceof WatchEvent.Change<Pod> change && isRunningAndReady(change.object())) {
                    if (running.add(change.object().getMetadata().getUid()) && running.size() >= total) {
                        all.countDown();
                    }
                }
            }
        });
        long cpu0 = cpuNanos();
        long t0 = System.nanoTime();
        for (int d = 0; d < deployments; d++) {
            String ns = "bench-" + d;
            client.resources(io.fabric8.kubernetes.api.model.Namespace.class)
                    .create(new NamespaceBuilder()
                            .withNewMetadata()
                            .withName(ns)
                            .endMetadata()
                            .build());
            client.resources(Deployment.class).inNamespace(ns).create(deployment("web", replicas));
        }
        long created = System.nanoTime();
        boolean done = all.await(30, TimeUnit.MINUTES);
        long t1 = System.nanoTime();
        watch.close();
        counter.join(5_000);
        result.put("pods", total);
        result.put("pods_running", running.size());
        result.put("pods_complete", done);
        result.put("creates_s", seconds(created - t0));
        result.put("pods_s", seconds(t1 - t0));
        result.put("pods_cpu_s", seconds(cpuNanos() - cpu0));
        result.put("pods_per_s", Math.round(running.size() / ((t1 - t0) / 1e9)));
        System.err.printf("pods: %d of %d Running in %.3f s%n", running.size(), total, (t1 - t0) / 1e9);
    }

    private static boolean isRunningAndReady(Pod pod) {
        var status = pod.getStatus();
        if (status == null || !"Running".equals(status.getPhase()) || status.getConditions() == null) {
            return false;
        }
        return status.getConditions().stream()
                .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
    }

    private static Deployment deployment(String name, int replicas) {
        return new DeploymentBuilder()
                .withNewMetadata()
                .withName(name)
                .endMetadata()
                .withNewSpec()
                .withReplicas(replicas)
                .withNewSelector()
                .addToMatchLabels("app", name)
                .endSelector()
                .withNewTemplate()
                .withNewMetadata()
                .addToLabels("app", name)
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("web")
                .withImage("nginx")
                .endContainer()
                .endSpec()
                .endTemplate()
                .endSpec()
                .build();
    }
}
