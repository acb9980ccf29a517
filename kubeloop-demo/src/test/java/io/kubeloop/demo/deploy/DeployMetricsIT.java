package io.kubeloop.demo.deploy;

import static io.kubeloop.demo.deploy.DeployFiles.MONITORING;
import static io.kubeloop.demo.deploy.DeployFiles.NAME;
import static io.kubeloop.testsupport.TestThreads.eventually;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.kubeloop.apiserver.EmbeddedApiServer;
import io.kubeloop.apiserver.fault.Failure;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.client.config.ClientConfig;
import io.kubeloop.client.resource.ListOptions;
import io.kubeloop.controller.Manager;
import io.kubeloop.demo.PodGuardian;
import io.kubeloop.demo.PodSet;
import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * The monitoring files ask only for metrics pod-guardian really exports: the operator runs as {@code kubeloop run
 * --leader-election} builds it, against the embedded API server, reconciles a PodSet and a Deployment, and sits
 * through a compaction, closed watches and a failed list (so that the relist, watch-restart and failure series
 * exist, as they do once a real cluster has misbehaved); its {@code /metrics} is scraped over HTTP, and every metric
 * name in the PrometheusRule's expressions, the dashboard's queries and {@code docs/operations.md} must be among the
 * scraped ones.
 */
class DeployMetricsIT {

    /** Metric names as docs/operations.md writes them: the prefixes of kubeloop's and the operator's meters. */
    private static final Pattern DOC_METRIC = Pattern.compile(
            "\\b(?:workqueue|controller_runtime|reconcile|reflector|informer|cache|api_request|leader_election"
                    + "|replica_audit|kubeloop|rest_client)_[a-z0-9_]*[a-z0-9]\\b");

    @TempDir
    static Path dir;

    private static EmbeddedApiServer server;
    private static KubernetesClient admin;
    private static KubernetesClient operatorClient;
    private static Manager operator;
    /** Sample names (x_bucket, x_count, ...) and family names (# TYPE lines) of the scrape. */
    private static Set<String> exported;

