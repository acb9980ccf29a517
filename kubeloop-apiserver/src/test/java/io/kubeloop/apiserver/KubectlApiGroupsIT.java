package io.kubeloop.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubeloop.testsupport.Kubectl.Result;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * kubectl 1.32 on the API groups of issue 17: {@code kubectl create job|cronjob|ingress|pdb} (typed clients,
 * protobuf bodies), {@code kubectl get} with kube's columns, {@code kubectl describe}, {@code create job --from} a
 * CronJob, and {@code kubectl drain} evicting through {@code pods/eviction} as a PodDisruptionBudget allows.
 * One server for the class.
 */
class KubectlApiGroupsIT {

    static EmbeddedApiServer server;
    static ApiClient api;
    static Kubectl kubectl;

    @TempDir
    static Path dir;

    @BeforeAll
    static void start() throws Exception {
        Kubectl.assumeInstalled();
        server = EmbeddedApiServer.builder().start();
        api = new ApiClient(server.url());
        kubectl = new Kubectl(server, dir);
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void createGetAndDescribeJobsCronJobsIngressesAndBudgets() throws Exception {
        kubectl.run("create", "namespace", "k").ok();
        kubectl.run("create", "job", "pi", "-n", "k", "--image=perl:5.34", "--", "perl", "-e", "print 1")
                .ok();
        kubectl.run(
                        "create",
                        "cronjob",
                        "nightly",
                        "-n",
                        "k",
                        "--image=busybox:1.36",
                        "--schedule=*/5 * * * *",
                        "--",
                        "date")
                .ok();
        kubectl.run("create", "job", "manual", "-n", "k", "--from=cronjob/nightly")
                .ok();
        kubectl.run("create", "ingress", "web", "-n", "k", "--class=nginx", "--rule=shop.example.com/*=web:80")
                .ok();
        kubectl.run("create", "pdb", "web", "-n", "k", "--selector=app=web", "--min-available=1")
                .ok();

        JsonNode pi = api.get("/apis/batch/v1/namespaces/k/jobs/pi").body();
        assertThat(pi.at("/spec/template/spec/restartPolicy").asString()).isEqualTo("Never");
        assertThat(pi.at("/spec/selector/matchLabels/batch.kubernetes.io~1controller-uid")
                        .asString())
                .isEqualTo(pi.at("/metadata/uid").asString());
        JsonNode manual = api.get("/apis/batch/v1/namespaces/k/jobs/manual").body();
        assertThat(manual.at("/metadata/annotations/cronjob.kubernetes.io~1instantiate")
                        .asString())
                .isEqualTo("manual");
        assertThat(api.get("/apis/networking.k8s.io/v1/namespaces/k/ingresses/web")
                        .body()
                        .at("/spec/rules/0/http/paths/0/pathType")
                        .asString())
                .isEqualTo("Prefix");

        // One get of four kinds: kubectl prints one table per kind, each with kube's columns.
        String tables =
                kubectl.run("get", "jobs,cj,ing,pdb", "-n", "k").ok().out().replaceAll("[ \\t]+", " ");
        assertThat(tables)
                .contains("NAME STATUS COMPLETIONS DURATION AGE")
                .containsPattern("job.batch/pi Running 0/1 ")
                .contains("NAME SCHEDULE TIMEZONE SUSPEND ACTIVE LAST SCHEDULE AGE")
                .containsPattern("cronjob.batch/nightly \\*/5 \\* \\* \\* \\* <none> False 0 <none> ")
                .contains("NAME CLASS HOSTS ADDRESS PORTS AGE")
                .containsPattern("ingress.networking.k8s.io/web nginx shop.example.com 80 ")
                .contains("NAME MIN AVAILABLE MAX UNAVAILABLE ALLOWED DISRUPTIONS AGE")
                .containsPattern("poddisruptionbudget.policy/web 1 N/A 0 ");

        String described = kubectl.run("describe", "job/pi", "cronjob/nightly", "ingress/web", "pdb/web", "-n", "k")
                .ok()
                .out();
        assertThat(described)
                .contains("Completions:", "Pods Statuses:", "perl:5.34")
                .contains("Schedule:", "*/5 * * * *", "Concurrency Policy:", "Allow")
                .contains("shop.example.com", "web:80")
                .contains("Min available:", "app=web");

        Result badSchedule =
                kubectl.run("create", "cronjob", "bad", "-n", "k", "--image=busybox", "--schedule=61 * * * *");
        assertThat(badSchedule.exit()).isNotZero();
        assertThat(badSchedule.err())
                .contains("spec.schedule: Invalid value: \"61 * * * *\": end of range (61) above maximum (59): 61");
    }

    /**
     * kubectl drain cordons the node and evicts its pods through {@code pods/eviction}; the budget (one of two pods
     * must stay available) allows this one eviction. (A refused eviction makes kubectl retry after 5 s, too slow
     * for this suite: the 429 itself is asserted over HTTP in {@link ApiGroupsIT}.)
     */
    @Test
    void drainEvictsThroughTheEvictionSubresourceWhenTheDisruptionBudgetAllowsIt() throws Exception {
        kubectl.run("create", "namespace", "d").ok();
        for (int i = 1; i <= 2; i++) {
            api.create("/api/v1/nodes", "{\"metadata\":{\"name\":\"node-" + i + "\"}}");
            api.create("/api/v1/namespaces/d/pods", """
                    {"metadata":{"name":"db-%d","labels":{"app":"db"}},"spec":{"nodeName":"node-%d",
                      "terminationGracePeriodSeconds":0,"containers":[{"name":"db","image":"postgres:16"}]}}""".formatted(i, i));
            ApiClient.Reply status = api.request(
                    "PATCH",
                    "/api/v1/namespaces/d/pods/db-" + i + "/status",
                    "application/merge-patch+json",
                    "{\"status\":{\"phase\":\"Running\",\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}]}}");
            assertThat(status.code()).as(status.raw()).isEqualTo(200);
        }
        kubectl.run("create", "pdb", "db", "-n", "d", "--selector=app=db", "--min-available=1")
                .ok();

        Result drain = kubectl.run("drain", "node-1", "--force", "--ignore-daemonsets", "--timeout=10s")
                .ok();
        assertThat(drain.out()).contains("node/node-1 cordoned", "pod/db-1 evicted", "node/node-1 drained");
        assertThat(api.get("/api/v1/namespaces/d/pods/db-1").code()).isEqualTo(404);
        assertThat(api.get("/api/v1/namespaces/d/pods/db-2").code()).isEqualTo(200);
        assertThat(api.get("/api/v1/nodes/node-1")
                        .body()
                        .at("/spec/unschedulable")
                        .asBoolean())
                .isTrue();
    }
}
