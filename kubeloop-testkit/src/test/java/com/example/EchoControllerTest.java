package com.example;

import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.kubeloop.client.KubernetesClient;
import io.kubeloop.informer.ResourceEventHandler;
import io.kubeloop.informer.SharedInformerFactory;
import io.kubeloop.testkit.KubeloopTest;
import org.junit.jupiter.api.Test;

@KubeloopTest
class EchoControllerTest {
    @Test
    void answersEveryQuestion(KubernetesClient client, SharedInformerFactory informers) {
        var configMaps = client.resources(ConfigMap.class); // in this test's own namespace
        informers.informerFor(ConfigMap.class).addEventHandler(new ResourceEventHandler<>() { // the controller
            @Override public void onAdd(ConfigMap cm, boolean isInInitialList) {
                String name = cm.getMetadata().getName();
                if (name.startsWith("ask-")) configMaps.create(new ConfigMapBuilder()
                        .withNewMetadata().withName("answer-" + name.substring(4)).endMetadata().build());
            }
        });
        informers.start();
        configMaps.create(new ConfigMapBuilder().withNewMetadata().withName("ask-1").endMetadata().build());
        await().until(() -> configMaps.get("answer-1").isPresent());
    }
}
