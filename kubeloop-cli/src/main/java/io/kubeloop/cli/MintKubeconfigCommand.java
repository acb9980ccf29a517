package io.kubeloop.cli;

import io.kubeloop.apiserver.internal.tls.CertificateAuthority;
import io.kubeloop.apiserver.internal.tls.Kubeconfig;
import io.kubeloop.apiserver.internal.tls.SecretFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code kubeloop mint-kubeconfig}: a client-certificate kubeconfig for a user, signed by the CA that
 * {@code kubeloop apiserver --tls --ca-dir DIR} keeps, without the server running.
 */
@Command(
        name = "mint-kubeconfig",
        mixinStandardHelpOptions = true,
        description = {
            "Write a kubeconfig that logs in to a 'kubeloop apiserver --tls --ca-dir DIR' server as a user,",
            "with a client certificate (CN=user, O=groups) signed by the CA in DIR, valid for a year."
        })
final class MintKubeconfigCommand implements Callable<Integer> {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--ca-dir", required = true, paramLabel = "DIR", description = "The server's --ca-dir.")
    Path caDir;

    @Option(
            names = "--server",
            paramLabel = "URL",
            description = "The server's URL (default: ${DEFAULT-VALUE}).",
            defaultValue = "https://127.0.0.1:6443")
    URI server;

    @Option(names = "--user", required = true, paramLabel = "NAME[,GROUP...]", description = "The user and its groups.")
    String user;

    @Option(
            names = {"-o", "--out"},
            required = true,
            paramLabel = "FILE",
            description = "Where to write the kubeconfig (mode 600).")
    Path out;

    @Override
    public Integer call() {
        if (!"https".equals(server.getScheme())) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(), "--server must be an https:// URL, got " + server);
        }
        String[] parts = user.split(",");
        if (parts.length == 0 || parts[0].isBlank()) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--user expects NAME[,GROUP...], got " + user);
        }
        CertificateAuthority ca;
        try {
            ca = CertificateAuthority.load(caDir);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--ca-dir: " + e.getMessage());
        }
        // Wall clock: the certificate's validity is judged by clients against their own real clocks.
        String kubeconfig = Kubeconfig.clientCertificate(
                server, ca, ca.issueClient(parts[0], List.of(parts).subList(1, parts.length), Instant.now()));
        try {
            SecretFiles.write(out, kubeconfig);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the kubeconfig to " + out + ": " + e.getMessage(), e);
        }
        spec.commandLine().getOut().println("kubeconfig for " + parts[0] + ": " + out.toAbsolutePath());
        spec.commandLine().getOut().flush();
        return 0;
    }
}
