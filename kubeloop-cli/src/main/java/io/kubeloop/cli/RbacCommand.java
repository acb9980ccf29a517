package io.kubeloop.cli;

import io.kubeloop.client.KubernetesClient;
import io.kubeloop.client.config.ClientConfig;
import io.kubeloop.controller.Manager;
import io.kubeloop.demo.PodGuardian;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code kubeloop rbac}: prints the Role or ClusterRole YAML that a manager needs ({@link Manager#rbac(String)}),
 * derived from its informers, controllers and leader election: a user's ({@code --class}), or else the pod-guardian
 * operator's as {@code kubeloop run} runs it with the same {@code --namespace} and {@code --leader-election}. The
 * manager is built, never started.
 */
@Command(
        name = "rbac",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Print the RBAC Role/ClusterRole YAML a kubeloop Manager needs, derived from its informers, "
                    + "controllers, events and leader election.",
            "Without --class: what 'kubeloop run' (the pod-guardian operator) needs with the same --namespace and "
                    + "--leader-election. With --class, the class builds the manager without starting it: a "
                    + "'public static Manager manager()' method, or a Supplier<Manager>.",
            "Example: kubeloop rbac --class-path target/classes --class com.example.Operator | kubectl apply -f -"
        })
final class RbacCommand implements Callable<Integer> {

    /** The options that configure pod-guardian, meaningless with {@code --class}. */
    private static final List<String> POD_GUARDIAN_OPTIONS =
            List.of("--namespace", "--leader-election", "--lease-namespace");

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @CommandLine.Mixin
    ManagerClass managerClass = new ManagerClass();

    @Option(
            names = "--name",
            description = "The name of the Role/ClusterRole (default: ${DEFAULT-VALUE}).",
            defaultValue = "kubeloop-manager")
    String name;

    @Option(
            names = {"--namespace", "-n"},
            paramLabel = "<ns>",
            description = "Pod-guardian watching this namespace only: a Role (default: all namespaces, a ClusterRole).")
    String namespace;

    @Option(
            names = "--leader-election",
            description = "Pod-guardian with leader election: leases in the lease namespace too.")
    boolean leaderElection;

    @Option(
            names = "--lease-namespace",
            paramLabel = "<ns>",
            defaultValue = "default",
            description = "The namespace of pod-guardian's Lease (default: ${DEFAULT-VALUE}).")
    String leaseNamespace;

    @Override
    public Integer call() {
        CommandLine cmd = spec.commandLine();
        if (managerClass.given()) {
            ManagerClass.refusePodGuardianOptions(cmd, POD_GUARDIAN_OPTIONS);
            try (Manager manager = managerClass.load()) {
                print(manager);
            }
            return 0;
        }
        if (managerClass.classPath != null) {
            throw new CommandLine.ParameterException(cmd, "--class-path needs --class");
        }
        if (cmd.getParseResult().hasMatchedOption("--lease-namespace") && !leaderElection) {
            throw new CommandLine.ParameterException(cmd, "--lease-namespace needs --leader-election");
        }
        // The manager is never started, so its client never connects: any server will do.
        try (KubernetesClient nowhere = KubernetesClient.create(
                ClientConfig.builder().server("http://127.0.0.1:1").build())) {
            PodGuardian.Builder builder = PodGuardian.builder(nowhere);
            if (namespace != null) {
                builder.namespace(namespace);
            }
            if (leaderElection) {
                builder.leaderElection(leaseNamespace);
            }
            try (Manager manager = builder.build()) {
                print(manager);
            }
        }
        return 0;
    }

    private void print(Manager manager) {
        spec.commandLine().getOut().print(manager.rbac(name));
        spec.commandLine().getOut().flush();
    }
}
