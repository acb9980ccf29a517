package io.kubeloop.model;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Status;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

class StatusesTest {

    private final JsonMapper json = JsonMapper.builder().build();

    @Test
    void notFoundIsWordedAndShapedLikeKubeApiserver() {
        Status s = Statuses.notFound("", "pods", "x");
        assertThat(json.readTree(json.writeValueAsString(s)))
                .isEqualTo(json.readTree(
                        "{\"apiVersion\":\"v1\",\"code\":404,\"details\":{\"group\":\"\",\"kind\":\"pods\",\"name\":\"x\"},"
                                + "\"kind\":\"Status\",\"message\":\"pods \\\"x\\\" not found\",\"metadata\":{},"
                                + "\"reason\":\"NotFound\",\"status\":\"Failure\"}"));
    }

    @Test
    void groupedResourcesAreQualifiedInMessages() {
        assertThat(Statuses.alreadyExists("apps", "deployments", "web").getMessage())
                .isEqualTo("deployments.apps \"web\" already exists");
        assertThat(Statuses.alreadyExists("apps", "deployments", "web").getCode())
                .isEqualTo(409);
        assertThat(Statuses.conflict("", "pods", "x").getMessage())
                .isEqualTo(
                        "Operation cannot be fulfilled on pods \"x\": the object has been modified; please apply your "
                                + "changes to the latest version and try again");
    }

    @Test
    void invalidListsFieldErrorsAsCauses() {
        Status one = Statuses.invalid(
                "",
                "Pod",
                "x",
                List.of(new Statuses.FieldError("Required value", "spec.containers", "name is required")));
        assertThat(one.getMessage())
                .isEqualTo("Pod \"x\" is invalid: spec.containers: Required value: name is required");
        assertThat(one.getCode()).isEqualTo(422);
        assertThat(one.getDetails().getKind()).isEqualTo("Pod");
        assertThat(one.getDetails().getCauses()).singleElement().satisfies(c -> {
            assertThat(c.getReason()).isEqualTo("FieldValueRequired");
            assertThat(c.getField()).isEqualTo("spec.containers");
            assertThat(c.getMessage()).isEqualTo("Required value: name is required");
        });

        Status two = Statuses.invalid(
                "apps",
                "Deployment",
                "web",
                List.of(
                        new Statuses.FieldError(
                                "Invalid value", "metadata.name", "\"Web\": a lowercase RFC 1123 subdomain"),
                        new Statuses.FieldError("Required value", "spec.selector", "")));
        assertThat(two.getMessage())
                .startsWith("Deployment.apps \"web\" is invalid: [metadata.name: Invalid value:")
                .endsWith(", spec.selector: Required value]"); // no detail: no trailing colon, as field.Required(path,
        // "")
    }

    @Test
    void everyReasonCarriesKubeApiserversCode() {
        assertThat(StatusReason.Expired.code()).isEqualTo(410);
        assertThat(StatusReason.Invalid.code()).isEqualTo(422);
        assertThat(StatusReason.Timeout.code()).isEqualTo(504);
        assertThat(Statuses.expired("too old resource version: 5 (99)").getReason())
                .isEqualTo("Expired");
        assertThat(Statuses.routeNotFound().getMessage()).isEqualTo("the server could not find the requested resource");
    }
}
