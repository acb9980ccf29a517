package io.kubeloop.controller.internal.manager;

import io.kubeloop.client.errors.ForbiddenException;
import io.kubeloop.clock.Clock;
import io.kubeloop.controller.Manager;
import io.kubeloop.informer.InformerHealth;
import io.kubeloop.informer.InformerKey;
import io.kubeloop.informer.SharedIndexInformer;
import io.kubeloop.informer.reflector.WatchErrorHandler;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The lists and watches the API server refuses with 403 (client-go and controller-runtime only retry them quietly
 * at WARN, so a missing RBAC rule looks like a hang, controller-runtime.md §11.3). Every informer of the manager
 * gets {@link #handlerFor}: a 403 is logged once per informer and verb at ERROR, naming the verb, the resource, the
 * namespace and the rule that would grant it; readiness reports the same until the informer watches again (for a
 * second on the manager's clock, so that a list that succeeds before a refused watch does not clear it). Other
 * failures go to the informer's default handler.
 */
public final class RbacDenials {

    private static final Logger log = LoggerFactory.getLogger(Manager.class);
    private static final Pattern VERB = Pattern.compile("cannot (\\w+) resource");
    private static final Duration RECOVERED_AFTER = Duration.ofSeconds(1);

    /** What RBAC refuses one informer. */
    public record Denial(String informer, String verb, String group, String resource, String namespace, Instant at) {

        /** The rule, as one YAML flow line, that grants what an informer needs (get, list and watch). */
        public String rule() {
            return "{apiGroups: [\"" + group + "\"], resources: [\"" + resource
                    + "\"], verbs: [\"get\", \"list\", \"watch\"]}";
        }

        public String describe() {
            return "RBAC forbids " + verb + " on " + resource + (group.isEmpty() ? "" : "." + group)
                    + (namespace == null ? " at the cluster scope" : " in namespace \"" + namespace + "\"")
                    + " (informer " + informer + "); grant it with the rule " + rule()
                    + (namespace == null
                            ? " in a ClusterRole bound by a ClusterRoleBinding"
                            : " in a Role in namespace \"" + namespace
                                    + "\" (or a ClusterRole) bound by a RoleBinding there");
        }
    }

    private final Clock clock;
    private final Map<String, Denial> active = new ConcurrentHashMap<>();
    /** Informer name + verb already logged: a refusal is logged once, not on every retry. */
    private final Set<String> logged = ConcurrentHashMap.newKeySet();

    public RbacDenials(Clock clock) {
        this.clock = clock;
    }

    /** The handler to install on the informer of {@code key} before it starts. */
    public WatchErrorHandler handlerFor(InformerKey key) {
        return (reflectorName, error) -> {
            if (!(error instanceof ForbiddenException forbidden)) {
                WatchErrorHandler.LOGGING.onWatchError(reflectorName, error);
                return;
            }
            Matcher m = VERB.matcher(String.valueOf(forbidden.getMessage()));
            String verb = m.find() ? m.group(1) : "list";
            Denial d = new Denial(
                    reflectorName,
                    verb,
                    key.resource().group(),
                    key.resource().resource(),
                    key.namespace(),
                    clock.now());
            active.put(reflectorName, d);
            if (logged.add(reflectorName + " " + verb)) {
                log.error("{}; the server said: {}", d.describe(), forbidden.getMessage());
            }
        };
    }

    /**
     * The refusals still in force: an informer watching without error for a second since its last refusal has its
     * refusal cleared (and logged at INFO).
     */
    public List<Denial> current(Map<InformerKey, SharedIndexInformer<?>> informers) {
        Instant now = clock.now();
        for (SharedIndexInformer<?> informer : informers.values()) {
            Denial d = active.get(informer.name());
            if (d == null) {
                continue;
            }
            InformerHealth h = informer.health();
            boolean recovered = h.state() == InformerHealth.State.WATCHING
                    && h.lastError() == null
                    && h.since() != null
                    && h.since().isAfter(d.at())
                    && !h.since().plus(RECOVERED_AFTER).isAfter(now);
            if (recovered && active.remove(informer.name(), d)) {
                logged.remove(informer.name() + " " + d.verb());
                log.info("RBAC now allows informer {} to {} {}", informer.name(), d.verb(), d.resource());
            }
        }
        List<Denial> result = new ArrayList<>(active.values());
        result.sort(java.util.Comparator.comparing(Denial::informer));
        return result;
    }
}
