package io.kubeloop.cli;

import tools.jackson.databind.JsonNode;

/**
 * Requests to a running server's embedded cluster, through its admin path {@code /kubeloop/cluster} (the server must
 * run with {@code --nodes N}). A failed request becomes an {@link IllegalStateException} with a message for the user:
 * the Status's message (an unknown node names the cluster's nodes), or, when the server has no cluster at all, how to
 * start one.
 */
final class ClusterAdmin {

    private ClusterAdmin() {}

    /** Sends {@code method} to {@code /kubeloop/cluster<subpath>} and returns the JSON answer of a 2xx. */
    static JsonNode call(AdminTarget target, String method, String subpath, String jsonBody) {
        AdminTarget.Answer answer = target.send(method, "/kubeloop/cluster" + subpath, jsonBody);
        if (answer.code() / 100 == 2 && answer.json() != null) {
            return answer.json();
        }
        if (answer.notFound() && !subpath.isEmpty()) {
            // Is it the node or pod that is unknown, or is there no cluster at all? The root tells.
            AdminTarget.Answer root = target.send("GET", "/kubeloop/cluster", null);
            if (root.notFound()) {
                throw noCluster(answer);
            }
        } else if (answer.notFound()) {
            throw noCluster(answer);
        }
        throw new IllegalStateException("the server answered " + answer.code() + ": " + answer.message());
    }

    private static IllegalStateException noCluster(AdminTarget.Answer answer) {
        return new IllegalStateException("the server at " + answer.server() + " runs no embedded cluster (start "
                + "one with: kubeloop apiserver --nodes 3)");
    }
}
