package io.kubeloop.apiserver.internal.rbac;

import io.kubeloop.apiserver.internal.auth.UserInfo;
import java.util.List;

/** Lists the rules a user holds in a namespace, for SelfSubjectRulesReview. Implementations are thread-safe. */
@FunctionalInterface
interface RuleResolver {

    /** Every verb on everything: what a server without RBAC grants. */
    RuleResolver EVERYTHING = (user, namespace) -> new Rules(
            List.of(
                    new PolicyRule(List.of("*"), List.of("*"), List.of("*"), List.of(), List.of()),
                    new PolicyRule(List.of("*"), List.of(), List.of(), List.of(), List.of("*"))),
            "");

    Rules rulesFor(UserInfo user, String namespace);

    /**
     * @param rules every rule of every role bound to the user, cluster-wide or in the namespace
     * @param evaluationError why some bindings could not be followed (missing roles), or ""
     */
    record Rules(List<PolicyRule> rules, String evaluationError) {
        public Rules {
            rules = List.copyOf(rules);
        }
    }
}
