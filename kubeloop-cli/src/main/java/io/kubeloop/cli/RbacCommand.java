package io.kubeloop.cli;

import io.kubeloop.controller.Manager;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code kubeloop rbac}: prints the Role or ClusterRole YAML that a user's manager needs ({@link Manager#rbac(String)}),
 * derived from its informers, controllers and leader election. The manager is built, never started.
 */
@Command(
        name = "rbac",
        mixinStandardHelpOptions = true,
        description = {
            "Print the RBAC Role/ClusterRole YAML a kubeloop Manager needs, derived from its informers, "
                    + "controllers, events and leader election.",
            "The class builds the manager without starting it: a 'public static Manager manager()' method, "
                    + "or a Supplier<Manager>.",
            "Example: kubeloop rbac --class-path target/classes --class com.example.Operator | kubectl apply -f -"
        })
final class RbacCommand implements Callable<Integer> {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @CommandLine.Mixin
    ManagerClass managerClass = new ManagerClass();

    @Option(
            names = "--name",
            description = "The name of the Role/ClusterRole (default: ${DEFAULT-VALUE}).",
            defaultValue = "kubeloop-manager")
    String name;

    @Override
    public Integer call() {
        if (!managerClass.given()) {
            throw new CommandLine.ParameterException(spec.commandLine(), "Missing required option: '--class=<class>'");
        }
        try (Manager manager = managerClass.load()) {
            spec.commandLine().getOut().print(manager.rbac(name));
            spec.commandLine().getOut().flush();
        }
        return 0;
    }
}
