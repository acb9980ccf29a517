package io.kubeloop.controller.internal.manager;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import io.kubeloop.controller.Manager;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A named set of checks served as one probe endpoint the way Kubernetes' {@code healthz} package serves them: the
 * aggregated path ({@code /readyz}) runs every check, {@code /readyz/<check>} runs one, {@code ?verbose} lists every
 * check even when all pass, {@code ?exclude=<check>} (repeatable) skips checks. Unlike controller-runtime, a failing
 * check's reason is printed (never "reason withheld"): the reasons are the manager's own (informer states, missing
 * RBAC rules) and carry no secrets. Thread-safe; checks may be added while serving.
 */
public final class HealthChecks implements HttpHandler {

    private static final Logger log = LoggerFactory.getLogger(Manager.class);

    private final String endpoint;
    private final ReentrantLock lock = new ReentrantLock();
    /** Guarded by {@code lock}; in the order added. */
    private final Map<String, Manager.HealthCheck> checks = new LinkedHashMap<>();

    /** @param endpoint the path without a slash, e.g. {@code readyz} */
    public HealthChecks(String endpoint) {
        this.endpoint = endpoint;
    }

    /** @throws IllegalArgumentException the name is taken or not a single path segment */
    public void add(String name, Manager.HealthCheck check) {
        Objects.requireNonNull(check, "check");
        if (name == null || name.isBlank() || !name.matches("[A-Za-z0-9._-]+")) {
            throw new IllegalArgumentException("health check name \"" + name
                    + "\" must be a non-empty path segment of letters, digits, '.', '_' or '-'");
        }
        lock.lock();
        try {
            if (checks.putIfAbsent(name, check) != null) {
                throw new IllegalArgumentException("a /" + endpoint + " check named \"" + name + "\" already exists");
            }
        } finally {
            lock.unlock();
        }
    }

    /** One check's outcome: {@code reason} is null when it passed. */
    public record Outcome(String name, String reason, boolean excluded) {
        public boolean ok() {
            return reason == null;
        }
    }

    /** Runs every check but the excluded ones, in order. */
    public List<Outcome> run(Set<String> exclude) {
        List<Map.Entry<String, Manager.HealthCheck>> all;
        lock.lock();
        try {
            all = List.copyOf(checks.entrySet());
        } finally {
            lock.unlock();
        }
        List<Outcome> outcomes = new ArrayList<>();
        for (Map.Entry<String, Manager.HealthCheck> e : all) {
            if (exclude.contains(e.getKey())) {
                outcomes.add(new Outcome(e.getKey(), null, true));
            } else {
                outcomes.add(new Outcome(e.getKey(), runOne(e.getKey(), e.getValue()), false));
            }
        }
        return outcomes;
    }

    /** Null when every check passes; otherwise the failed checks and their reasons, one a line. */
    public String failures() {
        StringBuilder b = new StringBuilder();
        for (Outcome o : run(Set.of())) {
            if (!o.ok()) {
                b.append(o.name()).append(": ").append(o.reason()).append('\n');
            }
        }
        return b.isEmpty() ? null : b.toString().strip();
    }

    private static String runOne(String name, Manager.HealthCheck check) {
        try {
            check.check();
            return null;
        } catch (Exception | Error e) {
            if (e instanceof Error && !(e instanceof AssertionError)) {
                log.warn("health check {} threw", name, e);
            }
            String m = e.getMessage();
            return m == null || m.isBlank() ? e.getClass().getSimpleName() : m;
        }
    }

    private Manager.HealthCheck find(String name) {
        lock.lock();
        try {
            return checks.get(name);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            String method = exchange.getRequestMethod();
            if (!method.equals("GET") && !method.equals("HEAD")) {
                exchange.getResponseHeaders().set("Allow", "GET, HEAD");
                respond(exchange, 405, "method " + method + " not allowed on /" + endpoint + "\n");
                return;
            }
            String path = exchange.getRequestURI().getPath();
            String base = "/" + endpoint;
            Map<String, List<String>> query = query(exchange.getRequestURI().getRawQuery());
            if (path.equals(base) || path.equals(base + "/")) {
                aggregated(exchange, query);
            } else if (path.startsWith(base + "/") && path.indexOf('/', base.length() + 1) < 0) {
                String name = path.substring(base.length() + 1);
                Manager.HealthCheck check = find(name);
                if (check == null) {
                    respond(exchange, 404, "no /" + endpoint + " check named \"" + name + "\"\n");
                    return;
                }
                String reason = runOne(name, check);
                if (reason == null) {
                    respond(exchange, 200, "ok");
                } else {
                    respond(exchange, 500, "internal server error: " + reason + "\n");
                }
            } else {
                respond(exchange, 404, "not found\n");
            }
        }
    }

    private void aggregated(HttpExchange exchange, Map<String, List<String>> query) throws IOException {
        Set<String> exclude = new LinkedHashSet<>();
        for (String value : query.getOrDefault("exclude", List.of())) {
            for (String name : value.split(",")) {
                if (!name.isBlank()) {
                    exclude.add(name.strip());
                }
            }
        }
        boolean verbose = query.containsKey("verbose");
        List<Outcome> outcomes = run(exclude);
        Set<String> unknown = new LinkedHashSet<>(exclude);
        outcomes.forEach(o -> unknown.remove(o.name()));
        boolean ok = outcomes.stream().allMatch(Outcome::ok);
        StringBuilder body = new StringBuilder();
        if (ok && !verbose) {
            body.append("ok");
        } else {
            for (Outcome o : outcomes) {
                if (o.excluded()) {
                    body.append("[+]").append(o.name()).append(" excluded: ok\n");
                } else if (o.ok()) {
                    body.append("[+]").append(o.name()).append(" ok\n");
                } else {
                    body.append("[-]")
                            .append(o.name())
                            .append(" failed: ")
                            .append(o.reason().replace("\n", "\n    "))
                            .append('\n');
                }
            }
            if (!unknown.isEmpty()) {
                body.append("warn: some health checks cannot be excluded: no matches for ")
                        .append(String.join(
                                ", ", unknown.stream().map(n -> "\"" + n + "\"").toList()))
                        .append('\n');
            }
            body.append(endpoint).append(ok ? " check passed\n" : " check failed\n");
        }
        respond(exchange, ok ? 200 : 500, body.toString());
    }

    private static Map<String, List<String>> query(String raw) {
        Map<String, List<String>> params = new LinkedHashMap<>();
        if (raw == null || raw.isEmpty()) {
            return params;
        }
        for (String pair : raw.split("&")) {
            int eq = pair.indexOf('=');
            String k = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
            String v = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
            params.computeIfAbsent(k, x -> new ArrayList<>()).add(v);
        }
        return params;
    }

    static void respond(HttpExchange exchange, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
        exchange.getResponseHeaders().set("X-Content-Type-Options", "nosniff");
        boolean head = exchange.getRequestMethod().equals("HEAD");
        exchange.sendResponseHeaders(status, head ? -1 : bytes.length);
        if (!head) {
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        }
    }
}
