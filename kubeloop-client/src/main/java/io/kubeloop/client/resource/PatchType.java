package io.kubeloop.client.resource;

/** The four patch formats kube-apiserver accepts, by their {@code Content-Type}. */
public enum PatchType {
    /** RFC 7386 JSON merge patch: {@code null} deletes a field, lists are replaced whole. */
    MERGE("application/merge-patch+json"),
    /** RFC 6902 JSON patch: a list of {@code add}/{@code remove}/{@code replace}/{@code test}/... operations. */
    JSON("application/json-patch+json"),
    /** Kubernetes' strategic merge patch: lists merged by their patch merge key (built-in types only). */
    STRATEGIC("application/strategic-merge-patch+json"),
    /** Server-side apply: the body is the fields this manager owns; needs {@code fieldManager}. */
    APPLY("application/apply-patch+yaml");

    private final String contentType;

    PatchType(String contentType) {
        this.contentType = contentType;
    }

    public String contentType() {
        return contentType;
    }
}
