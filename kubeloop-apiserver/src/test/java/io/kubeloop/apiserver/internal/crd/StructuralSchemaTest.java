package io.kubeloop.apiserver.internal.crd;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubeloop.model.Statuses.FieldError;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

class StructuralSchemaTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private static final StructuralSchema SCHEMA = new StructuralSchema(JSON.readTree("""
            {"type":"object","properties":{"spec":{"type":"object","properties":{
              "count":{"type":"integer","minimum":1,"maximum":10},
              "ratio":{"type":"number","exclusiveMaximum":true,"maximum":1},
              "name":{"type":"string","minLength":2,"maxLength":5,"pattern":"^[a-z]+$"},
              "on":{"type":"boolean"},
              "tags":{"type":"array","maxItems":2,"items":{"type":"string"}},
              "port":{"x-kubernetes-int-or-string":true},
              "mode":{"type":"string","enum":["a","b"]},
              "opt":{"type":"string","nullable":true},
              "dflt":{"type":"string","default":"d"},
              "free":{"type":"object","x-kubernetes-preserve-unknown-fields":true},
              "closed":{"type":"object"}}}}}"""));

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "{\"count\":2.0}          | ",
                "{\"count\":2.5}          | spec.count: Invalid value: \"number\": spec.count in body must be of type integer: \"number\"",
                "{\"count\":0}            | spec.count: Invalid value: 0: spec.count in body should be greater than or equal to 1",
                "{\"count\":11}           | spec.count: Invalid value: 11: spec.count in body should be less than or equal to 10",
                "{\"ratio\":1}            | spec.ratio: Invalid value: 1: spec.ratio in body should be less than 1",
                "{\"ratio\":0.5}          | ",
                "{\"name\":\"abcdef\"}    | spec.name: Too long: may not be more than 5 bytes",
                "{\"name\":\"a\"}         | spec.name: Invalid value: \"a\": spec.name in body should be at least 2 chars long",
                "{\"name\":\"AB\"}        | spec.name: Invalid value: \"AB\": spec.name in body should match '^[a-z]+$'",
                "{\"on\":\"yes\"}         | spec.on: Invalid value: \"string\": spec.on in body must be of type boolean: \"string\"",
                "{\"tags\":[\"a\",1]}     | spec.tags[1]: Invalid value: \"integer\": spec.tags[1] in body must be of type string: \"integer\"",
                "{\"tags\":[\"a\",\"b\",\"c\"]} | spec.tags: Too many: 3: must have at most 2 items",
                "{\"port\":\"http\"}      | ",
                "{\"port\":8080}          | ",
                "{\"port\":[1]}           | spec.port: Invalid value: \"array\": spec.port in body must be of type integer,string: \"array\"",
                "{\"mode\":\"c\"}         | spec.mode: Unsupported value: \"c\": supported values: \"a\", \"b\"",
                "{\"opt\":null}           | ",
                "{\"free\":{\"x\":[1]}}   | ",
            })
    void validatesWithKubesMessages(String spec, String expected) {
        ObjectNode object = JSON.createObjectNode();
        object.set("spec", JSON.readTree(spec));
        SCHEMA.prune(object);
        List<String> errors = SCHEMA.validate(object).stream()
                .map(e -> e.field() + ": " + (e.detail().isEmpty() ? e.type() : e.type() + ": " + e.detail()))
                .toList();
        if (expected == null) {
            assertThat(errors).isEmpty();
        } else {
            assertThat(errors).containsExactly(expected);
        }
    }

    @Test
    void pruningDropsUnknownFieldsAndNonNullableNullsAndFillsDefaults() {
        ObjectNode object = (ObjectNode) JSON.readTree("""
                {"apiVersion":"x/v1","kind":"K","metadata":{"name":"n","extra":1},"top":1,
                 "spec":{"unknown":1,"name":null,"opt":null,"free":{"kept":{"deep":1}},"closed":{"gone":1},
                  "dflt":null}}""");
        List<String> unknown = SCHEMA.prune(object);
        assertThat(unknown).containsExactlyInAnyOrder("metadata.extra", "top", "spec.unknown", "spec.closed.gone");
        assertThat(object.toString())
                .isEqualTo("{\"apiVersion\":\"x/v1\",\"kind\":\"K\",\"metadata\":{\"name\":\"n\"},"
                        + "\"spec\":{\"opt\":null,\"free\":{\"kept\":{\"deep\":1}},\"closed\":{},\"dflt\":\"d\"}}");
    }

    @Test
    void schemasThatAreNotStructuralAreNamed() {
        JsonNode schema = JSON.readTree("""
                {"type":"object","properties":{"spec":{"properties":{"a":{"type":"string"}}},
                 "list":{"type":"array"},
                 "both":{"type":"object","properties":{},"additionalProperties":{"type":"string"}}}}""");
        List<FieldError> errors = StructuralSchema.structuralErrors(schema, "s");
        assertThat(errors.stream()
                        .map(e -> e.field() + ": " + e.type() + ": " + e.detail())
                        .toList())
                .containsExactlyInAnyOrder(
                        "s.properties[spec].type: Required value: must not be empty for specified object fields",
                        "s.properties[list].items: Required value: must be specified",
                        "s.properties[both].additionalProperties: Forbidden: additionalProperties and properties are "
                                + "mutual exclusive");
        assertThat(StructuralSchema.structuralErrors(JSON.readTree("{\"type\":\"string\"}"), "s")
                        .getFirst()
                        .detail())
                .isEqualTo("\"string\": must be object at the root");
    }
}
