package io.kubeloop.apiserver.internal.rbac;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubeloop.apiserver.internal.auth.UserInfo;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import tools.jackson.databind.json.JsonMapper;

/** Rule matching, scenario by scenario, against kube's RuleAllows. */
class PolicyRuleTest {

    private static final UserInfo ALICE = new UserInfo("alice", "", List.of("system:authenticated"), Map.of());
    private static final JsonMapper JSON = JsonMapper.builder().build();

    /**
     * rule: JSON of a PolicyRule; request: verb group resource[/sub] [name] or "path VERB /url".
     */
    @ParameterizedTest(name = "{0} | {1} -> {2}")
    @CsvSource(delimiter = '|', textBlock = """
            {"verbs":["get"],"apiGroups":[""],"resources":["pods"]}                      | get '' pods           | true
            {"verbs":["get"],"apiGroups":[""],"resources":["pods"]}                      | list '' pods          | false
            {"verbs":["get"],"apiGroups":[""],"resources":["pods"]}                      | watch '' pods         | false
            {"verbs":["*"],"apiGroups":[""],"resources":["pods"]}                        | deletecollection '' pods | true
            {"verbs":["get"],"apiGroups":[""],"resources":["pods"]}                      | get apps pods         | false
            {"verbs":["get"],"apiGroups":["*"],"resources":["pods"]}                     | get apps pods         | true
            {"verbs":["get"],"apiGroups":["apps"],"resources":["deployments"]}           | get apps deployments  | true
            {"verbs":["get"],"apiGroups":[""],"resources":["pods"]}                      | get '' pods/status    | false
            {"verbs":["get"],"apiGroups":[""],"resources":["pods/status"]}               | get '' pods/status    | true
            {"verbs":["get"],"apiGroups":[""],"resources":["pods/status"]}               | get '' pods           | false
            {"verbs":["get"],"apiGroups":[""],"resources":["*"]}                         | get '' pods/status    | true
            {"verbs":["get"],"apiGroups":["*"],"resources":["*/scale"]}                  | get apps deployments/scale | true
            {"verbs":["get"],"apiGroups":["*"],"resources":["*/scale"]}                  | get apps deployments  | false
            {"verbs":["get"],"apiGroups":["*"],"resources":["*/scale"]}                  | get apps deployments/status | false
            {"verbs":["get"],"apiGroups":[""],"resources":["pods/*"]}                    | get '' pods/status    | false
            {"verbs":["get"],"apiGroups":[""],"resources":["pods"],"resourceNames":["a"]} | get '' pods a        | true
            {"verbs":["get"],"apiGroups":[""],"resources":["pods"],"resourceNames":["a"]} | get '' pods b        | false
            {"verbs":["list"],"apiGroups":[""],"resources":["pods"],"resourceNames":["a"]} | list '' pods        | false
            {"verbs":["get"],"nonResourceURLs":["/healthz"]}                              | path get /healthz    | true
            {"verbs":["get"],"nonResourceURLs":["/healthz"]}                              | path get /healthz/etcd | false
            {"verbs":["get"],"nonResourceURLs":["/healthz/*"]}                            | path get /healthz/etcd | true
            {"verbs":["get"],"nonResourceURLs":["/apis/*"]}                               | path get /apis       | false
            {"verbs":["get"],"nonResourceURLs":["/api*"]}                                 | path get /apis/apps  | true
            {"verbs":["get"],"nonResourceURLs":["*"]}                                     | path get /metrics    | true
            {"verbs":["get"],"nonResourceURLs":["/metrics"]}                              | path post /metrics   | false
            {"verbs":["get"],"apiGroups":["*"],"resources":["*"]}                         | path get /metrics    | false
            {"verbs":["get"],"nonResourceURLs":["*"]}                                     | get '' pods          | false
            {"verbs":["impersonate"],"apiGroups":[""],"resources":["users"],"resourceNames":["bob"]} | impersonate '' users bob | true
            """)
    void matchesAsKubesRuleAllows(String ruleJson, String request, boolean allowed) {
        PolicyRule rule = PolicyRule.fromJson(JSON.readTree(ruleJson));
        assertThat(rule.allows(attributes(request))).isEqualTo(allowed);
    }

    private static Attributes attributes(String request) {
        String[] p = request.strip().split("\\s+");
        if (p[0].equals("path")) {
            return Attributes.nonResource(ALICE, p[1], p[2]);
        }
        String group = p[1].equals("''") ? "" : p[1];
        String[] resource = p[2].split("/", 2);
        return Attributes.resource(
                ALICE,
                p[0],
                group,
                resource[0],
                resource.length > 1 ? resource[1] : "",
                "default",
                p.length > 3 ? p[3] : "");
    }
}
