package io.kubeloop.apiserver.internal.patch;

import static io.kubeloop.apiserver.internal.patch.Trees.assertTree;
import static io.kubeloop.apiserver.internal.patch.Trees.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.core.exc.StreamReadException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

class JsonPatchTest {

    private static JsonNode apply(String doc, String patch) {
        return JsonPatch.apply(json(doc), json(patch));
    }

    private static PatchException failure(String doc, String patch) {
        try {
            apply(doc, patch);
        } catch (PatchException e) {
            return e;
        }
        throw new AssertionError("patch applied: " + patch);
    }

    private static void assertInvalid(String doc, String patch, String detail) {
        PatchException e = failure(doc, patch);
        assertThat(e.code()).isEqualTo(422);
        assertThat(e.reason()).isEqualTo("Invalid");
        assertThat(e.getMessage()).isEqualTo("the server rejected our request due to an error in our request");
        assertThat(e.detail()).isEqualTo(detail);
    }

    // ---- RFC 6902 Appendix A ---------------------------------------------------------------------------------

    @Test
    void a1AddingAnObjectMember() {
        assertTree(apply("{'foo':'bar'}", "[{'op':'add','path':'/baz','value':'qux'}]"), "{'baz':'qux','foo':'bar'}");
    }

    @Test
    void a2AddingAnArrayElement() {
        assertTree(
                apply("{'foo':['bar','baz']}", "[{'op':'add','path':'/foo/1','value':'qux'}]"),
                "{'foo':['bar','qux','baz']}");
    }

    @Test
    void a3RemovingAnObjectMember() {
        assertTree(apply("{'baz':'qux','foo':'bar'}", "[{'op':'remove','path':'/baz'}]"), "{'foo':'bar'}");
    }

    @Test
    void a4RemovingAnArrayElement() {
        assertTree(apply("{'foo':['bar','qux','baz']}", "[{'op':'remove','path':'/foo/1'}]"), "{'foo':['bar','baz']}");
    }

    @Test
    void a5ReplacingAValue() {
        assertTree(
                apply("{'baz':'qux','foo':'bar'}", "[{'op':'replace','path':'/baz','value':'boo'}]"),
                "{'baz':'boo','foo':'bar'}");
    }

    @Test
    void a6MovingAValue() {
        assertTree(
                apply(
                        "{'foo':{'bar':'baz','waldo':'fred'},'qux':{'corge':'grault'}}",
                        "[{'op':'move','from':'/foo/waldo','path':'/qux/thud'}]"),
                "{'foo':{'bar':'baz'},'qux':{'corge':'grault','thud':'fred'}}");
    }

    @Test
    void a7MovingAnArrayElement() {
        assertTree(
                apply("{'foo':['all','grass','cows','eat']}", "[{'op':'move','from':'/foo/1','path':'/foo/3'}]"),
                "{'foo':['all','cows','eat','grass']}");
    }

    @Test
    void a8TestingAValueSuccess() {
        String doc = "{'baz':'qux','foo':['a',2,'c']}";
        assertTree(
                apply(doc, "[{'op':'test','path':'/baz','value':'qux'},{'op':'test','path':'/foo/1','value':2}]"), doc);
    }

    @Test
    void a9TestingAValueError() {
        assertInvalid(
                "{'baz':'qux'}",
                "[{'op':'test','path':'/baz','value':'bar'}]",
                "testing value /baz failed: test failed");
    }

    @Test
    void a10AddingANestedMemberObject() {
        assertTree(
                apply("{'foo':'bar'}", "[{'op':'add','path':'/child','value':{'grandchild':{}}}]"),
                "{'foo':'bar','child':{'grandchild':{}}}");
    }

    @Test
    void a11IgnoringUnrecognizedElements() {
        assertTree(
                apply("{'foo':'bar'}", "[{'op':'add','path':'/baz','value':'qux','xyz':123}]"),
                "{'foo':'bar','baz':'qux'}");
    }

