package io.kubeloop.apiserver.internal.table;

import static io.kubeloop.apiserver.internal.table.TestObjects.JSON;
import static io.kubeloop.apiserver.internal.table.TestObjects.NOW;
import static io.kubeloop.apiserver.internal.table.TestObjects.object;
import static io.kubeloop.apiserver.internal.table.TestObjects.parse;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kubeloop.clock.FakeClock;
import io.kubeloop.model.ResourceRegistry;
import io.kubeloop.model.ResourceType;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** The Table JSON around the cells: metadata, columns, row objects, watch headers. */
class TablesTest {

    private final Tables tables = new Tables(JSON, new FakeClock(NOW));
    private final ResourceType pods = type("", "pods");
    private final ResourceType deployments = type("apps", "deployments");

    private static ResourceType type(String group, String plural) {
        return ResourceRegistry.builtIn().types().stream()
                .filter(t -> t.group().equals(group) && t.plural().equals(plural))
                .findFirst()
                .orElseThrow();
    }

    private ObjectNode podList() {
        ObjectNode list = parse("{\"kind\":\"PodList\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\"42\","
                + "\"continue\":\"abc\",\"remainingItemCount\":3},\"items\":[]}");
        ObjectNode pod = object("web", "\"spec\":{\"containers\":[{\"name\":\"app\"}]}");
        ((ObjectNode) pod.get("metadata")).putObject("labels").put("app", "web");
        list.withArray("items").add(pod);
        return list;
    }

    @Test
    void listTable() {
        JsonNode table = tables.ofList(pods, podList(), TableOptions.of("v1", null));
        assertThat(table.get("kind").asString()).isEqualTo("Table");
        assertThat(table.get("apiVersion").asString()).isEqualTo("meta.k8s.io/v1");
        assertThat(table.get("metadata").toString())
                .isEqualTo("{\"resourceVersion\":\"42\",\"continue\":\"abc\",\"remainingItemCount\":3}");
        JsonNode name = table.get("columnDefinitions").get(0);
        assertThat(name.get("name").asString()).isEqualTo("Name");
        assertThat(name.get("type").asString()).isEqualTo("string");
        assertThat(name.get("format").asString()).isEqualTo("name");
        assertThat(name.get("description").asString()).startsWith("Name must be unique within a namespace.");
        assertThat(name.get("priority").asInt()).isZero();
        assertThat(table.get("columnDefinitions")).hasSize(9);
        JsonNode row = table.get("rows").get(0);
        assertThat(row.get("cells").toString())
                .isEqualTo("[\"web\",\"0/1\",\"Pending\",\"0\",\"5m\",\"<none>\",\"<none>\",\"<none>\",\"<none>\"]");
        assertThat(row.get("object").get("kind").asString()).isEqualTo("PartialObjectMetadata");
        assertThat(row.get("object").get("apiVersion").asString()).isEqualTo("meta.k8s.io/v1");
        assertThat(row.get("object").get("metadata").get("labels").get("app").asString())
                .isEqualTo("web");
        assertThat(row.get("object").get("metadata").get("namespace").asString())
                .isEqualTo("default");
        assertThat(row.has("conditions")).isFalse();
    }

