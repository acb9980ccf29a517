package io.kubeloop.cli;

import io.kubeloop.apiserver.EmbeddedApiServer;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/**
 * The {@code kubeloop apiserver} options for HTTPS and authentication. Everything but {@code --tls} needs
 * {@code --tls}: kubectl sends credentials only over TLS. Error messages never repeat a token.
 */
final class TlsOptions {

    @Option(
            names = "--tls",
            description = "Serve HTTPS with a generated CA; require a client certificate or a "
                    + "bearer token (the written kubeconfig logs in as the admin, kubeloop-admin in system:masters).")
    boolean tls;

    @Option(
            names = "--ca-dir",
            paramLabel = "DIR",
            description = "Keep the CA in DIR (ca.crt, ca.key; created if "
                    + "absent) so kubeconfigs keep working across restarts. Needs --tls.")
    Path caDir;

    @Option(
            names = "--token",
            paramLabel = "NAME=TOKEN[,GROUP...]",
            description = "A static bearer token for user " + "NAME in the given groups; repeatable. Needs --tls.")
    List<String> tokens = new ArrayList<>();

    @Option(
            names = "--token-file",
            paramLabel = "FILE",
            description =
                    "Static tokens in kube-apiserver's CSV format: " + "token,user,uid,\"group1,group2\". Needs --tls.")
    Path tokenFile;

    @Option(
            names = "--user",
            paramLabel = "NAME[,GROUP...]=FILE",
            description = "Write a kubeconfig to FILE that "
                    + "logs in as NAME (in the groups) with a client certificate; repeatable. Needs --tls.")
    List<String> users = new ArrayList<>();

    EmbeddedApiServer.Builder configure(CommandLine cmd, EmbeddedApiServer.Builder builder) {
        if (!tls) {
            String needsTls = caDir != null
                    ? "--ca-dir"
                    : !tokens.isEmpty()
                            ? "--token"
                            : tokenFile != null ? "--token-file" : !users.isEmpty() ? "--user" : null;
            if (needsTls != null) {
                throw new CommandLine.ParameterException(
                        cmd, needsTls + " needs --tls: kubectl sends credentials only over TLS");
            }
            return builder;
        }
        builder = caDir == null ? builder.tls() : builder.tls(caDir);
        for (String t : tokens) {
            int eq = t.indexOf('=');
            String name = eq < 0 ? t : t.substring(0, eq);
            String[] tokenAndGroups =
                    eq < 0 ? new String[0] : t.substring(eq + 1).split(",");
            if (eq <= 0 || tokenAndGroups.length == 0 || tokenAndGroups[0].isEmpty()) {
                // the value may hold a token: name what was wrong without it
                throw new CommandLine.ParameterException(
                        cmd,
                        "--token expects NAME=TOKEN[,GROUP...]"
                                + (eq > 0 ? "; the token for " + name + " is empty" : ", with a user name before '='"));
            }
            try {
                builder.token(name, tokenAndGroups[0], Arrays.copyOfRange(tokenAndGroups, 1, tokenAndGroups.length));
            } catch (IllegalArgumentException e) {
                throw new CommandLine.ParameterException(cmd, "--token: " + e.getMessage());
            }
        }
        if (tokenFile != null) {
            try {
                builder.tokenFile(tokenFile);
            } catch (IllegalArgumentException | java.io.UncheckedIOException e) {
                throw new CommandLine.ParameterException(cmd, "--token-file: " + e.getMessage());
            }
        }
        for (String u : users) {
            parseUser(cmd, u); // fail before the server starts
        }
        return builder;
    }

    /** Writes the {@code --user} kubeconfigs; on failure closes the server, which is of no use without them. */
    void writeUserKubeconfigs(EmbeddedApiServer server, PrintWriter out) {
        try {
            for (String u : users) {
                UserFile user = parseUser(null, u);
                Path file = server.writeKubeconfigFor(user.file(), user.name(), user.groups())
                        .toAbsolutePath();
                out.println("kubeconfig for " + user.name() + ": " + file);
            }
        } catch (RuntimeException e) {
            server.close();
            throw e;
        }
    }

    record UserFile(String name, String[] groups, Path file) {}

    static UserFile parseUser(CommandLine cmd, String value) {
        int eq = value.indexOf('=');
        String[] nameAndGroups =
                eq <= 0 ? new String[0] : value.substring(0, eq).split(",");
        if (eq <= 0 || eq == value.length() - 1 || nameAndGroups.length == 0 || nameAndGroups[0].isBlank()) {
            throw new CommandLine.ParameterException(cmd, "--user expects NAME[,GROUP...]=FILE, got " + value);
        }
        return new UserFile(
                nameAndGroups[0],
                Arrays.copyOfRange(nameAndGroups, 1, nameAndGroups.length),
                Path.of(value.substring(eq + 1)));
    }
}
