package io.kubeloop.client.codec;

/**
 * An object the server sent that could not be decoded to the requested Java type (a custom resource whose schema
 * moved on, a field the Java class declares with another type): what is known of it without its content, which may
 * hold secrets. Its identity comes from its {@code metadata} alone, read apart from the rest of the object, so it is
 * known even when the object's other fields do not fit the class.
 *
 * @param namespace the object's namespace; empty for a cluster-scoped object; null when unknown
 * @param name the object's name; null when unknown (its metadata could not be read either)
 * @param resourceVersion the object's resourceVersion; null when unknown
 * @param uid the object's uid; null when unknown
 * @param error why it did not decode: the Jackson error with the field path, never a value from the object
 */
public record UndecodableObject(String namespace, String name, String resourceVersion, String uid, String error) {

    public UndecodableObject {
        if (error == null || error.isBlank()) {
            throw new IllegalArgumentException("an undecodable object needs the error that made it so");
        }
    }

    /** Whether the object's name is known, so that a cache can find it by {@link #key()}. */
    public boolean hasName() {
        return name != null && !name.isEmpty();
    }

    /** {@code namespace/name}, or {@code name} for a cluster-scoped object; {@code <unknown>} without a name. */
    public String key() {
        if (!hasName()) {
            return "<unknown>";
        }
        return namespace == null || namespace.isEmpty() ? name : namespace + "/" + name;
    }

    @Override
    public String toString() {
        return key() + " at resourceVersion " + (resourceVersion == null ? "<unknown>" : resourceVersion) + ": "
                + error;
    }
}
