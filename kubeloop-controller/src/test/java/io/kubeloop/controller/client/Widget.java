package io.kubeloop.controller.client;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Version;
import tools.jackson.databind.ValueDeserializer;
import tools.jackson.databind.annotation.JsonDeserialize;

/** A custom resource class whose CustomResourceDefinition the tests do not install. */
@Group("example.com")
@Version("v1")
@Kind("Widget")
@Plural("widgets")
@JsonDeserialize(using = ValueDeserializer.None.class) // as fabric8's own classes: not HasMetadata's by-kind lookup
public final class Widget implements HasMetadata, Namespaced {
    private static final long serialVersionUID = 1L;

    private String apiVersion = "example.com/v1";
    private ObjectMeta metadata;

    @Override
    public ObjectMeta getMetadata() {
        return metadata;
    }

    @Override
    public void setMetadata(ObjectMeta metadata) {
        this.metadata = metadata;
    }

    @Override
    public String getApiVersion() {
        return apiVersion;
    }

    @Override
    public void setApiVersion(String apiVersion) {
        this.apiVersion = apiVersion;
    }

    public void setKind(String kind) {
        // always Widget
    }
}
