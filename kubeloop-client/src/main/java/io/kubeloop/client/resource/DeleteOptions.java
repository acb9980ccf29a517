package io.kubeloop.client.resource;

import io.kubeloop.client.codec.Decoding;
import tools.jackson.databind.node.ObjectNode;

/**
 * Options of a delete, sent as a {@code DeleteOptions} body (as kubectl and client-go do).
 *
 * <pre>{@code
 * DeleteOptions.defaults().withPropagation(Propagation.FOREGROUND).withPreconditions(uid, null)
 * }</pre>
 *
 * @param propagation what happens to dependents; null for the resource's default (background for most)
 * @param gracePeriodSeconds for pods: seconds before the kubelet kills them (0: at once); null for the default
 * @param preconditionUid delete only if the object still has this uid (else 409 Conflict); null for any
 * @param preconditionResourceVersion delete only at this resourceVersion (else 409 Conflict); null for any
 * @param dryRun validate and return the result without deleting
 */
public record DeleteOptions(
        Propagation propagation,
        Long gracePeriodSeconds,
        String preconditionUid,
        String preconditionResourceVersion,
        boolean dryRun) {

    /** kube's {@code propagationPolicy}. */
    public enum Propagation {
        /** Leave dependents without their owner. */
        ORPHAN("Orphan"),
        /** Delete the object now; the garbage collector deletes dependents afterwards. */
        BACKGROUND("Background"),
        /** Keep the object (with a {@code foregroundDeletion} finalizer) until its blocking dependents are gone. */
        FOREGROUND("Foreground");

        private final String value;

        Propagation(String value) {
            this.value = value;
        }

        public String value() {
            return value;
        }
    }

    private static final DeleteOptions DEFAULTS = new DeleteOptions(null, null, null, null, false);

    public DeleteOptions {
        if (gracePeriodSeconds != null && gracePeriodSeconds < 0) {
            throw new IllegalArgumentException("gracePeriodSeconds must be ≥ 0: " + gracePeriodSeconds);
        }
    }

    public static DeleteOptions defaults() {
        return DEFAULTS;
    }

    public DeleteOptions withPropagation(Propagation propagation) {
        return new DeleteOptions(propagation, gracePeriodSeconds, preconditionUid, preconditionResourceVersion, dryRun);
    }

    public DeleteOptions withGracePeriodSeconds(Long seconds) {
        return new DeleteOptions(propagation, seconds, preconditionUid, preconditionResourceVersion, dryRun);
    }

    public DeleteOptions withPreconditions(String uid, String resourceVersion) {
        return new DeleteOptions(propagation, gracePeriodSeconds, uid, resourceVersion, dryRun);
    }

    public DeleteOptions withDryRun(boolean dryRun) {
        return new DeleteOptions(propagation, gracePeriodSeconds, preconditionUid, preconditionResourceVersion, dryRun);
    }

    /** The {@code meta.k8s.io/v1 DeleteOptions} body. */
    ObjectNode toJson(boolean dryRunAll) {
        ObjectNode body = Decoding.standard().mapper().createObjectNode();
        body.put("kind", "DeleteOptions");
        body.put("apiVersion", "v1");
        if (propagation != null) {
            body.put("propagationPolicy", propagation.value());
        }
        if (gracePeriodSeconds != null) {
            body.put("gracePeriodSeconds", gracePeriodSeconds);
        }
        if (preconditionUid != null || preconditionResourceVersion != null) {
            ObjectNode p = body.putObject("preconditions");
            if (preconditionUid != null) {
                p.put("uid", preconditionUid);
            }
            if (preconditionResourceVersion != null) {
                p.put("resourceVersion", preconditionResourceVersion);
            }
        }
        if (dryRun || dryRunAll) {
            body.putArray("dryRun").add("All");
        }
        return body;
    }
}
