package io.kubeloop.cli;

import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import tools.jackson.databind.JsonNode;

/**
 * {@code kubeloop node list|stop|start|partition}: operates the simulated nodes of a running {@code kubeloop apiserver
 * --nodes N} through its admin path {@code /kubeloop/cluster}. Stopping a node's kubelet is what a dead machine looks
 * like to the control plane: no more heartbeats, NotReady after the grace period, then its pods evicted.
 */
@Command(
        name = "node",
        mixinStandardHelpOptions = true,
        description = {
            "Stop, start or partition the simulated nodes of a running kubeloop apiserver --nodes N.",
            "e.g. kubeloop node stop node-2"
        },
        subcommands = {
            NodeCommand.ListNodes.class,
            NodeCommand.Stop.class,
            NodeCommand.Start.class,
            NodeCommand.Partition.class
        })
final class NodeCommand implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @CommandLine.Mixin
    AdminTarget target = new AdminTarget();

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    private int act(String name, String action, String query, String done) {
        JsonNode node = ClusterAdmin.call(target, "POST", "/nodes/" + name + "/" + action + query, null);
        PrintWriter out = spec.commandLine().getOut();
        out.println("node/" + node.path("name").asString(name) + " " + done + " (state "
                + node.path("state").asString("?") + ")");
        out.flush();
        return 0;
    }

    @Command(
            name = "list",
            mixinStandardHelpOptions = true,
            description = "List the nodes and what their kubelets do (RUNNING, STOPPED, PARTITIONED).")
    static final class ListNodes implements Callable<Integer> {
        @ParentCommand
        NodeCommand parent;

        @Override
        public Integer call() {
            JsonNode answer = ClusterAdmin.call(parent.target, "GET", "/nodes", null);
            int width = "NAME".length();
            for (JsonNode n : answer.path("items")) {
                width = Math.max(width, n.path("name").asString("").length());
            }
            PrintWriter out = parent.spec.commandLine().getOut();
            String format = "%-" + (width + 3) + "s%-14s%s%n";
            out.printf(format, "NAME", "KUBELET", "ZONE");
            for (JsonNode n : answer.path("items")) {
                out.printf(
                        format,
                        n.path("name").asString(""),
                        n.path("state").asString(""),
                        n.path("zone").asString(""));
            }
            out.flush();
            return 0;
        }
    }

    @Command(
            name = "stop",
            mixinStandardHelpOptions = true,
            description = "Stop a node's kubelet: no heartbeats, no status, its pods left as they are.")
    static final class Stop implements Callable<Integer> {
        @ParentCommand
        NodeCommand parent;

        @Parameters(paramLabel = "NAME", description = "The node (see kubeloop node list).")
        String name;

        @Override
        public Integer call() {
            return parent.act(name, "stop", "", "stopped");
        }
    }

    @Command(
            name = "start",
            mixinStandardHelpOptions = true,
            description = "Start a stopped or partitioned node's kubelet again.")
    static final class Start implements Callable<Integer> {
        @ParentCommand
        NodeCommand parent;

        @Parameters(paramLabel = "NAME", description = "The node (see kubeloop node list).")
        String name;

        @Override
        public Integer call() {
            return parent.act(name, "start", "", "started");
        }
    }

    @Command(
            name = "partition",
            mixinStandardHelpOptions = true,
            description = "Cut a node off from the API server (its pods keep running), for --seconds of cluster time "
                    + "or until started again.")
    static final class Partition implements Callable<Integer> {
        @ParentCommand
        NodeCommand parent;

        @Parameters(paramLabel = "NAME", description = "The node (see kubeloop node list).")
        String name;

        @Option(names = "--seconds", description = "How long, in cluster seconds (default: until kubeloop node start).")
        Double seconds;

        @Override
        public Integer call() {
            if (seconds != null && !(seconds > 0)) {
                throw new CommandLine.ParameterException(
                        parent.spec.commandLine(), "--seconds must be a positive number, was " + seconds);
            }
            return parent.act(
                    name,
                    "partition",
                    seconds == null ? "" : "?seconds=" + seconds,
                    seconds == null ? "partitioned until started" : "partitioned for " + seconds + " s");
        }
    }
}
