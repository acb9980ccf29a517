package io.kubeloop.client.config;

/** kubeconfig text for tests. */
final class Kubeconfigs {

    private Kubeconfigs() {}

    /** One cluster, user and context named {@code test}, current; the fields are indented lines. */
    static String single(String server, String clusterFields, String userFields) {
        return """
                apiVersion: v1
                kind: Config
                clusters:
                - name: test
                  cluster:
                    server: %s
                %susers:
                - name: test
                  user:
                %scontexts:
                - name: test
                  context:
                    cluster: test
                    user: test
                current-context: test
                """.formatted(server, clusterFields, userFields.isEmpty() ? "    {}\n" : userFields);
    }
}
