package io.kubeloop.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code kubeloop} command. Subcommands are added as the runtime grows. */
@Command(
        name = "kubeloop",
        mixinStandardHelpOptions = true,
        versionProvider = VersionCommand.Provider.class,
        description = "Kubernetes controller machinery for Java: informers, work queues, controllers and an "
                + "embedded API server. Start with: kubeloop demo",
        subcommands = {
            DemoCommand.class,
            ApiServerCommand.class,
            NodeCommand.class,
            PodCommand.class,
            ControllersCommand.class,
            FaultCommand.class,
            MintKubeconfigCommand.class,
            RbacCommand.class,
            RunCommand.class,
            VersionCommand.class,
            CommandLine.HelpCommand.class
        })
public final class Main implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        System.exit(run(args));
    }

    /** Runs the command line and returns its exit code; the testable entry point. */
    public static int run(String... args) {
        return new CommandLine(new Main())
                .setExecutionExceptionHandler((e, cmd, parsed) -> {
                    // A failure the user can act on (a port in use, an unwritable file): its message, no trace.
                    cmd.getErr().println("kubeloop: " + e.getMessage());
                    return 1;
                })
                .execute(args);
    }

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }
}
