package io.kubeloop.demo.internal.scenario;

import java.util.LinkedHashMap;
import java.util.Map;

/** The demo's scenarios by name. */
public final class Scenarios {
    private Scenarios() {}

    /** Name → one line on what it does, in listing order; the first is the default. */
    public static Map<String, String> describe() {
        Map<String, String> all = new LinkedHashMap<>();
        all.put("incident", "everything below, one after another: the seed's 3 a.m. incident");
        all.put("kill-pods", "random pods of the PodSet deleted, a few at a time, at rest (the latency benchmark)");
        all.put("node-failure", "a node's kubelet stops: NotReady, tainted, its pods evicted and replaced");
        all.put("network-cut", "the operator's connection to the API server cut for 30 s, pods killed meanwhile");
        all.put("relist", "the watch history compacted and the operator's watches dropped: 410, relist");
        all.put("failover", "the leader killed: the standby takes over the Lease");
        all.put("noisy-neighbour", "a burst of ConfigMap writes in another namespace while pods are killed");
        return all;
    }
}
