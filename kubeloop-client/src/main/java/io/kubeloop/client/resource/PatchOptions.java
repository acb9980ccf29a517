package io.kubeloop.client.resource;

/**
 * Options of a patch.
 *
 * @param fieldManager who makes the change (required by {@link PatchType#APPLY}); null: the server derives it
 *     from the User-Agent ({@code kubeloop})
 * @param force for {@link PatchType#APPLY}: take fields other managers own instead of a 409 conflict
 * @param dryRun validate and return the result without storing it
 */
public record PatchOptions(String fieldManager, boolean force, boolean dryRun) {

    private static final PatchOptions NONE = new PatchOptions(null, false, false);

    public static PatchOptions none() {
        return NONE;
    }

    /** A server-side apply by {@code fieldManager}, without force. */
    public static PatchOptions apply(String fieldManager) {
        return new PatchOptions(ListOptions.requireText(fieldManager, "fieldManager"), false, false);
    }

    public PatchOptions withForce(boolean force) {
        return new PatchOptions(fieldManager, force, dryRun);
    }

    public PatchOptions withDryRun(boolean dryRun) {
        return new PatchOptions(fieldManager, force, dryRun);
    }
}
