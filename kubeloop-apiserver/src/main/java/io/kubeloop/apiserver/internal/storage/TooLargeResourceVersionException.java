package io.kubeloop.apiserver.internal.storage;

import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * A list asked for a revision the store has not reached: kube-apiserver's 504 Timeout. The exception's message
 * is {@code Too large resource version: N, current: M}; {@link #toStatus()} gives the full Status, whose message
 * is prefixed with {@code Timeout: }, with {@code details.retryAfterSeconds: 1} and the cause
 * {@code {"reason":"ResourceVersionTooLarge","message":"Too large resource version"}}.
 *
 * <p>The store never waits for a future revision on a list: it has no replication lag, so a revision above
 * {@link Store#currentRevision()} was never handed out.
 */
public final class TooLargeResourceVersionException extends StorageException {

    private static final long serialVersionUID = 1L;

    private final long requestedRevision;
    private final long currentRevision;

    TooLargeResourceVersionException(long requestedRevision, long currentRevision) {
        super("Too large resource version: " + requestedRevision + ", current: " + currentRevision, null);
        this.requestedRevision = requestedRevision;
        this.currentRevision = currentRevision;
    }

    public long requestedRevision() {
        return requestedRevision;
    }

    public long currentRevision() {
        return currentRevision;
    }

    @Override
    public int code() {
        return 504;
    }

    @Override
    public String reason() {
        return "Timeout";
    }

    @Override
    public ObjectNode toStatus() {
        ObjectNode status = super.toStatus();
        status.put("message", "Timeout: " + getMessage());
        return status;
    }

    @Override
    ObjectNode details() {
        ObjectNode details = JsonNodeFactory.instance.objectNode();
        ObjectNode cause = details.putArray("causes").addObject();
        cause.put("reason", "ResourceVersionTooLarge");
        cause.put("message", "Too large resource version");
        details.put("retryAfterSeconds", 1);
        return details;
    }
}