    @Test
    void a12AddingToANonexistentTarget() {
        assertInvalid(
                "{'foo':'bar'}",
                "[{'op':'add','path':'/baz/bat','value':'qux'}]",
                "add operation does not apply: doc is missing path: \"/baz/bat\"");
    }

    /**
     * A.13: duplicate members make the document invalid. Duplicates are a parsing matter: a parser with
     * strict duplicate detection rejects the body; a lenient one keeps the last {@code op} ("remove"), and the
     * patch still fails because {@code /baz} does not exist.
     */
    @Test
    void a13InvalidJsonPatchDocument() {
        String body = "[{\"op\":\"add\",\"path\":\"/baz\",\"value\":\"qux\",\"op\":\"remove\"}]";
        JsonMapper strict = JsonMapper.builder()
                .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
                .build();
        assertThatThrownBy(() -> strict.readTree(body))
                .isInstanceOf(StreamReadException.class)
                .hasMessageContaining("Duplicate");
        assertInvalid(
                "{'foo':'bar'}",
                body,
                "error in remove for path: '/baz': Unable to remove nonexistent key: baz: missing value");
    }

    @Test
    void a14TildeEscapeOrdering() {
        String doc = "{'/':9,'~1':10}";
        assertTree(apply(doc, "[{'op':'test','path':'/~01','value':10}]"), doc);
    }

    @Test
    void a15ComparingStringsAndNumbers() {
        assertInvalid(
                "{'/':9,'~1':10}",
                "[{'op':'test','path':'/~01','value':'10'}]",
                "testing value /~01 failed: test failed");
    }

    @Test
    void a16AddingAnArrayValue() {
        assertTree(
                apply("{'foo':['bar']}", "[{'op':'add','path':'/foo/-','value':['abc','def']}]"),
                "{'foo':['bar',['abc','def']]}");
    }

    // ---- more operations and pointers ------------------------------------------------------------------------

    @Test
    void kubectlPatchTypeJsonReplacesReplicas() {
        JsonNode deploy = json("{apiVersion:'apps/v1',kind:'Deployment',metadata:{name:'d'},spec:{replicas:1}}");
        JsonNode patched =
                JsonPatch.apply(deploy, json("[{\"op\":\"replace\",\"path\":\"/spec/replicas\",\"value\":4}]"));
        assertThat(patched.at("/spec/replicas").intValue()).isEqualTo(4);
        assertThat(deploy.at("/spec/replicas").intValue()).isEqualTo(1);
    }

    @Test
    void escapedSlashAndTildeInKeys() {
        JsonNode patched = apply(
                "{metadata:{labels:{}}}",
                "[{'op':'add','path':'/metadata/labels/app.kubernetes.io~1name','value':'web'},"
                        + "{'op':'add','path':'/metadata/labels/a~0b','value':'x'}]");
        assertTree(patched, "{metadata:{labels:{'app.kubernetes.io/name':'web','a~b':'x'}}}");
        assertTree(apply("{'a/b':1}", "[{'op':'remove','path':'/a~1b'}]"), "{}");
    }

    @Test
    void rootOperations() {
        assertTree(apply("{a:1}", "[{'op':'replace','path':'','value':{b:2}}]"), "{b:2}");
        assertTree(apply("{a:1}", "[{'op':'add','path':'','value':[1]}]"), "[1]");
        assertTree(apply("{a:1}", "[{'op':'test','path':'','value':{a:1}}]"), "{a:1}");
        assertTree(
                apply("{a:{b:1}}", "[{'op':'copy','from':'/a','path':'/c'},{'op':'replace','path':'/c/b','value':2}]"),
                "{a:{b:1},c:{b:2}}");
    }

