package io.kubeloop.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.kubeloop.apiserver.EmbeddedApiServer;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.informer.SharedIndexInformer;
import io.kubeloop.informer.SharedInformerFactory;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Issue 17 §2 "Types": a ConfigMap whose annotations are a string used to be stored, and then kubeloop's own typed
 * list failed and a ConfigMap informer never synced. The server now refuses it as kube-apiserver does, so typed
 * clients and informers keep working.
 */
@KubeloopTest
class TypedClientsAfterRefusedWriteTest {

    @Test
    void aWrongTypedConfigMapIsRefusedAndTheTypedListAndInformerKeepWorking(
            EmbeddedApiServer server,
            KubernetesClient client,
            SharedInformerFactory informers,
            @TestNamespace String namespace)
            throws Exception {
        HttpResponse<String> refused = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(server.url().resolve("/api/v1/namespaces/" + namespace + "/configmaps"))
                                .header("Content-Type", "application/json")
                                .POST(HttpRequest.BodyPublishers.ofString(
                                        "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\","
                                                + "\"metadata\":{\"name\":\"bad\",\"annotations\":\"oops\"}}"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        assertThat(refused.statusCode()).as(refused.body()).isEqualTo(400);
        assertThat(refused.body())
                .contains("json: cannot unmarshal string into Go struct field ObjectMeta.metadata.annotations of "
                        + "type map[string]string");

        var configMaps = client.resources(ConfigMap.class);
        configMaps.create(new ConfigMapBuilder()
                .withNewMetadata()
                .withName("good")
                .endMetadata()
                .withData(Map.of("a", "b"))
                .build());
        assertThat(configMaps.list().items())
                .extracting(c -> c.getMetadata().getName())
                .containsExactlyInAnyOrder("good", "kube-root-ca.crt"); // every namespace has the CA bundle

        SharedIndexInformer<ConfigMap> informer = informers.informerFor(ConfigMap.class);
        informers.start();
        assertThat(informers.waitForCacheSync(Duration.ofSeconds(10))).containsValue(true);
        assertThat(informer.hasSynced()).isTrue();
        assertThat(informer.indexer().listKeys()).contains(namespace + "/good");
    }
}
