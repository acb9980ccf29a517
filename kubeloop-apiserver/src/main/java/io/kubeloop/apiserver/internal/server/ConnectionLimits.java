package io.kubeloop.apiserver.internal.server;

/**
 * The connection limits of the JDK's HTTP server, which serves the embedded API server: how long a client may
 * take to send a request, and how many connections a server holds at once. The JDK reads them from system
 * properties once per JVM, when its first HTTP server is created, and applies them to every server of the JVM;
 * there is no per-server setting. {@link #apply} sets kubeloop's defaults for those a user has not set, before
 * the first server is created. Invariant: a value the user set (on the command line or before the first server)
 * is never changed.
 *
 * <ul>
 *   <li>{@value #MAX_REQUEST_TIME_PROPERTY} (seconds): a connection that has not sent its whole request
 *       (headers and body) this long after its first byte is closed, so slow clients cannot hold connections
 *       forever. kubeloop's default is {@value #DEFAULT_MAX_REQUEST_SECONDS}, kube-apiserver's
 *       {@code ReadHeaderTimeout}; the JDK's own default is none. The response (a watch may last hours) is not
 *       limited.
 *   <li>{@value #MAX_CONNECTIONS_PROPERTY}: connections a server holds at once; a connection accepted beyond
 *       is closed at once. kubeloop's default is {@value #DEFAULT_MAX_CONNECTIONS}; the JDK's is none.
 *   <li>{@value #MAX_IDLE_CONNECTIONS_PROPERTY}: idle keep-alive connections a server keeps; one that goes idle
 *       beyond is closed at once. The JDK's default, 200, is below what a busy client pool holds (the embedded
 *       cluster's 1,000 kubelets register in parallel): the server then closed connections the client was about
 *       to reuse, and those requests failed with no answer. kubeloop's default is the connection cap.
 * </ul>
 */
public final class ConnectionLimits {

    public static final String MAX_REQUEST_TIME_PROPERTY = "sun.net.httpserver.maxReqTime";
    public static final String MAX_CONNECTIONS_PROPERTY = "jdk.httpserver.maxConnections";
    public static final String MAX_IDLE_CONNECTIONS_PROPERTY = "sun.net.httpserver.maxIdleConnections";
    static final long DEFAULT_MAX_REQUEST_SECONDS = 32;
    static final int DEFAULT_MAX_CONNECTIONS = 4096;

    private ConnectionLimits() {}

    /** Sets the defaults the user has not set; a no-op after the JVM's first HTTP server read them. */
    public static synchronized void apply() {
        if (System.getProperty(MAX_REQUEST_TIME_PROPERTY) == null) {
            System.setProperty(MAX_REQUEST_TIME_PROPERTY, Long.toString(DEFAULT_MAX_REQUEST_SECONDS));
        }
        if (System.getProperty(MAX_CONNECTIONS_PROPERTY) == null) {
            System.setProperty(MAX_CONNECTIONS_PROPERTY, Integer.toString(DEFAULT_MAX_CONNECTIONS));
        }
        if (System.getProperty(MAX_IDLE_CONNECTIONS_PROPERTY) == null) {
            System.setProperty(MAX_IDLE_CONNECTIONS_PROPERTY, Integer.toString(DEFAULT_MAX_CONNECTIONS));
        }
    }
}
