package io.kubeloop.apiserver.internal.table;

/**
 * Column descriptions: the API field documentation (the Go types' {@code SwaggerDoc()}) that kube-apiserver
 * puts in {@code columnDefinitions[].description}. kubectl does not print them; they are here so that a table
 * reads like the real server's.
 */
final class Descriptions {

    private Descriptions() {}

    static final String NAME = "Name must be unique within a namespace. Is required when creating resources, "
            + "although some resources may allow a client to request the generation of an appropriate name "
            + "automatically. Name is primarily intended for creation idempotence and configuration definition. "
            + "Cannot be updated. More info: "
            + "https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names";
    static final String CREATION_TIMESTAMP = "CreationTimestamp is a timestamp representing the server time when "
            + "this object was created. It is not guaranteed to be set in happens-before order across separate "
            + "operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\n"
            + "Populated by the system. Read-only. Null for lists. More info: "
            + "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";

    static final String POD_IP = "podIP address allocated to the pod. Routable at least within the cluster. Empty "
            + "if not yet allocated.";
    static final String NODE_NAME = "NodeName indicates in which node this pod is scheduled. If empty, this pod is "
            + "a candidate for scheduling by the scheduler defined in schedulerName. Once this field is set, the "
            + "kubelet for this node becomes responsible for the lifecycle of this pod. This field should not be "
            + "used to express a desire for the pod to be scheduled on a specific node. "
            + "https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#nodename";
    static final String NOMINATED_NODE_NAME = "nominatedNodeName is set only when this pod preempts other pods on "
            + "the node, but it cannot be scheduled right away as preemption victims receive their graceful "
            + "termination periods. This field does not guarantee that the pod will be scheduled on this node. "
            + "Scheduler may decide to place the pod elsewhere if other nodes become available sooner. Scheduler "
            + "may also decide to give the resources on this node to a higher priority pod that is created after "
            + "preemption. As a result, this field may be different than PodSpec.nodeName when the pod is "
            + "scheduled.";
    static final String READINESS_GATES = "If specified, all readiness gates will be evaluated for pod readiness. A "
            + "pod is ready when all its containers are ready AND all conditions specified in the readiness gates "
            + "have status equal to \"True\" More info: "
            + "https://git.k8s.io/enhancements/keps/sig-network/580-pod-readiness-gates";
    static final String NODE_SELECTOR = "NodeSelector is a selector which must be true for the pod to fit on a node. "
            + "Selector which must match a node's labels for the pod to be scheduled on that node. More info: "
            + "https://kubernetes.io/docs/concepts/configuration/assign-pod-node/";

    static final String REPLICAS_DESIRED = "Replicas is the number of desired replicas. This is a pointer to "
            + "distinguish between explicit zero and unspecified. Defaults to 1. More info: "
            + "https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller/#what-is-a-replicationcontroller";
    static final String REPLICAS_CURRENT = "Replicas is the most recently observed number of replicas. More info: "
            + "https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller/#what-is-a-replicationcontroller";
    static final String REPLICAS_READY = "The number of ready replicas for this replica set.";
    static final String SELECTOR = "Selector is a label query over pods that should match the replica count. If "
            + "the selector is empty, it is defaulted to the labels present on the pod template. Label keys and "
            + "values that must match in order to be controlled by this replica set. More info: "
            + "https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors";
    static final String READY_PODS = "Number of the pod with ready state";
    static final String UPDATED_REPLICAS =
            "Total number of non-terminated pods targeted by this deployment that " + "have the desired template spec.";
    static final String AVAILABLE_REPLICAS =
            "Total number of available pods (ready for at least minReadySeconds) " + "targeted by this deployment.";
    static final String DEPLOYMENT_SELECTOR = "Label selector for pods. Existing ReplicaSets whose pods are "
            + "selected by this will be the ones affected by this deployment.";

    static final String DS_DESIRED = "The total number of nodes that should be running the daemon pod (including "
            + "nodes correctly running the daemon pod). More info: "
            + "https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/";
    static final String DS_CURRENT = "The number of nodes that are running at least 1 daemon pod and are supposed "
            + "to run the daemon pod. More info: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/";
    static final String DS_READY = "numberReady is the number of nodes that should be running the daemon pod and "
            + "have one or more of the daemon pod running with a Ready Condition. It will be removed in a future "
            + "version, please use the status.numberReady field.";
    static final String DS_UPDATED = "The total number of nodes that are running updated daemon pod";
    static final String DS_AVAILABLE = "The number of nodes that should be running the daemon pod and have one or "
            + "more of the daemon pod running and available (ready for at least spec.minReadySeconds)";
    static final String DS_SELECTOR = "A label query over pods that are managed by the daemon set. Must match in "
            + "order to be controlled. If empty, defaulted to labels on Pod template. More info: "
            + "https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors";

