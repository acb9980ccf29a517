package io.kubeloop.apiserver.internal.patch;

import java.util.Map;

/**
 * The patch schemas of the built-in kinds the embedded server serves, transcribed from the Go struct tags
 * of k8s.io/api (core/v1, apps/v1, coordination/v1, events/v1) and k8s.io/apimachinery meta/v1:
 * {@code patchStrategy}/{@code patchMergeKey} for strategic merge patch, {@code +listType}/{@code +listMapKey}
 * and {@code +structType}/{@code +mapType=atomic} for server-side apply.
 *
 * <p>Only object-valued fields and lists that are not plain atomic lists need an entry: everything else is
 * {@link FieldMeta#DEDUCED}, which already means "maps merge, lists are replaced/atomic". Notable upstream
 * facts kept here: {@code tolerations}, {@code envFrom}, {@code containerStatuses}, {@code Node.spec.taints},
 * {@code StatefulSet.spec.volumeClaimTemplates} and {@code Namespace.spec.finalizers} have no patch strategy
 * (replaced); {@code hostIPs} and {@code Node.status.addresses} merge under SMP but are atomic under SSA;
 * container and service {@code ports} merge by one key under SMP ({@code containerPort}, {@code port}) and by
 * two under SSA (with {@code protocol}, default {@code TCP}).
 */
final class BuiltinSchemas {

    private BuiltinSchemas() {}

    // ---- meta/v1 -------------------------------------------------------------------------------------------

    static final SchemaType OWNER_REFERENCE = SchemaType.struct("OwnerReference");

    static final SchemaType MANAGED_FIELDS_ENTRY = SchemaType.struct("ManagedFieldsEntry");

    static final SchemaType OBJECT_META = SchemaType.struct("ObjectMeta")
            .stringMap("labels")
            .stringMap("annotations")
            .mergeList("ownerReferences", "uid", OWNER_REFERENCE)
            .set("finalizers", true)
            .atomicList("managedFields", MANAGED_FIELDS_ENTRY);

    static final SchemaType LABEL_SELECTOR_REQUIREMENT = SchemaType.struct("LabelSelectorRequirement");

    /** {@code +structType=atomic}: SSA owns a selector whole; SMP still merges its maps. */
    static final SchemaType LABEL_SELECTOR = SchemaType.struct("LabelSelector")
            .stringMap("matchLabels")
            .atomicList("matchExpressions", LABEL_SELECTOR_REQUIREMENT);

    static final SchemaType CONDITION = SchemaType.struct("Condition");

    // ---- core/v1: containers -------------------------------------------------------------------------------

    static final SchemaType OBJECT_FIELD_SELECTOR = SchemaType.struct("ObjectFieldSelector");
    static final SchemaType RESOURCE_FIELD_SELECTOR = SchemaType.struct("ResourceFieldSelector");
    static final SchemaType KEY_SELECTOR = SchemaType.struct("KeySelector");

    static final SchemaType ENV_VAR_SOURCE = SchemaType.struct("EnvVarSource")
            .atomicObject("fieldRef", OBJECT_FIELD_SELECTOR)
            .atomicObject("resourceFieldRef", RESOURCE_FIELD_SELECTOR)
            .atomicObject("configMapKeyRef", KEY_SELECTOR)
            .atomicObject("secretKeyRef", KEY_SELECTOR)
            .object("fileKeyRef", SchemaType.struct("FileKeySelector"));

    static final SchemaType ENV_VAR = SchemaType.struct("EnvVar").object("valueFrom", ENV_VAR_SOURCE);

    static final SchemaType ENV_FROM_SOURCE = SchemaType.struct("EnvFromSource")
            .atomicObject("configMapRef", SchemaType.struct("ConfigMapEnvSource"))
            .atomicObject("secretRef", SchemaType.struct("SecretEnvSource"));

    static final SchemaType CONTAINER_PORT = SchemaType.struct("ContainerPort");

    static final SchemaType RESOURCE_REQUIREMENTS = SchemaType.struct("ResourceRequirements")
            .stringMap("limits")
            .stringMap("requests")
            .mapList("claims", SchemaType.struct("ResourceClaim"), "name");

