package io.kubeloop.cli;

import io.kubeloop.controller.Manager;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code kubeloop run}: builds a user's manager, starts it and runs it until the JVM is asked to stop (SIGTERM, as
 * Kubernetes sends it, or Ctrl-C); a shutdown hook then closes the manager gracefully. The hook is the CLI's: the
 * library never installs one.
 */
@Command(
        name = "run",
        mixinStandardHelpOptions = true,
        description = {
            "Run a kubeloop Manager until SIGTERM or Ctrl-C, then shut it down gracefully.",
            "The class builds the manager: a 'public static Manager manager()' method, or a Supplier<Manager>."
        })
final class RunCommand implements Callable<Integer> {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @CommandLine.Mixin
    ManagerClass managerClass = new ManagerClass();

    @Override
    public Integer call() throws InterruptedException {
        Manager manager = managerClass.load();
        Thread hook = new Thread(manager::close, "kubeloop-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            manager.start();
        } catch (RuntimeException e) {
            manager.close();
            throw e;
        }
        spec.commandLine()
                .getOut()
                .println("kubeloop: manager " + managerClass.className + " started"
                        + (manager.metricsPort() < 0 ? "" : "; metrics on port " + manager.metricsPort())
                        + (manager.healthProbePort() < 0 ? "" : "; probes on port " + manager.healthProbePort()));
        spec.commandLine().getOut().flush();
        manager.awaitTermination();
        return 0;
    }
}
