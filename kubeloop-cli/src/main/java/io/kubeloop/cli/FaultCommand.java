package io.kubeloop.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code kubeloop fault ...}: injects faults into a running kubeloop API server through its admin path
 * {@code /kubeloop/faults} (the server must run with {@code --faults}); the server and credentials are found as
 * {@link AdminTarget} says.
 */
@Command(
        name = "fault",
        mixinStandardHelpOptions = true,
        description = {
            "Inject faults into a running kubeloop API server (started with --faults).",
            "e.g. kubeloop fault partition --seconds 30"
        },
        subcommands = {
            FaultCommand.CloseWatches.class,
            FaultCommand.Fail.class,
            FaultCommand.Latency.class,
            FaultCommand.Partition.class,
            FaultCommand.Stall.class,
            FaultCommand.Compact.class,
            FaultCommand.Clear.class,
            FaultCommand.Status.class
        })
final class FaultCommand implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @CommandLine.Mixin
    AdminTarget target = new AdminTarget();

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /** Sends one admin request and prints the answer; a non-2xx answer fails with the server's message. */
    int send(String method, String action, ObjectNode body) {
        AdminTarget.Answer answer = target.send(
                method,
                "/kubeloop/faults" + (action.isEmpty() ? "" : "/" + action),
                body == null ? null : Json.MAPPER.writeValueAsString(body));
        if (answer.notFound()) {
            throw new IllegalStateException("fault injection is not enabled on " + answer.server()
                    + " (start it with: kubeloop apiserver --faults)");
        }
        if (answer.code() / 100 != 2) {
            throw new IllegalStateException("the server answered " + answer.code() + ": " + answer.message());
        }
        spec.commandLine()
                .getOut()
                .println(
                        answer.json() == null
                                ? answer.body()
                                : Json.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(answer.json()));
        spec.commandLine().getOut().flush();
        return 0;
    }

    private static ObjectNode body() {
        return Json.MAPPER.createObjectNode();
    }

    /** Sets {@code field} to an optional option's value; an option not given (null) is left out of the body. */
    private static void putIfGiven(ObjectNode body, String field, Object value) {
        if (value != null) {
            body.set(field, Json.MAPPER.valueToTree(value));
        }
    }

    /** The options that bound a request fault ({@code fail}, {@code latency}): how long, and which requests. */
    static final class RequestScope {
        @Option(names = "--seconds", description = "End after this many seconds.")
        Double seconds;

        @Option(names = "--resource", description = "Only this resource (pods, deployments.apps).")
        String resource;

        @Option(
                names = "--verb",
                description = "Only this verb: get, list, watch, create, update, patch, delete, " + "deletecollection.")
        String verb;

        /** {@code body} with the options given; those not given are left out (the fault is not bounded by them). */
        ObjectNode putInto(ObjectNode body) {
            putIfGiven(body, "seconds", seconds);
            putIfGiven(body, "resource", resource);
            putIfGiven(body, "verb", verb);
            return body;
        }
    }

    @Command(
            name = "close-watches",
            mixinStandardHelpOptions = true,
            description = "End every open watch now, as a server-side timeout does.")
    static final class CloseWatches implements Callable<Integer> {
        @ParentCommand
        FaultCommand parent;

        @Option(names = "--resource", description = "Only watches of this resource (pods, deployments.apps).")
        String resource;

        @Override
        public Integer call() {
            ObjectNode b = body();
            putIfGiven(b, "resource", resource);
            return parent.send("POST", "close-watches", b);
        }
    }

    @Command(
            name = "fail",
            mixinStandardHelpOptions = true,
            description = "Answer requests with 429, 500 or 503: the next --count, or a --fraction for --seconds or "
                    + "until cleared.")
    static final class Fail implements Callable<Integer> {
        @ParentCommand
        FaultCommand parent;

        @Option(names = "--code", description = "429, 500 or 503 (default: ${DEFAULT-VALUE}).", defaultValue = "503")
        int code;

        @Option(names = "--count", description = "Fail only the next N requests in scope.")
        Integer count;

        @Option(names = "--fraction", description = "The probability, 0 to 1, that a request in scope fails.")
        Double fraction;

        @Option(names = "--retry-after", description = "Send Retry-After: N (client-go then retries up to 10 times).")
        Integer retryAfter;

        @CommandLine.Mixin
        RequestScope scope = new RequestScope();

        @Override
        public Integer call() {
            ObjectNode b = body().put("code", code);
            putIfGiven(b, "count", count);
            putIfGiven(b, "fraction", fraction);
            putIfGiven(b, "retryAfterSeconds", retryAfter);
            return parent.send("POST", "fail", scope.putInto(b));
        }
    }

    @Command(
            name = "latency",
            mixinStandardHelpOptions = true,
            description = "Delay requests by --millis plus up to --jitter-millis.")
    static final class Latency implements Callable<Integer> {
        @ParentCommand
        FaultCommand parent;

        @Option(names = "--millis", required = true, description = "The fixed delay in milliseconds.")
        int millis;

        @Option(names = "--jitter-millis", description = "Up to this many milliseconds more, drawn per request.")
        Integer jitterMillis;

        @CommandLine.Mixin
        RequestScope scope = new RequestScope();

        @Override
        public Integer call() {
            ObjectNode b = body().put("millis", millis);
            putIfGiven(b, "jitterMillis", jitterMillis);
            return parent.send("POST", "latency", scope.putInto(b));
        }
    }

    @Command(
            name = "partition",
            mixinStandardHelpOptions = true,
            description = "Pull the network cable: for --seconds, accept connections but send nothing.")
    static final class Partition implements Callable<Integer> {
        @ParentCommand
        FaultCommand parent;

        @Option(names = "--seconds", required = true, description = "How long.")
        double seconds;

        @Option(names = "--user-agent", description = "Only clients whose User-Agent starts with this.")
        String userAgent;

        @Override
        public Integer call() {
            ObjectNode b = body().put("seconds", seconds);
            putIfGiven(b, "userAgent", userAgent);
            return parent.send("POST", "partition", b);
        }
    }

    @Command(
            name = "stall",
            mixinStandardHelpOptions = true,
            description = "Hold watch events for --seconds while requests and writes go on, then deliver them.")
    static final class Stall implements Callable<Integer> {
        @ParentCommand
        FaultCommand parent;

        @Option(names = "--seconds", required = true, description = "How long.")
        double seconds;

        @Option(names = "--resource", description = "Only watches of this resource (pods, deployments.apps).")
        String resource;

        @Override
        public Integer call() {
            ObjectNode b = body().put("seconds", seconds);
            putIfGiven(b, "resource", resource);
            return parent.send("POST", "stall", b);
        }
    }

    @Command(
            name = "compact",
            mixinStandardHelpOptions = true,
            description = "Compact the history now: resuming from an older resourceVersion gets 410 Gone.")
    static final class Compact implements Callable<Integer> {
        @ParentCommand
        FaultCommand parent;

        @Override
        public Integer call() {
            return parent.send("POST", "compact", body());
        }
    }

    @Command(name = "clear", mixinStandardHelpOptions = true, description = "End every fault now.")
    static final class Clear implements Callable<Integer> {
        @ParentCommand
        FaultCommand parent;

        @Override
        public Integer call() {
            return parent.send("DELETE", "", null);
        }
    }

    @Command(name = "status", mixinStandardHelpOptions = true, description = "Show the faults in force.")
    static final class Status implements Callable<Integer> {
        @ParentCommand
        FaultCommand parent;

        @Override
        public Integer call() {
            return parent.send("GET", "", null);
        }
    }
}
