package io.kubeloop.demo;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Version;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.ValueDeserializer;
import tools.jackson.databind.annotation.JsonDeserialize;

/**
 * The pod-guardian operator's custom resource, {@code demo.kubeloop.io/v1} {@code PodSet}: keep
 * {@code spec.replicas} pods made from {@code spec.template} running. Its CustomResourceDefinition ({@link
 * PodGuardian#crd()}) serves the {@code status} and {@code scale} subresources, so {@code kubectl scale podset/web
 * --replicas=5} works.
 *
 * <p>A plain Jackson bean, as fabric8's model classes are: mutable, not thread-safe; objects read from an informer's
 * cache are shared and must not be modified.
 */
@Group(PodSet.GROUP)
@Version(PodSet.VERSION)
@Kind(PodSet.KIND)
@Plural(PodSet.PLURAL)
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonDeserialize(using = ValueDeserializer.None.class) // as fabric8's own classes: not HasMetadata's by-kind lookup
public final class PodSet implements HasMetadata, Namespaced {
    private static final long serialVersionUID = 1L;

    public static final String GROUP = "demo.kubeloop.io";
    public static final String VERSION = "v1";
    public static final String KIND = "PodSet";
    public static final String PLURAL = "podsets";
    /** The label every pod of a PodSet carries, with the PodSet's name as its value; also the scale selector. */
    public static final String NAME_LABEL = "podset.demo.kubeloop.io/name";

    private String apiVersion = GROUP + "/" + VERSION;
    private ObjectMeta metadata;
    private Spec spec;
    private Status status;

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

    @Override
    public String getKind() {
        return KIND;
    }

    public void setKind(String kind) {
        // always PodSet
    }

    public Spec getSpec() {
        return spec;
    }

    public void setSpec(Spec spec) {
        this.spec = spec;
    }

    public Status getStatus() {
        return status;
    }

    public void setStatus(Status status) {
        this.status = status;
    }

    /** What the user wants: how many pods, made from which template. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static final class Spec implements java.io.Serializable {
        private static final long serialVersionUID = 1L;

        /** Desired number of pods; the CRD defaults it to 1 and requires 0 or more. */
        private Integer replicas;
        /** The pods' template; the operator adds {@link #NAME_LABEL} and a controller owner reference. */
        private PodTemplateSpec template;

        public Integer getReplicas() {
            return replicas;
        }

        public void setReplicas(Integer replicas) {
            this.replicas = replicas;
        }

        public PodTemplateSpec getTemplate() {
            return template;
        }

        public void setTemplate(PodTemplateSpec template) {
            this.template = template;
        }
    }

    /** What the operator observed at its last reconcile. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static final class Status implements java.io.Serializable {
        private static final long serialVersionUID = 1L;

        /** Pods that exist and are not being deleted. */
        private Integer replicas;
        /** Of those, pods Running with condition Ready=True. */
        private Integer readyReplicas;
        /** The {@code metadata.generation} this status describes. */
        private Long observedGeneration;
        /** The label selector of the pods, as a string, for the scale subresource ({@code NAME_LABEL=name}). */
        private String selector;
        /** {@code Available} (readyReplicas == replicas) and {@code Progressing}, Kubernetes-style. */
        @SuppressWarnings("serial") // an ArrayList of serializable Conditions, as in fabric8's own classes
        private List<Condition> conditions = new ArrayList<>();

        public Integer getReplicas() {
            return replicas;
        }

        public void setReplicas(Integer replicas) {
            this.replicas = replicas;
        }

        public Integer getReadyReplicas() {
            return readyReplicas;
        }

        public void setReadyReplicas(Integer readyReplicas) {
            this.readyReplicas = readyReplicas;
        }

        public Long getObservedGeneration() {
            return observedGeneration;
        }

        public void setObservedGeneration(Long observedGeneration) {
            this.observedGeneration = observedGeneration;
        }

        public String getSelector() {
            return selector;
        }

        public void setSelector(String selector) {
            this.selector = selector;
        }

        public List<Condition> getConditions() {
            return conditions;
        }

        public void setConditions(List<Condition> conditions) {
            this.conditions = conditions;
        }
    }
}