    @Test
    void testComparesNumbersNumericallyAndObjectsWithoutOrder() {
        apply(
                "{a:1,o:{x:1,y:[1,{z:2}]}}",
                "[{'op':'test','path':'/a','value':1.0},{'op':'test','path':'/o','value':{y:[1,{z:2}],x:1}}]");
        assertInvalid(
                "{o:{y:[1,2]}}",
                "[{'op':'test','path':'/o/y','value':[2,1]}]",
                "testing value /o/y failed: test failed");
        assertInvalid("{a:null}", "[{'op':'test','path':'/b','value':null}]", "testing value /b failed: test failed");
        apply("{a:null}", "[{'op':'test','path':'/a','value':null}]");
    }

    @Test
    void operationsThatDoNotApply() {
        assertInvalid(
                "{a:1}",
                "[{'op':'remove','path':'/b'}]",
                "error in remove for path: '/b': Unable to remove nonexistent key: b: missing value");
        assertInvalid(
                "{a:1}",
                "[{'op':'remove','path':'/b/c'}]",
                "remove operation does not apply: doc is missing path: \"/b/c\"");
        assertInvalid(
                "{a:1}",
                "[{'op':'replace','path':'/b','value':1}]",
                "replace operation does not apply: doc is missing key: /b");
        assertInvalid(
                "{a:[1]}",
                "[{'op':'add','path':'/a/2','value':1}]",
                "error in add for path: '/a/2': Unable to access invalid index: 2: invalid index referenced");
        assertInvalid(
                "{a:[1]}",
                "[{'op':'add','path':'/a/01','value':1}]",
                "error in add for path: '/a/01': Unable to access invalid index: 01: invalid index referenced");
        assertInvalid(
                "{a:[1]}",
                "[{'op':'add','path':'/a/-1','value':1}]",
                "error in add for path: '/a/-1': Unable to access invalid index: -1: invalid index referenced");
        assertInvalid(
                "{a:[1]}",
                "[{'op':'remove','path':'/a/1'}]",
                "error in remove for path: '/a/1': Unable to access invalid index: 1: invalid index referenced");
        assertInvalid(
                "{a:1}",
                "[{'op':'move','from':'/x','path':'/y'}]",
                "move operation does not apply: doc is missing from path: /x");
        assertInvalid(
                "{a:{b:1}}",
                "[{'op':'move','from':'/a','path':'/a/b/c'}]",
                "move operation does not apply: from path /a is a proper prefix of path /a/b/c");
        assertInvalid(
                "{a:1}",
                "[{'op':'copy','from':'/x','path':'/y'}]",
                "copy operation does not apply: doc is missing from path: /x");
        assertInvalid("{a:1}", "[{'op':'frobnicate','path':'/a'}]", "Unexpected kind: frobnicate");
        assertInvalid("{a:1}", "[{'path':'/a'}]", "Unexpected kind: unknown");
        assertInvalid(
                "{a:1}",
                "[{'op':'add','value':1}]",
                "add operation failed to decode path: operation missing path field");
        assertInvalid("{a:1}", "[{'op':'add','path':'/b'}]", "add operation failed: operation missing value field");
        assertInvalid(
                "{a:1}",
                "[{'op':'add','path':'b','value':1}]",
                "add operation failed to decode path: invalid JSON pointer b");
        assertInvalid(
                "{a:1}",
                "[{'op':'add','path':'/a~2','value':1}]",
                "add operation failed to decode path: invalid JSON pointer /a~2");
    }

    @Test
    void aFailingOperationLeavesNothingApplied() {
        JsonNode doc = json("{a:1}");
        assertThatThrownBy(() -> JsonPatch.apply(
                        doc, json("[{'op':'add','path':'/b','value':2},{'op':'test','path':'/a','value':2}]")))
                .isInstanceOf(PatchException.class);
        assertTree(doc, "{a:1}");
    }

