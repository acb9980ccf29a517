package io.kubeloop.apiserver.internal.protobuf;

import com.google.protobuf.Descriptors.FieldDescriptor;
import java.util.HashSet;
import java.util.Set;

/**
 * The scalar fields whose zero value ({@code 0}, {@code false}, {@code ""}) Go's JSON writes, so a decoded zero
 * is kept instead of dropped. Go's generated protobuf code writes every non-pointer field, zero or not, so on the
 * wire a present zero says nothing by itself; what JSON shows depends on the Go field:
 *
 * <ul>
 *   <li>a <b>pointer</b> ({@code *int32}, {@code *bool}, {@code *string}, ...) is written to protobuf only when
 *       non-nil, and JSON keeps its explicit zero: {@code replicas: 0} on a Deployment means zero pods, while an
 *       absent {@code replicas} means the default of one;</li>
 *   <li>a value field <b>without {@code omitempty}</b> in its json tag is always in JSON, zero included
 *       ({@code SubjectAccessReviewStatus.allowed: false}, {@code ContainerPort.containerPort});</li>
 *   <li>every other scalar (a value field with {@code omitempty}) is dropped from JSON when zero — the default.</li>
 * </ul>
 *
 * Each entry is a fact of the Go types in k8s.io/api and k8s.io/apimachinery (1.32), keyed by the protobuf
 * message's full name and field name; a test checks that every entry names a real scalar field. Elements of
 * repeated fields and values of maps are always kept: Go writes them whatever they are.
 */
final class ExplicitZeros {

    private static final String CORE = "k8s.io.api.core.v1.";
    private static final String APPS = "k8s.io.api.apps.v1.";
    private static final String META = "k8s.io.apimachinery.pkg.apis.meta.v1.";

    private static final Set<String> KEPT = new HashSet<>();

