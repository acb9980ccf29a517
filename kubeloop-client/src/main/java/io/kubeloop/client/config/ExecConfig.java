package io.kubeloop.client.config;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A kubeconfig {@code exec} credential plugin: the command to run and how. The plugin prints an
 * {@code ExecCredential} ({@code client.authentication.k8s.io/v1} or {@code v1beta1}) with a token or a client
 * certificate and key; the credential is cached until its {@code expirationTimestamp}, and until the server
 * refuses it (see {@link Credentials#invalidate()}).
 *
 * @param apiVersion         {@link #V1} or {@link #V1BETA1}
 * @param command            the program; relative paths with a separator resolve against the kubeconfig's folder
 * @param args               its arguments
 * @param env                extra environment variables, on top of this process's
 * @param interactiveMode    {@code NEVER} or {@code IF_AVAILABLE}; a library has no terminal to offer, so the
 *                           plugin is always told it is not interactive ({@code ALWAYS} is refused)
 * @param provideClusterInfo whether {@code KUBERNETES_EXEC_INFO} carries the cluster (server, CA, TLS name)
 */
public record ExecConfig(
        String apiVersion,
        String command,
        List<String> args,
        Map<String, String> env,
        InteractiveMode interactiveMode,
        boolean provideClusterInfo) {

    public static final String V1 = "client.authentication.k8s.io/v1";
    public static final String V1BETA1 = "client.authentication.k8s.io/v1beta1";

    /** kubeconfig's {@code interactiveMode}. */
    public enum InteractiveMode {
        NEVER,
        IF_AVAILABLE,
        ALWAYS
    }

    public ExecConfig {
        Objects.requireNonNull(apiVersion, "apiVersion");
        if (!apiVersion.equals(V1) && !apiVersion.equals(V1BETA1)) {
            throw new ConfigException("exec apiVersion must be " + V1 + " or " + V1BETA1 + ", was " + apiVersion);
        }
        if (command == null || command.isBlank()) {
            throw new ConfigException("exec command is empty");
        }
        args = List.copyOf(args);
        env = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(env));
        Objects.requireNonNull(interactiveMode, "interactiveMode");
        if (interactiveMode == InteractiveMode.ALWAYS) {
            throw new ConfigException("exec interactiveMode Always needs a terminal, which a client library does not "
                    + "have; use Never or IfAvailable");
        }
    }

    /** A plugin with no extra environment, never interactive, without cluster info. */
    public static ExecConfig of(String apiVersion, String command, String... args) {
        return new ExecConfig(apiVersion, command, List.of(args), Map.of(), InteractiveMode.NEVER, false);
    }

    public ExecConfig withEnv(Map<String, String> env) {
        return new ExecConfig(apiVersion, command, args, env, interactiveMode, provideClusterInfo);
    }

    public ExecConfig withProvideClusterInfo(boolean provide) {
        return new ExecConfig(apiVersion, command, args, env, interactiveMode, provide);
    }

    /** Names the command and the environment variables, never their values (they may hold secrets). */
    @Override
    public String toString() {
        return "ExecConfig[" + apiVersion + ", command=" + command + ", " + args.size() + " args, env=" + env.keySet()
                + ", interactiveMode=" + interactiveMode + ", provideClusterInfo=" + provideClusterInfo + "]";
    }
}
