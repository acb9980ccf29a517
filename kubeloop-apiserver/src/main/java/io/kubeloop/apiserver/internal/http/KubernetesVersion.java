package io.kubeloop.apiserver.internal.http;

import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * What {@code GET /version} reports. kubectl's dispatcher picks its binary from {@code minor}, so the
 * embedded server reports the Kubernetes release whose protocol it implements: 1.32.
 */
record KubernetesVersion(String major, String minor, String gitVersion) {

    static final KubernetesVersion SERVED = new KubernetesVersion("1", "32", "v1.32.4");

    ObjectNode toJson(JsonMapper json) {
        ObjectNode v = json.createObjectNode();
        v.put("major", major);
        v.put("minor", minor);
        v.put("gitVersion", gitVersion);
        v.put("gitCommit", "kubeloop");
        v.put("gitTreeState", "clean");
        v.put("buildDate", "2025-04-22T00:00:00Z");
        v.put("goVersion", "go1.23.6");
        v.put("compiler", "gc");
        v.put(
                "platform",
                System.getProperty("os.name").toLowerCase(java.util.Locale.ROOT).replace(" ", "") + "/"
                        + (System.getProperty("os.arch").equals("aarch64") ? "arm64" : "amd64"));
        return v;
    }
}
