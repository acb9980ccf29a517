package io.kubeloop.apiserver.internal.patch;

import static io.kubeloop.apiserver.internal.patch.Trees.assertTree;
import static io.kubeloop.apiserver.internal.patch.Trees.json;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import tools.jackson.databind.JsonNode;

class JsonMergePatchTest {

    /** RFC 7386 Appendix A, every row. */
    @ParameterizedTest(name = "{0} + {1} = {2}")
    @CsvSource(
            delimiter = '|',
            quoteCharacter = '"',
            value = {
                "{'a':'b'}                | {'a':'c'}                      | {'a':'c'}",
                "{'a':'b'}                | {'b':'c'}                      | {'a':'b','b':'c'}",
                "{'a':'b'}                | {'a':null}                     | {}",
                "{'a':'b','b':'c'}        | {'a':null}                     | {'b':'c'}",
                "{'a':['b']}              | {'a':'c'}                      | {'a':'c'}",
                "{'a':'c'}                | {'a':['b']}                    | {'a':['b']}",
                "{'a':{'b':'c'}}          | {'a':{'b':'d','c':null}}       | {'a':{'b':'d'}}",
                "{'a':[{'b':'c'}]}        | {'a':[1]}                      | {'a':[1]}",
                "['a','b']                | ['c','d']                      | ['c','d']",
                "{'a':'b'}                | ['c']                          | ['c']",
                "{'a':'foo'}              | null                           | null",
                "{'a':'foo'}              | 'bar'                          | 'bar'",
                "{'e':null}               | {'a':1}                        | {'e':null,'a':1}",
                "[1,2]                    | {'a':'b','c':null}             | {'a':'b'}",
                "{}                       | {'a':{'bb':{'ccc':null}}}      | {'a':{'bb':{}}}",
            })
    void rfc7386AppendixA(String target, String patch, String result) {
        assertTree(JsonMergePatch.apply(json(target), json(patch)), json(result));
    }

    /** RFC 7386 section 3, the example document. */
    @Test
    void rfc7386Section3Example() {
        JsonNode target = json("""
                {"title": "Goodbye!", "author": {"givenName": "John", "familyName": "Doe"},
                 "tags": ["example", "sample"], "content": "This will be unchanged"}""");
        JsonNode patch = json("""
                {"title": "Hello!", "phoneNumber": "+01-123-456-7890", "author": {"familyName": null},
                 "tags": ["example"]}""");
        assertTree(JsonMergePatch.apply(target, patch), """
                {"title": "Hello!", "author": {"givenName": "John"}, "tags": ["example"],
                 "content": "This will be unchanged", "phoneNumber": "+01-123-456-7890"}""");
    }

    @Test
    void kubectlLabelAddsAndRemovesLabels() {
        JsonNode pod = json(
                "{apiVersion:'v1',kind:'Pod',metadata:{name:'x',labels:{app:'demo',tier:'web'}},spec:{containers:[{name:'main',image:'nginx'}]}}");
        JsonNode labelled = JsonMergePatch.apply(pod, json("{\"metadata\":{\"labels\":{\"a\":\"b\"}}}"));
        assertTree(labelled.get("metadata"), "{name:'x',labels:{app:'demo',tier:'web',a:'b'}}");
        JsonNode unlabelled = JsonMergePatch.apply(labelled, json("{\"metadata\":{\"labels\":{\"a\":null}}}"));
        assertTree(unlabelled, pod);
    }

    @Test
    void kubectlAnnotateAndScale() {
        JsonNode deploy = json(
                "{metadata:{name:'d'},spec:{replicas:1,template:{spec:{containers:[{name:'web',image:'nginx'}]}}}}");
        JsonNode annotated =
                JsonMergePatch.apply(deploy, json("{\"metadata\":{\"annotations\":{\"owner\":\"team-a\"}}}"));
        assertThat(annotated.at("/metadata/annotations/owner").stringValue()).isEqualTo("team-a");
        JsonNode scaled = JsonMergePatch.apply(annotated, json("{\"spec\":{\"replicas\":3}}"));
        assertThat(scaled.at("/spec/replicas").intValue()).isEqualTo(3);
        assertTree(scaled.at("/spec/template"), deploy.at("/spec/template"));
    }

    @Test
    void listsAreReplacedNotMerged() {
        JsonNode deploy = json("{spec:{template:{spec:{containers:[{name:'a'},{name:'b'}]}}}}");
        JsonNode patched = JsonMergePatch.apply(deploy, json("{spec:{template:{spec:{containers:[{name:'c'}]}}}}"));
        assertTree(patched, "{spec:{template:{spec:{containers:[{name:'c'}]}}}}");
    }

    @Test
    void neitherInputIsModified() {
        JsonNode target = json("{a:{b:1,c:[1,2]},d:'x'}");
        JsonNode patch = json("{a:{b:null,e:{f:null,g:2}},d:null}");
        String targetBefore = target.toString();
        String patchBefore = patch.toString();
        JsonNode result = JsonMergePatch.apply(target, patch);
        assertTree(result, "{a:{c:[1,2],e:{g:2}}}");
        assertThat(target.toString()).isEqualTo(targetBefore);
        assertThat(patch.toString()).isEqualTo(patchBefore);
        ((tools.jackson.databind.node.ObjectNode) result.get("a")).put("c", 0);
        assertThat(target.toString()).isEqualTo(targetBefore);
    }

    @Test
    void diffProducesMinimalPatch() {
        JsonNode a = json("{a:1,b:{c:2,d:3},e:[1],f:'x'}");
        JsonNode b = json("{a:1,b:{c:2,d:4},e:[1,2],g:true}");
        assertTree(JsonMergePatch.diff(a, b), "{b:{d:4},e:[1,2],f:null,g:true}");
        assertTree(JsonMergePatch.diff(a, a), "{}");
        assertTree(JsonMergePatch.apply(a, JsonMergePatch.diff(a, b)), b);
    }
}
