package io.kubeloop.apiserver.internal.auth;

import com.sun.net.httpserver.HttpExchange;
import io.kubeloop.apiserver.internal.exchange.ExchangeAttributes;

/**
 * Where a request's identity travels between the server's stages: authentication {@link #set sets} it,
 * authorization, the review endpoints and the fault admin path {@link #of read} it.
 *
 * <p>Invariant: a request that reached {@link #of} without authentication having run (authentication off)
 * is {@link UserInfo#ADMIN}. Identities are kept per exchange ({@link ExchangeAttributes}), never shared
 * between requests.
 */
public final class RequestUser {

    private static final String ATTRIBUTE = "io.kubeloop.apiserver.user";

    private RequestUser() {}

    public static void set(HttpExchange exchange, UserInfo user) {
        ExchangeAttributes.set(exchange, ATTRIBUTE, user);
    }

    public static UserInfo of(HttpExchange exchange) {
        return ExchangeAttributes.get(exchange, ATTRIBUTE) instanceof UserInfo user ? user : UserInfo.ADMIN;
    }
}