    @Test
    void moveWithinTheSameArrayAndToItself() {
        assertTree(apply("{a:[1,2,3]}", "[{'op':'move','from':'/a/0','path':'/a/-'}]"), "{a:[2,3,1]}");
        assertTree(apply("{a:{b:1}}", "[{'op':'move','from':'/a/b','path':'/a/b'}]"), "{a:{b:1}}");
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            quoteCharacter = '"',
            value = {
                "{'op':'add'}        | json: cannot unmarshal object into Go value of type jsonpatch.Patch",
                "'add'               | json: cannot unmarshal string into Go value of type jsonpatch.Patch",
                "['add']             | json: cannot unmarshal string into Go value of type jsonpatch.Operation",
                "[[]]                | json: cannot unmarshal array into Go value of type jsonpatch.Operation",
            })
    void malformedDocumentsAreBadRequests(String patch, String message) {
        PatchException e = failure("{}", patch);
        assertThat(e.code()).isEqualTo(400);
        assertThat(e.reason()).isEqualTo("BadRequest");
        assertThat(e.getMessage()).isEqualTo(message);
    }

    @Test
    void tooManyOperations() {
        StringBuilder sb = new StringBuilder("[");
        for (int i = 0; i <= JsonPatch.MAX_OPERATIONS; i++) {
            sb.append(i == 0 ? "" : ",").append("{\"op\":\"test\",\"path\":\"\",\"value\":{}}");
        }
        PatchException e = failure("{}", sb.append(']').toString());
        assertThat(e.code()).isEqualTo(413);
        assertThat(e.reason()).isEqualTo("RequestEntityTooLarge");
        assertThat(e.getMessage())
                .isEqualTo(
                        "Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001");
    }

    @Test
    void copiesThatDoubleADocumentStopAtTheAccumulatedCopyLimit() {
        // CVE-2019-1002100: one add of 1 KiB, then copies doubling the same map; unbounded this reaches gigabytes.
        StringBuilder sb = new StringBuilder("[{\"op\":\"add\",\"path\":\"/a\",\"value\":{\"x\":\"")
                .append("y".repeat(1024))
                .append("\"}}");
        for (int i = 0; i < 40; i++) {
            sb.append(",{\"op\":\"copy\",\"from\":\"/a\",\"path\":\"/a/")
                    .append(i)
                    .append("\"}");
        }
        PatchException e = failure("{}", sb.append(']').toString());
        assertThat(e.code()).isEqualTo(422);
        assertThat(e.getMessage()).isEqualTo(PatchException.REJECTED);
        assertThat(e.detail())
                .startsWith("Unable to complete the copy, the accumulated size increase of copy is ")
                .endsWith(", exceeding the limit 3145728");
    }

    @Test
    void copiesUpToTheLimitApply() {
        // 3 copies of a value of 1 MiB minus a little: just under the 3 MiB copy limit.
        String big = "z".repeat(1024 * 1024 - 10);
        JsonNode result = JsonPatch.apply(
                json("{a:'" + big + "'}"),
                json(
                        "[{op:'copy',from:'/a',path:'/b'},{op:'copy',from:'/a',path:'/c'},{op:'copy',from:'/a',path:'/d'}]"));
        assertThat(result.get("d").stringValue()).hasSize(big.length());
        PatchException e = failure(
                "{a:'" + big + "'}",
                "[{op:'copy',from:'/a',path:'/b'},{op:'copy',from:'/a',path:'/c'},"
                        + "{op:'copy',from:'/a',path:'/d'},{op:'copy',from:'/a',path:'/e'}]");
        assertThat(e.detail()).contains("accumulated size increase of copy is 4194272");
    }

    @Test
    void inputsAreNotModified() {
        JsonNode doc = json("{a:{b:[1,2]}}");
        JsonNode patch = json("[{'op':'add','path':'/a/b/0','value':{x:1}},{'op':'remove','path':'/a/b/1'}]");
        String before = doc.toString() + patch.toString();
        JsonNode result = JsonPatch.apply(doc, patch);
        assertTree(result, "{a:{b:[{x:1},2]}}");
        ((tools.jackson.databind.node.ObjectNode) result.at("/a/b/0")).put("x", 2);
        assertThat(doc.toString() + patch.toString()).isEqualTo(before);
    }
}