    static final SchemaType VOLUME_MOUNT = SchemaType.struct("VolumeMount");
    static final SchemaType VOLUME_DEVICE = SchemaType.struct("VolumeDevice");

    static final SchemaType PROBE = SchemaType.struct("Probe")
            .object("exec", SchemaType.struct("ExecAction"))
            .object("httpGet", SchemaType.struct("HTTPGetAction"))
            .object("tcpSocket", SchemaType.struct("TCPSocketAction"))
            .object("grpc", SchemaType.struct("GRPCAction"));

    static final SchemaType LIFECYCLE_HANDLER = SchemaType.struct("LifecycleHandler")
            .object("exec", SchemaType.struct("ExecAction"))
            .object("httpGet", SchemaType.struct("HTTPGetAction"))
            .object("tcpSocket", SchemaType.struct("TCPSocketAction"))
            .object("sleep", SchemaType.struct("SleepAction"));

    static final SchemaType LIFECYCLE = SchemaType.struct("Lifecycle")
            .object("postStart", LIFECYCLE_HANDLER)
            .object("preStop", LIFECYCLE_HANDLER);

    static final SchemaType SE_LINUX_OPTIONS = SchemaType.struct("SELinuxOptions");
    static final SchemaType WINDOWS_OPTIONS = SchemaType.struct("WindowsSecurityContextOptions");
    static final SchemaType SECCOMP_PROFILE = SchemaType.struct("SeccompProfile");
    static final SchemaType APP_ARMOR_PROFILE = SchemaType.struct("AppArmorProfile");

    static final SchemaType SECURITY_CONTEXT = SchemaType.struct("SecurityContext")
            .object("capabilities", SchemaType.struct("Capabilities"))
            .object("seLinuxOptions", SE_LINUX_OPTIONS)
            .object("windowsOptions", WINDOWS_OPTIONS)
            .object("seccompProfile", SECCOMP_PROFILE)
            .object("appArmorProfile", APP_ARMOR_PROFILE);

    private static SchemaType containerLike(String name) {
        return SchemaType.struct(name)
                .mergeList("ports", "containerPort", CONTAINER_PORT, "containerPort", "protocol")
                .modify("ports", m -> m.withKeyDefault("protocol", JsonValues.NODES.stringNode("TCP")))
                .atomicList("envFrom", ENV_FROM_SOURCE)
                .mergeList("env", "name", ENV_VAR)
                .object("resources", RESOURCE_REQUIREMENTS)
                .mergeList("volumeMounts", "mountPath", VOLUME_MOUNT)
                .mergeList("volumeDevices", "devicePath", VOLUME_DEVICE)
                .object("livenessProbe", PROBE)
                .object("readinessProbe", PROBE)
                .object("startupProbe", PROBE)
                .object("lifecycle", LIFECYCLE)
                .object("securityContext", SECURITY_CONTEXT);
    }

    static final SchemaType CONTAINER = containerLike("Container");

    static final SchemaType EPHEMERAL_CONTAINER = containerLike("EphemeralContainer");

    // ---- core/v1: volumes ----------------------------------------------------------------------------------

    static final SchemaType PERSISTENT_VOLUME_CLAIM_SPEC = SchemaType.struct("PersistentVolumeClaimSpec")
            .atomicObject("selector", LABEL_SELECTOR)
            .object(
                    "resources",
                    SchemaType.struct("VolumeResourceRequirements")
                            .stringMap("limits")
                            .stringMap("requests"))
            .atomicObject("dataSource", SchemaType.struct("TypedLocalObjectReference"))
            .object("dataSourceRef", SchemaType.struct("TypedObjectReference"));

    static final SchemaType PERSISTENT_VOLUME_CLAIM_STATUS = SchemaType.struct("PersistentVolumeClaimStatus")
            .stringMap("capacity")
            .mergeList("conditions", "type", SchemaType.struct("PersistentVolumeClaimCondition"))
            .stringMap("allocatedResources")
            .stringMap("allocatedResourceStatuses")
            .object("modifyVolumeStatus", SchemaType.struct("ModifyVolumeStatus"));

