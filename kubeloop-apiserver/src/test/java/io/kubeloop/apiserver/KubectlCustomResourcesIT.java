package io.kubeloop.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import org.junit.jupiter.api.Test;

/** Custom resources driven by the real kubectl, as a user would: apply a CRD, wait, apply and manage objects. */
class KubectlCustomResourcesIT extends KubectlTest {

    private static final String WIDGET = """
            apiVersion: example.com/v1
            kind: Widget
            metadata:
              name: w1
            spec:
              size: small
              replicas: 2
            """;

    private String file(String name, String content) throws Exception {
        return Files.writeString(dir.resolve(name), content).toString();
    }

    @Test
    void applyWaitGetPatchScaleAndDelete() throws Exception {
        // kubectl caches discovery before the CRD exists and must refresh it on the miss
        Kubectl.Result before = kubectl.run("get", "widgets");
        assertThat(before.exit()).isEqualTo(1);
        assertThat(before.err()).contains("the server doesn't have a resource type \"widgets\"");

        String crd = file("crd.yaml", Widgets.CRD);
        assertThat(kubectl.run("apply", "-f", crd).ok().out())
                .contains("customresourcedefinition.apiextensions.k8s.io/widgets.example.com created");
        assertThat(kubectl.run("wait", "--for", "condition=established", "crd/widgets.example.com", "--timeout=10s")
                        .ok()
                        .out())
                .contains("condition met");

        String cr = file("cr.yaml", WIDGET);
        assertThat(kubectl.run("apply", "-f", cr).ok().out()).contains("widget.example.com/w1 created");
        assertThat(kubectl.run("apply", "-f", cr).ok().out()).contains("widget.example.com/w1 unchanged");

        String table = kubectl.run("get", "wd").ok().out();
        assertThat(table.lines().findFirst().orElseThrow()).matches("NAME +SIZE +REPLICAS +READY +AGE");
        assertThat(table).containsPattern("w1 +small +2 +\\d+s");
        assertThat(kubectl.run("get", "wd", "-o", "wide")
                        .ok()
                        .out()
                        .lines()
                        .findFirst()
                        .orElseThrow())
                .matches("NAME +SIZE +REPLICAS +READY +COLOR +AGE");
        assertThat(kubectl.run("get", "all").ok().out()).contains("widget.example.com/w1");

        assertThat(kubectl.run("patch", "wd", "w1", "--type=merge", "-p", "{\"spec\":{\"replicas\":5}}")
                        .ok()
                        .out())
                .contains("widget.example.com/w1 patched");
        String yaml = kubectl.run("get", "widgets", "-o", "yaml").ok().out();
        assertThat(yaml)
                .contains("apiVersion: example.com/v1")
                .contains("kind: Widget")
                .contains("replicas: 5")
                .contains("color: blue")
                .contains("last-applied-configuration");
        assertThat(kubectl.run("get", "widgets.v1beta1.example.com", "w1", "-o", "jsonpath={.apiVersion}")
                        .ok()
                        .out())
                .isEqualTo("example.com/v1beta1");

        assertThat(kubectl.run("scale", "wd", "w1", "--replicas=3").ok().out())
                .contains("widget.example.com/w1 scaled");
        assertThat(kubectl.run("get", "wd", "w1", "-o", "jsonpath={.spec.replicas}")
                        .ok()
                        .out())
                .isEqualTo("3");

        Kubectl.Result strategic = kubectl.run("patch", "wd", "w1", "-p", "{\"spec\":{\"replicas\":1}}");
        assertThat(strategic.exit()).isEqualTo(1);
        assertThat(strategic.err())
                .contains("application/strategic-merge-patch+json is not supported by "
                        + "example.com/v1, Kind=Widget: the body of the request was in an unknown format - accepted media "
                        + "types include: application/json-patch+json, application/merge-patch+json, "
                        + "application/apply-patch+yaml");

        assertThat(kubectl.run("delete", "wd", "w1").ok().out()).contains("widget.example.com \"w1\" deleted");
        assertThat(kubectl.run("get", "wd").ok().err()).contains("No resources found in default namespace.");

        kubectl.run("apply", "-f", cr).ok();
        assertThat(kubectl.run("delete", "-f", crd).ok().out())
                .contains("customresourcedefinition.apiextensions.k8s.io \"widgets.example.com\" deleted");
        assertThat(server.url()).isNotNull();
        ApiClient api = new ApiClient(server.url());
        assertThat(api.get(Widgets.WIDGETS).code()).isEqualTo(404);
        assertThat(api.get("/apis/example.com").code()).isEqualTo(404);
    }

    @Test
    void anInvalidObjectGetsKubectlsInvalidMessage() throws Exception {
        kubectl.run("apply", "-f", file("crd.yaml", Widgets.CRD)).ok();
        kubectl.run("wait", "--for", "condition=established", "crd/widgets.example.com", "--timeout=10s")
                .ok();
        Kubectl.Result bad = kubectl.runWithInput("""
                apiVersion: example.com/v1
                kind: Widget
                metadata:
                  name: bad
                spec:
                  replicas: "string"
                """, "apply", "-f", "-");
        assertThat(bad.exit()).isEqualTo(1);
        assertThat(bad.err())
                .contains(
                        "The Widget \"bad\" is invalid: \n"
                                + "* spec.size: Required value\n"
                                + "* spec.replicas: Invalid value: \"string\": spec.replicas in body must be of type integer: \"string\"");

        String unknownField = """
                apiVersion: example.com/v1
                kind: Widget
                metadata:
                  name: extra
                spec:
                  size: small
                  bogus: 1
                """;
        Kubectl.Result strict = kubectl.runWithInput(unknownField, "apply", "-f", "-");
        assertThat(strict.exit()).isEqualTo(1);
        assertThat(strict.err())
                .contains("Widget in version \"v1\" cannot be handled as a Widget: strict decoding "
                        + "error: unknown field \"spec.bogus\"");
        assertThat(kubectl.runWithInput(unknownField, "apply", "--validate=false", "-f", "-")
                        .ok()
                        .out())
                .contains("widget.example.com/extra created");
        assertThat(kubectl.run("get", "wd", "extra", "-o", "jsonpath={.spec}")
                        .ok()
                        .out())
                .as("pruned")
                .isEqualTo("{\"color\":\"blue\",\"size\":\"small\"}");

        Kubectl.Result badCrd = kubectl.runWithInput("""
                apiVersion: apiextensions.k8s.io/v1
                kind: CustomResourceDefinition
                metadata:
                  name: gadgets.example.com
                spec:
                  group: example.com
                  scope: Namespaced
                  names: {plural: gadgets, kind: Gadget}
                  versions:
                  - name: v1
                    served: true
                    storage: true
                """, "apply", "-f", "-");
        assertThat(badCrd.exit()).isEqualTo(1);
        assertThat(badCrd.err())
                .contains("The CustomResourceDefinition \"gadgets.example.com\" is invalid: "
                        + "spec.versions[0].schema.openAPIV3Schema: Required value: schemas are required");
    }
}
