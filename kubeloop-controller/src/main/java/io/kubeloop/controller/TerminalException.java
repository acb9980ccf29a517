package io.kubeloop.controller;

import java.io.Serial;

/**
 * A reconcile failure that retrying will not fix (controller-runtime's {@code reconcile.TerminalError}): the key is
 * not requeued, and the failure counts in {@code controller_runtime_terminal_reconcile_errors_total} as well as in
 * the errors total. Found anywhere in the cause chain of what a reconciler throws. The key's back-off is not reset
 * either (as controller-runtime): the next event starts where the retries stopped.
 */
public class TerminalException extends RuntimeException {

    @Serial
    private static final long serialVersionUID = 1L;

    public TerminalException(String message) {
        super(message);
    }

    public TerminalException(String message, Throwable cause) {
        super(message, cause);
    }

    public TerminalException(Throwable cause) {
        super(cause);
    }

    /** True if {@code failure} or one of its causes is a {@code TerminalException}. */
    public static boolean isTerminal(Throwable failure) {
        // bounded: a cause chain may be a cycle
        Throwable t = failure;
        for (int depth = 0; t != null && depth < 64; depth++, t = t.getCause()) {
            if (t instanceof TerminalException) {
                return true;
            }
        }
        return false;
    }
}