    static final SchemaType PERSISTENT_VOLUME_CLAIM = SchemaType.struct("PersistentVolumeClaim")
            .object("metadata", OBJECT_META)
            .object("spec", PERSISTENT_VOLUME_CLAIM_SPEC)
            .object("status", PERSISTENT_VOLUME_CLAIM_STATUS);

    static final SchemaType LOCAL_OBJECT_REFERENCE = SchemaType.struct("LocalObjectReference");

    static final SchemaType VOLUME = SchemaType.struct("Volume")
            .object("hostPath", SchemaType.struct("HostPathVolumeSource"))
            .object("emptyDir", SchemaType.struct("EmptyDirVolumeSource"))
            .object("secret", SchemaType.struct("SecretVolumeSource"))
            .object("configMap", SchemaType.struct("ConfigMapVolumeSource"))
            .object("persistentVolumeClaim", SchemaType.struct("PersistentVolumeClaimVolumeSource"))
            .object("projected", SchemaType.struct("ProjectedVolumeSource"))
            .object("downwardAPI", SchemaType.struct("DownwardAPIVolumeSource"))
            .object("nfs", SchemaType.struct("NFSVolumeSource"))
            .object("image", SchemaType.struct("ImageVolumeSource"))
            .object(
                    "csi",
                    SchemaType.struct("CSIVolumeSource")
                            .stringMap("volumeAttributes")
                            .object("nodePublishSecretRef", LOCAL_OBJECT_REFERENCE))
            .object(
                    "ephemeral",
                    SchemaType.struct("EphemeralVolumeSource")
                            .object(
                                    "volumeClaimTemplate",
                                    SchemaType.struct("PersistentVolumeClaimTemplate")
                                            .object("metadata", OBJECT_META)
                                            .object("spec", PERSISTENT_VOLUME_CLAIM_SPEC)));

    // ---- core/v1: pods -------------------------------------------------------------------------------------

    static final SchemaType NODE_SELECTOR =
            SchemaType.struct("NodeSelector").atomicList("nodeSelectorTerms", SchemaType.struct("NodeSelectorTerm"));

    static final SchemaType AFFINITY = SchemaType.struct("Affinity")
            .object(
                    "nodeAffinity",
                    SchemaType.struct("NodeAffinity")
                            .atomicObject("requiredDuringSchedulingIgnoredDuringExecution", NODE_SELECTOR))
            .object("podAffinity", SchemaType.struct("PodAffinity"))
            .object("podAntiAffinity", SchemaType.struct("PodAntiAffinity"));

    static final SchemaType POD_SECURITY_CONTEXT = SchemaType.struct("PodSecurityContext")
            .object("seLinuxOptions", SE_LINUX_OPTIONS)
            .object("windowsOptions", WINDOWS_OPTIONS)
            .object("seccompProfile", SECCOMP_PROFILE)
            .object("appArmorProfile", APP_ARMOR_PROFILE);

    static final SchemaType TOPOLOGY_SPREAD_CONSTRAINT =
            SchemaType.struct("TopologySpreadConstraint").atomicObject("labelSelector", LABEL_SELECTOR);

    static final SchemaType POD_SPEC = SchemaType.struct("PodSpec")
            .mergeList("volumes", "name", VOLUME)
            .modify("volumes", FieldMeta::withRetainKeys)
            .mergeList("initContainers", "name", CONTAINER)
            .mergeList("containers", "name", CONTAINER)
            .mergeList("ephemeralContainers", "name", EPHEMERAL_CONTAINER)
            .atomicObject("nodeSelector", SchemaType.mapOf("nodeSelector", FieldMeta.DEDUCED))
            .object("securityContext", POD_SECURITY_CONTEXT)
            .mergeList("imagePullSecrets", "name", LOCAL_OBJECT_REFERENCE)
            .object("affinity", AFFINITY)
            .atomicList("tolerations", SchemaType.struct("Toleration"))
            .mergeList("hostAliases", "ip", SchemaType.struct("HostAlias"))
            .object("dnsConfig", SchemaType.struct("PodDNSConfig"))
            .atomicList("readinessGates", SchemaType.struct("PodReadinessGate"))
            .stringMap("overhead")
            .mergeList(
                    "topologySpreadConstraints",
                    "topologyKey",
                    TOPOLOGY_SPREAD_CONSTRAINT,
                    "topologyKey",
                    "whenUnsatisfiable")
            .object("os", SchemaType.struct("PodOS"))
            .mergeList("schedulingGates", "name", SchemaType.struct("PodSchedulingGate"))
            .mergeList("resourceClaims", "name", SchemaType.struct("PodResourceClaim"))
            .modify("resourceClaims", FieldMeta::withRetainKeys)
            .object("resources", RESOURCE_REQUIREMENTS);