    @Test
    void includeObjectVariants() {
        JsonNode none = tables.ofList(pods, podList(), TableOptions.of("v1", "None"))
                .get("rows")
                .get(0);
        assertThat(none.get("object").isNull()).isTrue();
        JsonNode whole = tables.ofList(pods, podList(), TableOptions.of("v1", "Object"))
                .get("rows")
                .get(0);
        assertThat(whole.get("object").get("kind").asString()).isEqualTo("Pod");
        assertThat(whole.get("object").get("apiVersion").asString()).isEqualTo("v1");
        assertThat(whole.get("object")
                        .get("spec")
                        .get("containers")
                        .get(0)
                        .get("name")
                        .asString())
                .isEqualTo("app");
        JsonNode beta = tables.ofList(pods, podList(), TableOptions.of("v1beta1", "Metadata"));
        assertThat(beta.get("apiVersion").asString()).isEqualTo("meta.k8s.io/v1beta1");
        assertThat(beta.get("rows").get(0).get("object").get("apiVersion").asString())
                .isEqualTo("meta.k8s.io/v1beta1");
        assertThatThrownBy(() -> TableOptions.of("v1", "Everything"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Unable to convert to Table as requested: includeObject: Invalid value: \"Everything\": "
                        + "must be 'Metadata', 'Object', 'None', or empty");
    }

    @Test
    void singleObjectTableCarriesItsResourceVersion() {
        ObjectNode deployment = object("web", "\"spec\":{\"replicas\":2},\"status\":{\"readyReplicas\":2}");
        ((ObjectNode) deployment.get("metadata")).put("resourceVersion", "17");
        JsonNode table = tables.ofObject(deployments, deployment, TableOptions.of("v1", ""), true);
        assertThat(table.get("metadata").toString()).isEqualTo("{\"resourceVersion\":\"17\"}");
        assertThat(table.get("rows")).hasSize(1);
        assertThat(table.get("rows").get(0).get("cells").get(1).asString()).isEqualTo("2/2");
        assertThat(table.get("rows").get(0).get("cells").get(2).isNumber()).isTrue();
    }

    @Test
    void scaleSubresourceGetsTheScaleTable() {
        ObjectNode scale = parse(
                "{\"kind\":\"Scale\",\"apiVersion\":\"autoscaling/v1\",\"metadata\":{\"name\":\"web\","
                        + "\"creationTimestamp\":\"2026-01-01T00:55:00Z\"},\"spec\":{\"replicas\":3},\"status\":{\"replicas\":2}}");
        JsonNode table = tables.ofObject(deployments, scale, TableOptions.of("v1", null), true);
        assertThat(table.get("columnDefinitions"))
                .extracting(c -> c.get("name").asString())
                .containsExactly("Name", "Desired", "Available", "Age");
        assertThat(table.get("rows").get(0).get("cells").toString()).isEqualTo("[\"web\",3,2,\"5m\"]");
    }

    @Test
    void finishedPodRowHasConditions() {
        ObjectNode pod = object(
                "job-x", "\"spec\":{\"containers\":[{\"name\":\"c\"}]},\"status\":{\"phase\":" + "\"Succeeded\"}");
        JsonNode row = tables.ofObject(pods, pod, TableOptions.of("v1", null), true)
                .get("rows")
                .get(0);
        assertThat(row.get("conditions").toString())
                .isEqualTo("[{\"type\":\"Completed\",\"status\":\"True\","
                        + "\"reason\":\"Succeeded\",\"message\":\"The pod has completed successfully.\"}]");
    }

    @Test
    void watchSendsColumnDefinitionsOnTheFirstEventOnly() {
        UnaryOperator<ObjectNode> watch = tables.forWatch(pods, TableOptions.of("v1", null));
        JsonNode first = watch.apply(object("a", ""));
        JsonNode second = watch.apply(object("b", ""));
        assertThat(first.get("columnDefinitions")).hasSize(9);
        assertThat(second.get("columnDefinitions").isNull()).isTrue();
        assertThat(second.get("rows").get(0).get("cells").get(0).asString()).isEqualTo("b");
        ObjectNode status = parse("{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"code\":410}");
        assertThat(watch.apply(status)).isSameAs(status);
    }

    @Test
    void kindsWithoutAPrinterGetNameAndCreatedAt() {
        ResourceType custom = new ResourceType(
                new io.kubeloop.model.GroupVersionKind("example.com", "v1", "Widget"),
                "widgets",
                "widget",
                true,
                java.util.List.of(),
                java.util.List.of(),
                ResourceType.ALL_VERBS,
                java.util.Set.of());
        JsonNode table = tables.ofObject(custom, object("w", ""), TableOptions.of("v1", null), true);
        assertThat(table.get("columnDefinitions"))
                .extracting(c -> c.get("name").asString() + ":" + c.get("type").asString())
                .containsExactly("Name:string", "Created At:date");
        assertThat(table.get("rows").get(0).get("cells").toString()).isEqualTo("[\"w\",\"2026-01-01T00:55:00Z\"]");
    }
}