    static final String SERVICE_TYPE = "type determines how the Service is exposed. Defaults to ClusterIP. Valid "
            + "options are ExternalName, ClusterIP, NodePort, and LoadBalancer.";
    static final String CLUSTER_IP = "clusterIP is the IP address of the service and is usually assigned randomly. "
            + "If an address is specified manually, is in-range (as per system configuration), and is not in use, "
            + "it will be allocated to the service; otherwise creation of the service will fail.";
    static final String EXTERNAL_IPS = "externalIPs is a list of IP addresses for which nodes in the cluster will "
            + "also accept traffic for this service.  These IPs are not managed by Kubernetes.";
    static final String SERVICE_PORTS = "The list of ports that are exposed by this service. More info: "
            + "https://kubernetes.io/docs/concepts/services-networking/service/#virtual-ips-and-service-proxies";
    static final String SERVICE_SELECTOR = "Route service traffic to pods with label keys and values matching this "
            + "selector. If empty or not present, the service is assumed to have an external process managing its "
            + "endpoints, which Kubernetes will not modify. Only applies to types ClusterIP, NodePort, and "
            + "LoadBalancer. Ignored if type is ExternalName. More info: "
            + "https://kubernetes.io/docs/concepts/services-networking/service/";

    static final String ENDPOINT_SUBSETS = "The set of all endpoints is the union of all subsets. Addresses are "
            + "placed into subsets according to the IPs they share. A single address with multiple ports, some of "
            + "which are ready and some of which are not (because they come from different containers) will result "
            + "in the address being displayed in different subsets for the different ports. No address will appear "
            + "in both Addresses and NotReadyAddresses in the same subset. Sets of addresses and ports that "
            + "comprise a service.";

    static final String KUBELET_VERSION = "Kubelet Version reported by the node.";
    static final String NODE_ADDRESSES = "List of addresses reachable to the node. Queried from cloud provider, if "
            + "available. More info: https://kubernetes.io/docs/reference/node/node-status/#addresses";
    static final String OS_IMAGE =
            "OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 " + "(wheezy)).";
    static final String KERNEL_VERSION =
            "Kernel Version reported by the node from 'uname -r' (e.g. " + "3.16.0-0.bpo.4-amd64).";
    static final String CONTAINER_RUNTIME =
            "ContainerRuntime Version reported by the node through runtime remote " + "API (e.g. containerd://1.4.2).";

    static final String EVENT_LAST = "The time at which the most recent occurrence of this event was recorded.";
    static final String EVENT_TYPE = "Type of this event (Normal, Warning), new types could be added in the future";
    static final String EVENT_REASON = "This should be a short, machine understandable string that gives the reason "
            + "for the transition into the object's current status.";
    static final String EVENT_OBJECT = "The object that this event is about.";
    static final String EVENT_FIELD_PATH = "If referring to a piece of an object instead of an entire object, this "
            + "string should contain a valid JSON/Go field access statement, such as "
            + "desiredState.manifest.containers[2].";
    static final String EVENT_SOURCE =
            "The component reporting this event. Should be a short machine " + "understandable string.";
    static final String EVENT_MESSAGE = "A human-readable description of the status of this operation.";
    static final String EVENT_FIRST =
            "The time at which the event was first recorded. (Time of server receipt is " + "in TypeMeta.)";
    static final String EVENT_COUNT = "The number of times this event has occurred.";

    static final String SECRET_TYPE = "Used to facilitate programmatic handling of secret data. More info: "
            + "https://kubernetes.io/docs/concepts/configuration/secret/#secret-types";
    static final String SECRET_DATA = "Data contains the secret data. Each key must consist of alphanumeric "
            + "characters, '-', '_' or '.'. The serialized form of the secret data is a base64 encoded string, "
            + "representing the arbitrary (possibly non-string) data value here. Described in "
            + "https://tools.ietf.org/html/rfc4648#section-4";
    static final String CONFIGMAP_DATA = "Data contains the configuration data. Each key must consist of "
            + "alphanumeric characters, '-', '_' or '.'. Values with non-UTF-8 byte sequences must use the "
            + "BinaryData field. The keys stored in Data must not overlap with the keys in the BinaryData field, "
            + "this is enforced during validation process.";
    static final String SA_SECRETS = "Secrets is a list of the secrets in the same namespace that pods running "
            + "using this ServiceAccount are allowed to use. Pods are only limited to this list if this service "
            + "account has a \"kubernetes.io/enforce-mountable-secrets\" annotation set to \"true\". The "
            + "\"kubernetes.io/enforce-mountable-secrets\" annotation is deprecated since v1.32. Prefer separate "
            + "namespaces to isolate access to mounted secrets. This field should not be used to find auto-generated "
            + "service account token secrets for use outside of pods. Instead, tokens can be requested directly "
            + "using the TokenRequest API, or service account token secrets can be manually created. More info: "
            + "https://kubernetes.io/docs/concepts/configuration/secret";
    static final String LEASE_HOLDER = "holderIdentity contains the identity of the holder of a current lease. If "
            + "Coordinated Leader Election is used, the holder identity must be equal to the elected "
            + "LeaseCandidate.metadata.name field.";

    static final String SCALE_DESIRED = "replicas is the desired number of instances for the scaled object.";
    static final String SCALE_AVAILABLE =
            "replicas is the actual number of observed instances of the scaled " + "object.";
}