    static final SchemaType POD_STATUS = SchemaType.struct("PodStatus")
            .mergeList("conditions", "type", SchemaType.struct("PodCondition"))
            .mergeListAtomic("hostIPs", "ip", SchemaType.struct("HostIP"))
            .mergeList("podIPs", "ip", SchemaType.struct("PodIP"))
            .atomicList("initContainerStatuses", SchemaType.struct("ContainerStatus"))
            .atomicList("containerStatuses", SchemaType.struct("ContainerStatus"))
            .atomicList("ephemeralContainerStatuses", SchemaType.struct("ContainerStatus"))
            .mergeList("resourceClaimStatuses", "name", SchemaType.struct("PodResourceClaimStatus"))
            .modify("resourceClaimStatuses", FieldMeta::withRetainKeys);

    static final SchemaType POD_TEMPLATE_SPEC =
            SchemaType.struct("PodTemplateSpec").object("metadata", OBJECT_META).object("spec", POD_SPEC);

    // ---- kinds ---------------------------------------------------------------------------------------------

    private static SchemaType kind(String name) {
        return SchemaType.struct(name).object("metadata", OBJECT_META);
    }

    static final SchemaType POD = kind("Pod").object("spec", POD_SPEC).object("status", POD_STATUS);

    static final SchemaType NODE = kind("Node")
            .object(
                    "spec",
                    SchemaType.struct("NodeSpec")
                            .set("podCIDRs", true)
                            .atomicList("taints", SchemaType.struct("Taint"))
                            .object("configSource", SchemaType.struct("NodeConfigSource")))
            .object(
                    "status",
                    SchemaType.struct("NodeStatus")
                            .stringMap("capacity")
                            .stringMap("allocatable")
                            .mergeList("conditions", "type", SchemaType.struct("NodeCondition"))
                            .mergeListAtomic("addresses", "type", SchemaType.struct("NodeAddress"))
                            .object("daemonEndpoints", SchemaType.struct("NodeDaemonEndpoints"))
                            .object("nodeInfo", SchemaType.struct("NodeSystemInfo"))
                            .atomicList("images", SchemaType.struct("ContainerImage"))
                            .atomicList("volumesAttached", SchemaType.struct("AttachedVolume"))
                            .object("config", SchemaType.struct("NodeConfigStatus"))
                            .atomicList("runtimeHandlers", SchemaType.struct("NodeRuntimeHandler"))
                            .object("features", SchemaType.struct("NodeFeatures")));

    static final SchemaType SERVICE = kind("Service")
            .object(
                    "spec",
                    SchemaType.struct("ServiceSpec")
                            .mergeList("ports", "port", SchemaType.struct("ServicePort"), "port", "protocol")
                            .modify("ports", m -> m.withKeyDefault("protocol", JsonValues.NODES.stringNode("TCP")))
                            .atomicObject("selector", SchemaType.mapOf("selector", FieldMeta.DEDUCED))
                            .object("sessionAffinityConfig", SchemaType.struct("SessionAffinityConfig")))
            .object(
                    "status",
                    SchemaType.struct("ServiceStatus")
                            .object("loadBalancer", SchemaType.struct("LoadBalancerStatus"))
                            .mergeList("conditions", "type", CONDITION));

    static final SchemaType ENDPOINTS = kind("Endpoints").atomicList("subsets", SchemaType.struct("EndpointSubset"));

    static final SchemaType CONFIG_MAP = kind("ConfigMap").stringMap("data").stringMap("binaryData");

    static final SchemaType SECRET = kind("Secret").stringMap("data").stringMap("stringData");

    static final SchemaType SERVICE_ACCOUNT = kind("ServiceAccount")
            .mergeList("secrets", "name", SchemaType.struct("ObjectReference"))
            .atomicList("imagePullSecrets", LOCAL_OBJECT_REFERENCE);

