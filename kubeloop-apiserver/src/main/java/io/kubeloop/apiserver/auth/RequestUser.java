package io.kubeloop.apiserver.auth;

import com.sun.net.httpserver.HttpExchange;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Where a request's identity travels between the server's stages: authentication {@link #set sets} it,
 * authorization, the review endpoints and the fault admin path {@link #of read} it.
 *
 * <p>Invariant: a request that reached {@link #of} without authentication having run (authentication off)
 * is {@link UserInfo#ADMIN}.
 *
 * <p>Not kept in {@link HttpExchange#setAttribute}: the JDK server stores exchange attributes in the
 * HttpContext, so they are shared by every request on that context. Identities are kept per exchange object
 * instead, weakly, so they go when the exchange does.
 */
public final class RequestUser {

    /** Guards {@link #USERS}; held only for one map operation. */
    private static final ReentrantLock LOCK = new ReentrantLock();
    /** Keyed by exchange identity (HttpExchange does not override equals). */
    private static final Map<HttpExchange, UserInfo> USERS = new WeakHashMap<>();

    private RequestUser() {}

    public static void set(HttpExchange exchange, UserInfo user) {
        LOCK.lock();
        try {
            USERS.put(exchange, user);
        } finally {
            LOCK.unlock();
        }
    }

    public static UserInfo of(HttpExchange exchange) {
        UserInfo user;
        LOCK.lock();
        try {
            user = USERS.get(exchange);
        } finally {
            LOCK.unlock();
        }
        return user != null ? user : UserInfo.ADMIN;
    }
}