    static {
        // ---- Go pointer fields: nil is absent, an explicit zero is kept.
        pointer(META + "ObjectMeta", "deletionGracePeriodSeconds");
        pointer(META + "ListMeta", "remainingItemCount");
        pointer(META + "OwnerReference", "controller", "blockOwnerDeletion");
        pointer(META + "DeleteOptions", "gracePeriodSeconds", "orphanDependents", "propagationPolicy");
        pointer(META + "Preconditions", "uid", "resourceVersion");

        pointer(APPS + "DeploymentSpec", "replicas", "revisionHistoryLimit", "progressDeadlineSeconds");
        pointer(APPS + "DeploymentStatus", "collisionCount");
        pointer(APPS + "ReplicaSetSpec", "replicas");
        pointer(APPS + "StatefulSetSpec", "replicas", "revisionHistoryLimit");
        pointer(APPS + "StatefulSetStatus", "collisionCount");
        pointer(APPS + "RollingUpdateStatefulSetStrategy", "partition");
        pointer(APPS + "DaemonSetSpec", "revisionHistoryLimit");
        pointer(APPS + "DaemonSetStatus", "collisionCount");

        pointer(
                CORE + "PodSpec",
                "terminationGracePeriodSeconds",
                "activeDeadlineSeconds",
                "automountServiceAccountToken",
                "shareProcessNamespace",
                "priority",
                "enableServiceLinks",
                "setHostnameAsFQDN",
                "hostUsers",
                "runtimeClassName",
                "preemptionPolicy");
        pointer(
                CORE + "PodSecurityContext",
                "runAsUser",
                "runAsGroup",
                "runAsNonRoot",
                "fsGroup",
                "fsGroupChangePolicy");
        pointer(
                CORE + "SecurityContext",
                "privileged",
                "runAsUser",
                "runAsGroup",
                "runAsNonRoot",
                "readOnlyRootFilesystem",
                "allowPrivilegeEscalation",
                "procMount");
        pointer(
                CORE + "WindowsSecurityContextOptions",
                "gmsaCredentialSpecName",
                "gmsaCredentialSpec",
                "runAsUserName",
                "hostProcess");
        pointer(CORE + "SeccompProfile", "localhostProfile");
        pointer(CORE + "AppArmorProfile", "localhostProfile");
        pointer(CORE + "Container", "restartPolicy");
        pointer(CORE + "EphemeralContainerCommon", "restartPolicy");
        pointer(CORE + "ContainerStatus", "started");
        pointer(CORE + "Probe", "terminationGracePeriodSeconds");
        pointer(CORE + "GRPCAction", "service");
        pointer(CORE + "Toleration", "tolerationSeconds");
        pointer(CORE + "TopologySpreadConstraint", "minDomains", "nodeAffinityPolicy", "nodeTaintsPolicy");
        pointer(CORE + "ConfigMap", "immutable");
        pointer(CORE + "Secret", "immutable");
        pointer(CORE + "ServiceAccount", "automountServiceAccountToken");
        pointer(CORE + "ConfigMapEnvSource", "optional");
        pointer(CORE + "SecretEnvSource", "optional");
        pointer(CORE + "ConfigMapKeySelector", "optional");
        pointer(CORE + "SecretKeySelector", "optional");
        pointer(CORE + "ConfigMapVolumeSource", "defaultMode", "optional");
        pointer(CORE + "SecretVolumeSource", "defaultMode", "optional");
        pointer(CORE + "ConfigMapProjection", "optional");
        pointer(CORE + "SecretProjection", "optional");
        pointer(CORE + "ProjectedVolumeSource", "defaultMode");
        pointer(CORE + "DownwardAPIVolumeSource", "defaultMode");
        pointer(CORE + "DownwardAPIVolumeFile", "mode");
        pointer(CORE + "KeyToPath", "mode");
        pointer(CORE + "ServiceAccountTokenProjection", "expirationSeconds");
        pointer(CORE + "ClusterTrustBundleProjection", "name", "signerName", "optional");
        pointer(CORE + "HostPathVolumeSource", "type");
        pointer(CORE + "CSIVolumeSource", "readOnly", "fsType");
        pointer(CORE + "AzureDiskVolumeSource", "cachingMode", "fsType", "readOnly", "kind");
        pointer(CORE + "FCVolumeSource", "lun");
        pointer(CORE + "ISCSIVolumeSource", "initiatorName");
        pointer(CORE + "PersistentVolumeClaimSpec", "storageClassName", "volumeMode", "volumeAttributesClassName");
        pointer(CORE + "ClaimSource", "resourceClaimName", "resourceClaimTemplateName");
        pointer(CORE + "PodResourceClaimStatus", "resourceClaimName");
        pointer(CORE + "PersistentVolumeClaimStatus", "currentVolumeAttributesClassName");
        pointer(CORE + "TypedLocalObjectReference", "apiGroup");
        pointer(CORE + "TypedObjectReference", "apiGroup", "namespace");
        pointer(CORE + "PodDNSConfigOption", "value");
        pointer(CORE + "PortStatus", "error");
        pointer(CORE + "EndpointAddress", "nodeName");
        pointer(CORE + "VolumeMount", "recursiveReadOnly", "mountPropagation");
        pointer(CORE + "VolumeMountStatus", "recursiveReadOnly");
        pointer(CORE + "NodeRuntimeHandlerFeatures", "recursiveReadOnlyMounts");
        pointer(
                CORE + "ServiceSpec",
                "allocateLoadBalancerNodePorts",
                "loadBalancerClass",
                "internalTrafficPolicy",
                "ipFamilyPolicy",
                "trafficDistribution");
        pointer(CORE + "ServicePort", "appProtocol");
        pointer(CORE + "EndpointPort", "appProtocol");
        pointer(CORE + "ClientIPConfig", "timeoutSeconds");
        pointer(CORE + "LoadBalancerIngress", "ipMode");

        // issue 17 (groups): batch, networking, policy, autoscaling/v2 (on the v2beta2 wire schema), storage,
        // discovery, PersistentVolume
        String batch = "k8s.io.api.batch.v1.";
        pointer(
                batch + "JobSpec",
                "parallelism",
                "completions",
                "activeDeadlineSeconds",
                "backoffLimit",
                "backoffLimitPerIndex",
                "maxFailedIndexes",
                "manualSelector",
                "ttlSecondsAfterFinished",
                "completionMode",
                "suspend",
                "podReplacementPolicy",
                "managedBy");
        pointer(batch + "JobStatus", "failedIndexes", "terminating", "ready");
        pointer(batch + "PodFailurePolicyOnExitCodesRequirement", "containerName");
        pointer(batch + "SuccessPolicyRule", "succeededIndexes", "succeededCount");
        pointer(
                batch + "CronJobSpec",
                "timeZone",
                "startingDeadlineSeconds",
                "suspend",
                "successfulJobsHistoryLimit",
                "failedJobsHistoryLimit");
        String networking = "k8s.io.api.networking.v1.";
        pointer(networking + "IngressSpec", "ingressClassName");
        pointer(networking + "HTTPIngressPath", "pathType");
        pointer(networking + "IngressClassParametersReference", "aPIGroup", "scope", "namespace");
        pointer(networking + "NetworkPolicyPort", "protocol", "endPort");
        pointer(networking + "IngressPortStatus", "error");
        pointer("k8s.io.api.policy.v1.PodDisruptionBudgetSpec", "unhealthyPodEvictionPolicy");
        String autoscaling = "k8s.io.api.autoscaling.v2beta2.";
        pointer(autoscaling + "HorizontalPodAutoscalerSpec", "minReplicas");
        pointer(autoscaling + "HorizontalPodAutoscalerStatus", "observedGeneration");
        pointer(autoscaling + "HPAScalingRules", "stabilizationWindowSeconds", "selectPolicy");
        pointer(autoscaling + "MetricTarget", "averageUtilization");
        pointer(autoscaling + "MetricValueStatus", "averageUtilization");
        String storage = "k8s.io.api.storage.v1.";
        pointer(storage + "StorageClass", "reclaimPolicy", "allowVolumeExpansion", "volumeBindingMode");
        String discovery = "k8s.io.api.discovery.v1.";
        pointer(discovery + "Endpoint", "hostname", "nodeName", "zone");
        pointer(discovery + "EndpointConditions", "ready", "serving", "terminating");
        pointer(discovery + "EndpointPort", "name", "protocol", "port", "appProtocol");
        pointer(CORE + "PersistentVolumeSpec", "volumeMode", "volumeAttributesClassName");
        pointer(CORE + "LocalVolumeSource", "fsType");
        // value fields without omitempty
        required(batch + "CronJobSpec", "schedule");
        required(batch + "JobCondition", "type", "status");
        required(networking + "IPBlock", "cidr");
        required(
                "k8s.io.api.policy.v1.PodDisruptionBudgetStatus",
                "disruptionsAllowed",
                "currentHealthy",
                "desiredHealthy",
                "expectedPods");
        required(autoscaling + "HorizontalPodAutoscalerSpec", "maxReplicas");
        required(autoscaling + "HorizontalPodAutoscalerStatus", "desiredReplicas");
        required(autoscaling + "HPAScalingPolicy", "type", "value", "periodSeconds");
        required(autoscaling + "CrossVersionObjectReference", "kind", "name");
        required(autoscaling + "MetricTarget", "type");
        required(storage + "StorageClass", "provisioner");
        required(discovery + "EndpointSlice", "addressType");

        pointer(
                "k8s.io.api.coordination.v1.LeaseSpec",
                "holderIdentity",
                "leaseDurationSeconds",
                "leaseTransitions",
                "strategy",
                "preferredHolder");

        // ---- Go value fields without omitempty: always in JSON, zero included. These are the fields kube-openapi
        // marks required (it does so exactly when the json tag has no omitempty and the field no +optional
        // marker), listed once from the Kubernetes 1.32 OpenAPI schema (as client-java-api's models carry it),
        // plus the few +optional fields without omitempty (StatefulSetStatus.availableReplicas,
        // StatefulSetOrdinals.start, EventSeries.count).
        required(APPS + "DaemonSetCondition", "type", "status");
        required(
                APPS + "DaemonSetStatus",
                "currentNumberScheduled",
                "numberMisscheduled",
                "desiredNumberScheduled",
                "numberReady");
        required(APPS + "DeploymentCondition", "type", "status");
        required(APPS + "ReplicaSetCondition", "type", "status");
        required(APPS + "ReplicaSetStatus", "replicas");
        required(APPS + "StatefulSetCondition", "type", "status");
        required(APPS + "StatefulSetOrdinals", "start");
        required(APPS + "StatefulSetStatus", "replicas", "availableReplicas");
        required("k8s.io.api.authorization.v1.SubjectAccessReviewStatus", "allowed");
        required("k8s.io.api.authorization.v1.SubjectRulesReviewStatus", "incomplete");
        required("k8s.io.api.autoscaling.v1.ScaleStatus", "replicas");
        required(CORE + "AWSElasticBlockStoreVolumeSource", "volumeID");
        required(CORE + "AppArmorProfile", "type");
        required(CORE + "AttachedVolume", "name", "devicePath");
        required(CORE + "AzureDiskVolumeSource", "diskName", "diskURI");
        required(CORE + "AzureFileVolumeSource", "secretName", "shareName");
        required(CORE + "CSIVolumeSource", "driver");
        required(CORE + "CinderVolumeSource", "volumeID");
        required(CORE + "ClusterTrustBundleProjection", "path");
        required(CORE + "ConfigMapKeySelector", "key");
        required(CORE + "ConfigMapNodeConfigSource", "namespace", "name", "kubeletConfigKey");
        required(CORE + "Container", "name");
        required(CORE + "ContainerPort", "containerPort");
        required(CORE + "ContainerResizePolicy", "resourceName", "restartPolicy");
        required(CORE + "ContainerStateTerminated", "exitCode");
        required(CORE + "ContainerStatus", "name", "ready", "restartCount", "image", "imageID");
        required(CORE + "DaemonEndpoint", "Port");
        required(CORE + "DownwardAPIVolumeFile", "path");
        required(CORE + "EndpointAddress", "ip");
        required(CORE + "EndpointPort", "port");
        required(CORE + "EnvVar", "name");
        required(CORE + "EphemeralContainerCommon", "name");
        required(CORE + "FlexVolumeSource", "driver");
        required(CORE + "GCEPersistentDiskVolumeSource", "pdName");
        required(CORE + "GRPCAction", "port");
        required(CORE + "GitRepoVolumeSource", "repository");
        required(CORE + "GlusterfsVolumeSource", "endpoints", "path");
        required(CORE + "HTTPHeader", "name", "value");
        required(CORE + "HostAlias", "ip");
        required(CORE + "HostIP", "ip");
        required(CORE + "HostPathVolumeSource", "path");
        required(CORE + "ISCSIVolumeSource", "targetPortal", "iqn", "lun");
        required(CORE + "KeyToPath", "key", "path");
        required(CORE + "ModifyVolumeStatus", "status");
        required(CORE + "NFSVolumeSource", "server", "path");
        required(CORE + "NamespaceCondition", "type", "status");
        required(CORE + "NodeAddress", "type", "address");
        required(CORE + "NodeCondition", "type", "status");
        required(CORE + "NodeSelectorRequirement", "key", "operator");
        required(
                CORE + "NodeSystemInfo",
                "machineID",
                "systemUUID",
                "bootID",
                "kernelVersion",
                "osImage",
                "containerRuntimeVersion",
                "kubeletVersion",
                "kubeProxyVersion",
                "operatingSystem",
                "architecture");
        required(CORE + "ObjectFieldSelector", "fieldPath");
        required(CORE + "PersistentVolumeClaimCondition", "type", "status");
        required(CORE + "PersistentVolumeClaimVolumeSource", "claimName");
        required(CORE + "PhotonPersistentDiskVolumeSource", "pdID");
        required(CORE + "PodAffinityTerm", "topologyKey");
        required(CORE + "PodCondition", "type", "status");
        required(CORE + "PodIP", "ip");
        required(CORE + "PodOS", "name");
        required(CORE + "PodReadinessGate", "conditionType");
        required(CORE + "PodResourceClaim", "name");
        required(CORE + "PodResourceClaimStatus", "name");
        required(CORE + "PodSchedulingGate", "name");
        required(CORE + "PortStatus", "port", "protocol");
        required(CORE + "PortworxVolumeSource", "volumeID");
        required(CORE + "PreferredSchedulingTerm", "weight");
        required(CORE + "QuobyteVolumeSource", "registry", "volume");
        required(CORE + "RBDVolumeSource", "image");
        required(CORE + "ResourceClaim", "name");
        required(CORE + "ResourceFieldSelector", "resource");
        required(CORE + "ScaleIOVolumeSource", "gateway", "system");
        required(CORE + "SeccompProfile", "type");
        required(CORE + "SecretKeySelector", "key");
        required(CORE + "ServiceAccountTokenProjection", "path");
        required(CORE + "ServicePort", "port");
        required(CORE + "SleepAction", "seconds");
        required(CORE + "Sysctl", "name", "value");
        required(CORE + "Taint", "key", "effect");
        required(CORE + "TopologySpreadConstraint", "maxSkew", "topologyKey", "whenUnsatisfiable");
        required(CORE + "TypedLocalObjectReference", "kind", "name");
        required(CORE + "TypedObjectReference", "kind", "name");
        required(CORE + "Volume", "name");
        required(CORE + "VolumeDevice", "name", "devicePath");
        required(CORE + "VolumeMount", "name", "mountPath");
        required(CORE + "VolumeMountStatus", "name", "mountPath");
        required(CORE + "VsphereVirtualDiskVolumeSource", "volumePath");
        required(CORE + "WeightedPodAffinityTerm", "weight");
        required("k8s.io.api.events.v1.EventSeries", "count");
        required("k8s.io.api.rbac.v1.RoleRef", "apiGroup", "kind", "name");
        required("k8s.io.api.rbac.v1.Subject", "kind", "name");
        required(META + "Condition", "type", "status", "reason", "message");
        required(META + "LabelSelectorRequirement", "key", "operator");
        required(META + "OwnerReference", "apiVersion", "kind", "name", "uid");
        required(META + "WatchEvent", "type");
    }

    private ExplicitZeros() {}

    private static void pointer(String message, String... fields) {
        for (String field : fields) {
            KEPT.add(message + "." + field);
        }
    }

    private static void required(String message, String... fields) {
        pointer(message, fields);
    }

    /** Whether a decoded zero of this singular scalar field stays in the JSON. */
    static boolean keepsZero(FieldDescriptor field) {
        return KEPT.contains(field.getFullName());
    }

    /** The table, for the test that checks every entry names a real field. */
    static Set<String> all() {
        return Set.copyOf(KEPT);
    }
}