    static final SchemaType NAMESPACE = kind("Namespace")
            .object("spec", SchemaType.struct("NamespaceSpec"))
            .object(
                    "status",
                    SchemaType.struct("NamespaceStatus")
                            .mergeList("conditions", "type", SchemaType.struct("NamespaceCondition")));

    static final SchemaType CORE_EVENT = kind("Event")
            .object("involvedObject", SchemaType.struct("ObjectReference"))
            .object("source", SchemaType.struct("EventSource"))
            .object("series", SchemaType.struct("EventSeries"))
            .object("related", SchemaType.struct("ObjectReference"));

    private static SchemaType workloadStatus(String name) {
        return SchemaType.struct(name)
                .mergeList("conditions", "type", SchemaType.struct(name.replace("Status", "Condition")));
    }

    static final SchemaType DEPLOYMENT = kind("Deployment")
            .object(
                    "spec",
                    SchemaType.struct("DeploymentSpec")
                            .atomicObject("selector", LABEL_SELECTOR)
                            .object("template", POD_TEMPLATE_SPEC)
                            .object(
                                    "strategy",
                                    SchemaType.struct("DeploymentStrategy")
                                            .object("rollingUpdate", SchemaType.struct("RollingUpdateDeployment")))
                            .modify("strategy", FieldMeta::withRetainKeys))
            .object("status", workloadStatus("DeploymentStatus"));

    static final SchemaType REPLICA_SET = kind("ReplicaSet")
            .object(
                    "spec",
                    SchemaType.struct("ReplicaSetSpec")
                            .atomicObject("selector", LABEL_SELECTOR)
                            .object("template", POD_TEMPLATE_SPEC))
            .object("status", workloadStatus("ReplicaSetStatus"));

    static final SchemaType STATEFUL_SET = kind("StatefulSet")
            .object(
                    "spec",
                    SchemaType.struct("StatefulSetSpec")
                            .atomicObject("selector", LABEL_SELECTOR)
                            .object("template", POD_TEMPLATE_SPEC)
                            .atomicList("volumeClaimTemplates", PERSISTENT_VOLUME_CLAIM)
                            .object(
                                    "updateStrategy",
                                    SchemaType.struct("StatefulSetUpdateStrategy")
                                            .object(
                                                    "rollingUpdate",
                                                    SchemaType.struct("RollingUpdateStatefulSetStrategy")))
                            .object(
                                    "persistentVolumeClaimRetentionPolicy",
                                    SchemaType.struct("StatefulSetPersistentVolumeClaimRetentionPolicy"))
                            .object("ordinals", SchemaType.struct("StatefulSetOrdinals")))
            .object("status", workloadStatus("StatefulSetStatus"));

    static final SchemaType DAEMON_SET = kind("DaemonSet")
            .object(
                    "spec",
                    SchemaType.struct("DaemonSetSpec")
                            .atomicObject("selector", LABEL_SELECTOR)
                            .object("template", POD_TEMPLATE_SPEC)
                            .object(
                                    "updateStrategy",
                                    SchemaType.struct("DaemonSetUpdateStrategy")
                                            .object("rollingUpdate", SchemaType.struct("RollingUpdateDaemonSet"))))
            .object("status", workloadStatus("DaemonSetStatus"));

    static final SchemaType LEASE = kind("Lease").object("spec", SchemaType.struct("LeaseSpec"));

    static final SchemaType EVENTS_EVENT = kind("Event")
            .object("regarding", SchemaType.struct("ObjectReference"))
            .object("related", SchemaType.struct("ObjectReference"))
            .object("series", SchemaType.struct("EventSeries"))
            .object("deprecatedSource", SchemaType.struct("EventSource"));

    // ---- issue 17 (groups): core/v1 volumes, batch/v1, networking.k8s.io/v1, policy/v1, autoscaling/v2,
    // storage.k8s.io/v1, discovery.k8s.io/v1 -------------------------------------------------------------------

