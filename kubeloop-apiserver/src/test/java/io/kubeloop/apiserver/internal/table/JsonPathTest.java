package io.kubeloop.apiserver.internal.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

class JsonPathTest {

    private static final JsonNode OBJECT = JsonMapper.builder().build().readTree("""
            {"metadata":{"name":"w","labels":{"app.kubernetes.io/name":"web"}},
             "spec":{"replicas":3,"ports":[{"port":80},{"port":443}]},
             "status":{"conditions":[{"type":"Synced","status":"False"},{"type":"Ready","status":"True"}]}}""");

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                ".spec.replicas                                  | [3]",
                "{.spec.replicas}                                | [3]",
                ".spec.ports[0].port                             | [80]",
                ".spec.ports[-1].port                            | [443]",
                ".spec.ports[*].port                             | [80, 443]",
                ".spec.ports[5].port                             | []",
                ".status.conditions[?(@.type==\"Ready\")].status | [\"True\"]",
                ".status.conditions[?(@.type=='Synced')].status  | [\"False\"]",
                ".status.conditions[?(@.type==\"Gone\")].status  | []",
                ".metadata.labels.app\\.kubernetes\\.io/name     | [\"web\"]",
                ".metadata.labels['app.kubernetes.io/name']      | [\"web\"]",
                ".spec.missing.deeper                            | []",
            })
    void findsWhatKubectlFinds(String path, String expected) {
        List<JsonNode> found = JsonPath.parse(path).find(OBJECT);
        assertThat(found.toString()).isEqualTo(expected);
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "spec.replicas         | must be a simple json path starting with . or [",
                ".spec[                | unclosed [",
                ".spec[abc]            | unsupported subscript [abc]",
                ".a[?(@.x>1)]          | only [?(@.field==\"value\")] is supported",
                ".spec..replicas       | empty field name",
            })
    void rejectsWhatItCannotEvaluateSayingWhy(String path, String message) {
        assertThatThrownBy(() -> JsonPath.parse(path))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(message);
        assertThat(PrinterColumn.jsonPathError(path)).contains(message);
    }
}
