package io.kubeloop.cli;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code kubeloop} command. Its subcommands are added by {@link #commandLine(String...)}, not by the
 * annotation: picocli builds the model of every command it is given, and doing that for all of them costs a cold JVM
 * more than half a second that {@code kubeloop demo}, whose banner should show within a second, must not pay.
 */
@Command(
        name = "kubeloop",
        mixinStandardHelpOptions = true,
        versionProvider = VersionCommand.Provider.class,
        description = "Kubernetes controller machinery for Java: informers, work queues, controllers and an "
                + "embedded API server. Start with: kubeloop demo")
public final class Main implements Runnable {

    /** The subcommands by name, in the order the help lists them. */
    private static final Map<String, Supplier<Object>> SUBCOMMANDS = subcommands();

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        System.exit(run(args));
    }

    /** Runs the command line and returns its exit code; the testable entry point. */
    public static int run(String... args) {
        return commandLine(args)
                .setExecutionExceptionHandler((e, cmd, parsed) -> {
                    // A failure the user can act on (a port in use, an unwritable file): its message, no trace.
                    cmd.getErr().println("kubeloop: " + e.getMessage());
                    return 1;
                })
                .execute(args);
    }

    /**
     * The command line for {@code args}: when the first argument names a subcommand (other than {@code help}), with
     * that subcommand alone, which is all picocli needs to run it; otherwise with every subcommand, for the help, the
     * list of commands and the error that names an unknown one.
     */
    static CommandLine commandLine(String... args) {
        CommandLine cmd = new CommandLine(new Main());
        Supplier<Object> only = args.length == 0 || "help".equals(args[0]) ? null : SUBCOMMANDS.get(args[0]);
        if (only != null) {
            cmd.addSubcommand(args[0], only.get());
        } else {
            SUBCOMMANDS.forEach((name, command) -> cmd.addSubcommand(name, command.get()));
        }
        return cmd;
    }

    private static Map<String, Supplier<Object>> subcommands() {
        Map<String, Supplier<Object>> all = new LinkedHashMap<>();
        all.put("demo", DemoCommand::new);
        all.put("apiserver", ApiServerCommand::new);
        all.put("node", NodeCommand::new);
        all.put("pod", PodCommand::new);
        all.put("controllers", ControllersCommand::new);
        all.put("fault", FaultCommand::new);
        all.put("mint-kubeconfig", MintKubeconfigCommand::new);
        all.put("rbac", RbacCommand::new);
        all.put("run", RunCommand::new);
        all.put("version", VersionCommand::new);
        all.put("help", CommandLine.HelpCommand::new);
        return all;
    }

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }
}