    static final SchemaType PERSISTENT_VOLUME = kind("PersistentVolume")
            .object(
                    "spec",
                    SchemaType.struct("PersistentVolumeSpec")
                            .stringMap("capacity")
                            .atomicObject("claimRef", SchemaType.struct("ObjectReference"))
                            .object(
                                    "nodeAffinity",
                                    SchemaType.struct("VolumeNodeAffinity").atomicObject("required", NODE_SELECTOR))
                            .object(
                                    "csi",
                                    SchemaType.struct("CSIPersistentVolumeSource")
                                            .stringMap("volumeAttributes"))
                            .object("hostPath", SchemaType.struct("HostPathVolumeSource"))
                            .object("nfs", SchemaType.struct("NFSVolumeSource"))
                            .object("local", SchemaType.struct("LocalVolumeSource")))
            .object("status", SchemaType.struct("PersistentVolumeStatus"));

    static final SchemaType KIND_PERSISTENT_VOLUME_CLAIM = kind("PersistentVolumeClaim")
            .object("spec", PERSISTENT_VOLUME_CLAIM_SPEC)
            .object("status", PERSISTENT_VOLUME_CLAIM_STATUS);

    static final SchemaType JOB_SPEC = SchemaType.struct("JobSpec")
            .atomicObject("selector", LABEL_SELECTOR)
            .object("template", POD_TEMPLATE_SPEC)
            .object("podFailurePolicy", SchemaType.struct("PodFailurePolicy"))
            .object("successPolicy", SchemaType.struct("SuccessPolicy"));

    /** {@code JobStatus.conditions}: merge by type under SMP, {@code listType=atomic} under SSA. */
    static final SchemaType JOB = kind("Job")
            .object("spec", JOB_SPEC)
            .object(
                    "status",
                    SchemaType.struct("JobStatus")
                            .mergeListAtomic("conditions", "type", SchemaType.struct("JobCondition"))
                            .object(
                                    "uncountedTerminatedPods",
                                    SchemaType.struct("UncountedTerminatedPods")
                                            .set("succeeded", false)
                                            .set("failed", false)));

    static final SchemaType CRON_JOB = kind("CronJob")
            .object(
                    "spec",
                    SchemaType.struct("CronJobSpec")
                            .object(
                                    "jobTemplate",
                                    SchemaType.struct("JobTemplateSpec")
                                            .object("metadata", OBJECT_META)
                                            .object("spec", JOB_SPEC)))
            .object(
                    "status",
                    SchemaType.struct("CronJobStatus").atomicList("active", SchemaType.struct("ObjectReference")));

    /** networking.k8s.io/v1 lists (rules, paths, tls, ingress/egress) are all atomic: replaced whole. */
    static final SchemaType INGRESS = kind("Ingress")
            .object(
                    "spec",
                    SchemaType.struct("IngressSpec").object("defaultBackend", SchemaType.struct("IngressBackend")))
            .object(
                    "status",
                    SchemaType.struct("IngressStatus")
                            .object("loadBalancer", SchemaType.struct("IngressLoadBalancerStatus")));

    static final SchemaType INGRESS_CLASS = kind("IngressClass")
            .object(
                    "spec",
                    SchemaType.struct("IngressClassSpec")
                            .object("parameters", SchemaType.struct("IngressClassParametersReference")));

    static final SchemaType NETWORK_POLICY = kind("NetworkPolicy")
            .object("spec", SchemaType.struct("NetworkPolicySpec").atomicObject("podSelector", LABEL_SELECTOR));

    /**
     * {@code PodDisruptionBudgetSpec.selector} is {@code patchStrategy=replace} upstream; described atomic here
     * (SSA owns it whole; SMP still merges its maps, the one difference). Conditions merge by type.
     */
    static final SchemaType POD_DISRUPTION_BUDGET = kind("PodDisruptionBudget")
            .object("spec", SchemaType.struct("PodDisruptionBudgetSpec").atomicObject("selector", LABEL_SELECTOR))
            .object(
                    "status",
                    SchemaType.struct("PodDisruptionBudgetStatus")
                            .stringMap("disruptedPods")
                            .mergeList("conditions", "type", CONDITION, "type"));

