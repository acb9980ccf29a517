package io.kubeloop.apiserver.internal.rbac;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubeloop.apiserver.internal.auth.UserInfo;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Request attributes derived from method, path and query, as kube-apiserver's RequestInfoFactory derives them. */
class RequestAttributesTest {

    /** Expected: verb|group|resource|subresource|namespace|name, or "path VERB" for non-resource requests. */
    @ParameterizedTest(name = "{0} {1}?{2}")
    @CsvSource(nullValues = "-", textBlock = """
            GET, /api/v1/namespaces/default/pods, -, list||pods||default|
            GET, /api/v1/namespaces/default/pods, watch=true, watch||pods||default|
            GET, /api/v1/namespaces/default/pods, watch=1, watch||pods||default|
            GET, /api/v1/namespaces/default/pods, watch=false, list||pods||default|
            GET, /api/v1/namespaces/default/pods, fieldSelector=metadata.name%3Dweb, list||pods||default|web
            GET, /api/v1/pods, -, list||pods|||
            GET, /api/v1/namespaces/default/pods/web, -, get||pods||default|web
            HEAD, /api/v1/namespaces/default/pods/web, -, get||pods||default|web
            PUT, /api/v1/namespaces/default/pods/web/status, -, update||pods|status|default|web
            PATCH, /apis/apps/v1/namespaces/ns/deployments/d/scale, -, patch|apps|deployments|scale|ns|d
            POST, /apis/apps/v1/namespaces/ns/deployments, -, create|apps|deployments||ns|
            DELETE, /apis/apps/v1/namespaces/ns/deployments, -, deletecollection|apps|deployments||ns|
            DELETE, /apis/apps/v1/namespaces/ns/deployments/d, -, delete|apps|deployments||ns|d
            GET, /api/v1/watch/namespaces/default/pods, -, watch||pods||default|
            GET, /api/v1/namespaces/kube-system, -, get||namespaces||kube-system|kube-system
            GET, /api/v1/namespaces, -, list||namespaces|||
            PUT, /api/v1/namespaces/ns1/finalize, -, update||namespaces|finalize|ns1|ns1
            GET, /api/v1/nodes/n1, -, get||nodes|||n1
            POST, /apis/authorization.k8s.io/v1/selfsubjectaccessreviews, -, create|authorization.k8s.io|selfsubjectaccessreviews|||
            GET, /api, -, path get
            GET, /api/v1, -, path get
            GET, /apis/apps, -, path get
            GET, /apis/apps/v1, -, path get
            GET, /healthz, -, path get
            GET, /openapi/v3/apis/apps/v1, -, path get
            POST, /metrics, -, path post
            """)
    void derivesKubeApiserversAttributes(String method, String path, String query, String expected) {
        Attributes a = RequestAttributes.of(UserInfo.ADMIN, method, path, query);
        if (expected.startsWith("path")) {
            assertThat(a.resourceRequest()).isFalse();
            assertThat(a.verb()).isEqualTo(expected.substring(5));
            assertThat(a.path()).isEqualTo(path);
            return;
        }
        assertThat(a.resourceRequest()).isTrue();
        assertThat(String.join("|", a.verb(), a.apiGroup(), a.resource(), a.subresource(), a.namespace(), a.name()))
                .isEqualTo(expected);
    }
}