    @BeforeAll
    static void runTheOperatorThroughTroubleAndScrapeIt() {
        server = EmbeddedApiServer.builder().start();
        ClientConfig config = ClientConfig.fromKubeconfig(server.writeKubeconfig(dir.resolve("kubeconfig")));
        admin = KubernetesClient.create(config);
        operatorClient = KubernetesClient.create(config);
        admin.resources(CustomResourceDefinition.class).create(PodGuardian.crd());
        Workloads.namespace(admin, NAME);
        Workloads.namespace(admin, "shop");
        operator = PodGuardian.builder(operatorClient)
                .leaderElection(NAME)
                .identity("scraped")
                .bindAddress(InetAddress.getLoopbackAddress())
                .metricsPort(0)
                .healthProbePort(0)
                .auditThreshold(Duration.ofMillis(200))
                .build();
        operator.start();
        eventually().atMost(Duration.ofSeconds(20)).until(operator::isLeader);
        eventually().ignoreExceptions().untilAsserted(() -> admin.resources(PodSet.class)
                .inNamespace("shop")
                .create(Workloads.podSet("web", 2)));
        admin.resources(Deployment.class).inNamespace("shop").create(Workloads.deployment("api", 2));
        eventually().atMost(Duration.ofSeconds(20)).until(() -> pods("web").size() == 2);
        admin.resources(Pod.class).inNamespace("shop").delete(pods("web").getFirst());
        eventually().atMost(Duration.ofSeconds(20)).until(() -> scrape().contains("replica_audit_warnings_total"));

        // trouble: the pod watch ends while its resourceVersion is compacted away (410 → relist), and the first
        // relist and the next watch fail with 500 (api_request_failures; the client retries 503 itself)
        admin.resources(io.fabric8.kubernetes.api.model.ConfigMap.class)
                .inNamespace("shop")
                .create(new ConfigMapBuilder()
                        .withNewMetadata()
                        .withName("moves-the-revision")
                        .endMetadata()
                        .build());
        server.faults().compact();
        server.faults().fail(Failure.status(500).count(1).resource("pods").verb("list"));
        server.faults().fail(Failure.status(500).count(1).resource("pods").verb("watch"));
        server.faults().closeWatches("pods");
        eventually().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(names(scrape()))
                .contains("reflector_relists_total", "api_request_failures", "reflector_watch_restarts_total"));
        exported = names(scrape());
        System.out.println("DeployMetricsIT: the operator exports " + exported.size() + " metric names");
    }

    @AfterAll
    static void stop() {
        if (operator != null) {
            operator.close();
        }
        if (operatorClient != null) {
            operatorClient.close();
        }
        if (admin != null) {
            admin.close();
        }
        if (server != null) {
            server.close();
        }
    }

    private static List<String> pods(String podSet) {
        return admin
                .resources(Pod.class)
                .inNamespace("shop")
                .list(ListOptions.builder()
                        .labelSelector(PodSet.NAME_LABEL + "=" + podSet)
                        .build())
                .items()
                .stream()
                .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
                .map(p -> p.getMetadata().getName())
                .toList();
    }

    private static String scrape() {
        var answer = Workloads.get(operator.metricsPort(), "/metrics");
        assertThat(answer.statusCode()).isEqualTo(200);
        return answer.body();
    }

    /** The sample names of a Prometheus text exposition, and the family names of its TYPE lines. */
    static Set<String> names(String exposition) {
        Set<String> names = new TreeSet<>();
        for (String line : exposition.split("\n")) {
            if (line.startsWith("# TYPE ")) {
                names.add(line.split(" ")[2]);
            } else if (!line.isBlank() && !line.startsWith("#")) {
                int end = line.length();
                for (char c : new char[] {'{', ' '}) {
                    int at = line.indexOf(c);
                    if (at >= 0 && at < end) {
                        end = at;
                    }
                }
                names.add(line.substring(0, end));
            }
        }
        return names;
    }

    /** expr → its metric names that the scrape lacks, for every expr that lacks any. */
    private static Map<String, Set<String>> missing(List<String> exprs) {
        Map<String, Set<String>> missing = new LinkedHashMap<>();
        for (String expr : exprs) {
            Set<String> lacking = new TreeSet<>(PromQl.metricNames(expr));
            lacking.removeAll(exported);
            if (!lacking.isEmpty()) {
                missing.put(expr, lacking);
            }
        }
        return missing;
    }

    @Test
    void theSeedsMetricsAndTheOperatorsOwnAreExported() {
        assertThat(exported)
                .contains(
                        "workqueue_depth",
                        "reconcile_duration_seconds_bucket",
                        "cache_resync_count",
                        "api_request_failures",
                        "controller_runtime_reconcile_errors_total",
                        "leader_election_master_status",
                        "informer_cache_objects",
                        "replica_audit_warnings_total",
                        "replica_audit_unready_deployments");
    }

    @Test
    void everyAlertReadsOnlyExportedMetrics() {
        JsonNode rule = DeployFiles.document(MONITORING.resolve("prometheusrule.yaml"), "PrometheusRule");
        assertThat(rule.path("apiVersion").asString()).isEqualTo("monitoring.coreos.com/v1");
        List<String> exprs = new ArrayList<>();
        Set<String> alerts = new TreeSet<>();
        for (JsonNode group : rule.path("spec").path("groups")) {
            assertThat(group.path("name").asString()).isNotEmpty();
            for (JsonNode r : group.path("rules")) {
                assertThat(r.path("alert").asString())
                        .as("every rule is an alert")
                        .isNotEmpty();
                assertThat(alerts.add(r.path("alert").asString()))
                        .as("alert names are unique")
                        .isTrue();
                assertThat(r.path("labels").path("severity").asString()).isNotEmpty();
                assertThat(r.path("annotations").path("summary").asString()).isNotEmpty();
                exprs.add(r.path("expr").asString());
            }
        }
        assertThat(exprs).hasSizeGreaterThanOrEqualTo(5).allSatisfy(e -> assertThat(PromQl.metricNames(e))
                .isNotEmpty());
        assertThat(missing(exprs))
                .as("metric names the operator does not export")
                .isEmpty();
        // the issue's five patterns
        assertThat(String.join("\n", exprs))
                .contains(
                        "increase(controller_runtime_reconcile_errors_total",
                        "reflector_last_event_timestamp_seconds",
                        "api_request_failures",
                        "workqueue_depth",
                        "leader_election_master_status{name=\"pod-guardian\"}) < 1");
    }

    @Test
    void everyDashboardQueryReadsOnlyExportedMetrics() {
        JsonNode dashboard = DeployFiles.JSON.readTree(DeployFiles.read(DeployFiles.DASHBOARD));
        List<String> exprs = new ArrayList<>();
        dashboard.findValues("expr").forEach(e -> exprs.add(e.asString()));
        for (JsonNode variable : dashboard.path("templating").path("list")) {
            if (variable.path("type").asString().equals("query")) {
                JsonNode query = variable.path("query");
                exprs.add(query.isObject() ? query.path("query").asString() : query.asString());
            }
        }
        assertThat(exprs).hasSizeGreaterThanOrEqualTo(20);
        assertThat(missing(exprs))
                .as("metric names the operator does not export")
                .isEmpty();
        Set<String> read = new TreeSet<>();
        exprs.forEach(e -> read.addAll(PromQl.metricNames(e)));
        // the issue's panels: queue depth and latency, reconcile rate, duration and errors, cache objects,
        // relists and watch restarts, leader
        assertThat(read)
                .contains(
                        "workqueue_depth",
                        "workqueue_queue_duration_seconds_bucket",
                        "controller_runtime_reconcile_total",
                        "reconcile_duration_seconds_bucket",
                        "controller_runtime_reconcile_errors_total",
                        "informer_cache_objects",
                        "reflector_relists_total",
                        "reflector_watch_restarts_total",
                        "leader_election_master_status");
    }

    @Test
    void everyMetricTheOperationsGuideNamesIsExported() {
        String guide = DeployFiles.read(DeployFiles.OPERATIONS);
        Set<String> named = new TreeSet<>();
        Matcher m = DOC_METRIC.matcher(guide);
        while (m.find()) {
            named.add(m.group());
        }
        assertThat(named).hasSizeGreaterThanOrEqualTo(10);
        named.removeAll(exported);
        assertThat(named)
                .as("metric names in docs/operations.md that the operator does not export")
                .isEmpty();
    }
}