    static final SchemaType HORIZONTAL_POD_AUTOSCALER = kind("HorizontalPodAutoscaler")
            .object(
                    "spec",
                    SchemaType.struct("HorizontalPodAutoscalerSpec")
                            .object("scaleTargetRef", SchemaType.struct("CrossVersionObjectReference"))
                            .object("behavior", SchemaType.struct("HorizontalPodAutoscalerBehavior")))
            .object(
                    "status",
                    SchemaType.struct("HorizontalPodAutoscalerStatus")
                            .mergeList(
                                    "conditions",
                                    "type",
                                    SchemaType.struct("HorizontalPodAutoscalerCondition"),
                                    "type"));

    static final SchemaType STORAGE_CLASS = kind("StorageClass").stringMap("parameters");

    static final SchemaType ENDPOINT_SLICE = kind("EndpointSlice");

    /*
     * rbac.authorization.k8s.io/v1 and apiextensions.k8s.io/v1 carry no patch strategies in k8s.io/api: every list
     * (rules, subjects, versions, conditions) is replaced and every map merged, which is what undescribed fields
     * do. They are listed so that strategic merge patch, what kubectl apply sends for an existing object, is
     * accepted as kube-apiserver accepts it for every built-in kind.
     */
    static final SchemaType ROLE = kind("Role");
    static final SchemaType CLUSTER_ROLE = kind("ClusterRole");
    static final SchemaType ROLE_BINDING = kind("RoleBinding");
    static final SchemaType CLUSTER_ROLE_BINDING = kind("ClusterRoleBinding");
    static final SchemaType CUSTOM_RESOURCE_DEFINITION = kind("CustomResourceDefinition");

    /** The root types by {@code group/version/kind} (core group as the empty string). */
    static final Map<String, SchemaType> BY_GVK = Map.ofEntries(
            Map.entry("/v1/Pod", POD),
            Map.entry("/v1/Node", NODE),
            Map.entry("/v1/Service", SERVICE),
            Map.entry("/v1/Endpoints", ENDPOINTS),
            Map.entry("/v1/ConfigMap", CONFIG_MAP),
            Map.entry("/v1/Secret", SECRET),
            Map.entry("/v1/ServiceAccount", SERVICE_ACCOUNT),
            Map.entry("/v1/Namespace", NAMESPACE),
            Map.entry("/v1/Event", CORE_EVENT),
            Map.entry("apps/v1/Deployment", DEPLOYMENT),
            Map.entry("apps/v1/ReplicaSet", REPLICA_SET),
            Map.entry("apps/v1/StatefulSet", STATEFUL_SET),
            Map.entry("apps/v1/DaemonSet", DAEMON_SET),
            Map.entry("coordination.k8s.io/v1/Lease", LEASE),
            Map.entry("events.k8s.io/v1/Event", EVENTS_EVENT),
            Map.entry("rbac.authorization.k8s.io/v1/Role", ROLE),
            Map.entry("rbac.authorization.k8s.io/v1/ClusterRole", CLUSTER_ROLE),
            Map.entry("rbac.authorization.k8s.io/v1/RoleBinding", ROLE_BINDING),
            Map.entry("rbac.authorization.k8s.io/v1/ClusterRoleBinding", CLUSTER_ROLE_BINDING),
            Map.entry("apiextensions.k8s.io/v1/CustomResourceDefinition", CUSTOM_RESOURCE_DEFINITION),
            Map.entry("/v1/PersistentVolume", PERSISTENT_VOLUME),
            Map.entry("/v1/PersistentVolumeClaim", KIND_PERSISTENT_VOLUME_CLAIM),
            Map.entry("batch/v1/Job", JOB),
            Map.entry("batch/v1/CronJob", CRON_JOB),
            Map.entry("networking.k8s.io/v1/Ingress", INGRESS),
            Map.entry("networking.k8s.io/v1/IngressClass", INGRESS_CLASS),
            Map.entry("networking.k8s.io/v1/NetworkPolicy", NETWORK_POLICY),
            Map.entry("policy/v1/PodDisruptionBudget", POD_DISRUPTION_BUDGET),
            Map.entry("autoscaling/v2/HorizontalPodAutoscaler", HORIZONTAL_POD_AUTOSCALER),
            Map.entry("storage.k8s.io/v1/StorageClass", STORAGE_CLASS),
            Map.entry("discovery.k8s.io/v1/EndpointSlice", ENDPOINT_SLICE));
}
