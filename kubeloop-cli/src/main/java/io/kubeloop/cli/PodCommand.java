package io.kubeloop.cli;

import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/**
 * {@code kubeloop pod crash NAME}: crashes a pod's containers on a running {@code kubeloop apiserver --nodes N}, as its
 * node's kubelet would report a crash (exit code 137, then a restart per the pod's restartPolicy, with
 * CrashLoopBackOff). To delete a pod, use {@code kubectl delete pod}.
 */
@Command(
        name = "pod",
        mixinStandardHelpOptions = true,
        description = {
            "Break pods of a running kubeloop apiserver --nodes N.",
            "e.g. kubeloop pod crash web-5d4f9-x2k8q"
        },
        subcommands = {PodCommand.Crash.class})
final class PodCommand implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @CommandLine.Mixin
    AdminTarget target = new AdminTarget();

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    @Command(
            name = "crash",
            mixinStandardHelpOptions = true,
            description = "Crash the pod's containers (exit code 137); the kubelet restarts them per restartPolicy.")
    static final class Crash implements Callable<Integer> {
        @ParentCommand
        PodCommand parent;

        @Parameters(paramLabel = "NAME", description = "The pod.")
        String name;

        @Option(
                names = {"-n", "--namespace"},
                description = "The pod's namespace (default: ${DEFAULT-VALUE}).",
                defaultValue = "default")
        String namespace;

        @Override
        public Integer call() {
            ClusterAdmin.call(parent.target, "POST", "/pods/" + namespace + "/" + name + "/crash", null);
            PrintWriter out = parent.spec.commandLine().getOut();
            out.println("pod/" + name + " crashed (namespace " + namespace + ")");
            out.flush();
            return 0;
        }
    }
}
