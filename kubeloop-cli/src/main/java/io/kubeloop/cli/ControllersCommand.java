package io.kubeloop.cli;

import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.ParentCommand;
import tools.jackson.databind.JsonNode;

/**
 * {@code kubeloop controllers restart}: restarts the controllers and the scheduler of a running {@code kubeloop
 * apiserver --nodes N} with empty caches and queues, as a restarted kube-controller-manager.
 */
@Command(
        name = "controllers",
        mixinStandardHelpOptions = true,
        description = "Operate the control plane of a running kubeloop apiserver --nodes N.",
        subcommands = {ControllersCommand.Restart.class})
final class ControllersCommand implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @CommandLine.Mixin
    AdminTarget target = new AdminTarget();

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    @Command(
            name = "restart",
            mixinStandardHelpOptions = true,
            description = "Restart the controllers and the scheduler, with empty caches, as a restarted "
                    + "kube-controller-manager.")
    static final class Restart implements Callable<Integer> {
        @ParentCommand
        ControllersCommand parent;

        @Override
        public Integer call() {
            JsonNode answer = ClusterAdmin.call(parent.target, "POST", "/controllers/restart", null);
            PrintWriter out = parent.spec.commandLine().getOut();
            out.println(
                    "controllers restarted (start " + answer.path("generation").asInt() + ")");
            out.flush();
            return 0;
        }
    }
}
