package io.kubeloop.apiserver.internal.rbac;

import com.sun.net.httpserver.HttpExchange;
import io.fabric8.kubernetes.api.model.Status;
import io.kubeloop.apiserver.internal.auth.RequestUser;
import io.kubeloop.apiserver.internal.auth.UserInfo;
import io.kubeloop.apiserver.internal.storage.Store;
import io.kubeloop.clock.Clock;
import io.kubeloop.model.ResourceType;
import io.kubeloop.model.StatusReason;
import io.kubeloop.model.Statuses;
import java.util.Objects;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The server's access step between authentication and routing, and the review endpoints. Internal to
 * kubeloop; enable it with {@link io.kubeloop.apiserver.EmbeddedApiServer.Builder#rbac(boolean)}.
 *
 * <p>For every request, {@link #admit}:
 * <ol>
 *   <li>applies {@linkplain Impersonation impersonation} headers, if the authenticated user
 *       ({@link RequestUser#of}) may impersonate, and then {@linkplain RequestUser#set replaces} the request's
 *       identity with the impersonated one;
 *   <li>authorizes the request's {@linkplain RequestAttributes attributes} for that identity.
 * </ol>
 *
 * <p>With RBAC every decision comes from Role, ClusterRole, RoleBinding and ClusterRoleBinding objects as
 * they are at that moment ({@link RbacAuthorizer}), members of {@code system:masters} are always allowed, and
 * the {@linkplain BootstrapPolicy bootstrap policy} is stored at start. Without RBAC everything is allowed,
 * but impersonation still changes who the request acts as.
 */
public final class AccessControl {

    private final Authorizer authorizer;
    /** Without RBAC no request is refused, so {@link #admit} need not work out what a request is. */
    private final boolean allowsEverything;

    private final Reviews reviews;
    private final JsonMapper json = JsonMapper.builder().build();

    private AccessControl(Authorizer authorizer, RuleResolver rules) {
        this.allowsEverything = authorizer == Authorizer.ALWAYS_ALLOW;
        this.authorizer = authorizer.withPrivilegedGroup();
        this.reviews = new Reviews(json, this.authorizer, rules);
    }

    /** Everyone may do everything; impersonation and reviews work (every review is allowed). */
    public static AccessControl allowAll() {
        return new AccessControl(Authorizer.ALWAYS_ALLOW, RuleResolver.EVERYTHING);
    }

    /** RBAC over the objects in {@code store}, after storing the bootstrap roles and bindings in it. */
    public static AccessControl rbac(Store store, Clock clock) {
        Objects.requireNonNull(store, "store");
        BootstrapPolicy.install(store, Objects.requireNonNull(clock, "clock"));
        RbacAuthorizer rbac = new RbacAuthorizer(store);
        return new AccessControl(rbac, rbac);
    }

    /**
     * Impersonates and authorizes one request.
     *
     * @return null if the request may proceed (its identity now the impersonated one, if any); otherwise the
     *     Status to answer with: 403 Forbidden, or 400 for impersonation headers without a user
     */
    public Status admit(HttpExchange exchange) {
        try {
            UserInfo real = RequestUser.of(exchange);
            UserInfo user = Impersonation.apply(exchange.getRequestHeaders(), real, authorizer);
            if (user != real) {
                RequestUser.set(exchange, user);
            }
            if (allowsEverything) {
                return null;
            }
            Attributes attributes = RequestAttributes.of(
                    user,
                    exchange.getRequestMethod(),
                    exchange.getRequestURI().getPath(),
                    exchange.getRequestURI().getRawQuery());
            Decision decision = authorizer.authorize(attributes);
            return decision.allowed() ? null : Forbidden.of(attributes, decision.reason());
        } catch (StatusException e) {
            return e.status();
        }
    }

    /** Whether {@code type} is a review kind, answered by {@link #review} instead of being stored. */
    public boolean isReview(ResourceType type) {
        return Reviews.serves(type);
    }

    /** A reply: its HTTP code and JSON body (the review, or a Status). */
    public record Reply(int code, JsonNode body) {}

    /**
     * Answers a request to a review kind: 201 with the review for a POST to its collection, 405 for any other
     * method or an object path, 404 below a namespace.
     */
    public Reply review(HttpExchange exchange, ResourceType type, byte[] body) {
        try {
            Attributes target = RequestAttributes.of(
                    RequestUser.of(exchange),
                    exchange.getRequestMethod(),
                    exchange.getRequestURI().getPath(),
                    exchange.getRequestURI().getRawQuery());
            if (!target.namespace().isEmpty()) {
                throw new StatusException(Statuses.routeNotFound()); // the review kinds are cluster-scoped
            }
            if (!target.name().isEmpty() || !target.subresource().isEmpty()) {
                throw new StatusException(Statuses.failure(
                        StatusReason.MethodNotAllowed,
                        "the server does not allow this method on the requested resource"));
            }
            JsonNode reviewed = reviews.create(
                    exchange.getRequestMethod(),
                    exchange.getRequestHeaders().getFirst("Content-Type"),
                    body,
                    type,
                    RequestUser.of(exchange));
            return new Reply(201, reviewed);
        } catch (StatusException e) {
            return new Reply(e.status().getCode(), json.valueToTree(e.status()));
        }
    }
}
