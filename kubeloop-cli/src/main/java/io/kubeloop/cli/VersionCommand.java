package io.kubeloop.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code kubeloop version}: the kubeloop version and the Java runtime it runs on. */
@Command(name = "version", description = "Print the kubeloop version and the Java runtime it runs on.")
final class VersionCommand implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().getOut().println(describe());
    }

    static String kubeloopVersion() {
        try (InputStream in = VersionCommand.class.getResourceAsStream("version.properties")) {
            if (in == null) {
                return "unknown";
            }
            Properties p = new Properties();
            p.load(in);
            return p.getProperty("version", "unknown");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read kubeloop's version.properties", e);
        }
    }

    static String describe() {
        return "kubeloop " + kubeloopVersion() + " (Java " + Runtime.version() + ", "
                + System.getProperty("java.vendor", "unknown vendor") + "; "
                + System.getProperty("os.name") + " " + System.getProperty("os.arch") + ")";
    }

    /** Serves {@code kubeloop --version} with the same text. */
    static final class Provider implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {describe()};
        }
    }
}
