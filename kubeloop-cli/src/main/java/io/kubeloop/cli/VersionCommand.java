package io.kubeloop.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code kubeloop version}: the kubeloop version, the git commit it was built from (written by the build into
 * {@code version.properties}; "unknown" when built outside a git checkout) and the Java runtime it runs on.
 */
@Command(
        name = "version",
        description = "Print the kubeloop version, the commit it was built from and the Java " + "runtime it runs on.")
final class VersionCommand implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().getOut().println(describe());
    }

    /** version.properties as the build wrote it: version, commit, tree. */
    private static final Properties BUILD = load();

    private static Properties load() {
        Properties p = new Properties();
        try (InputStream in = VersionCommand.class.getResourceAsStream("version.properties")) {
            if (in != null) {
                p.load(in);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read kubeloop's version.properties", e);
        }
        return p;
    }

    /** A value the build filled in, or "unknown" (no file, or a placeholder a build without filtering left). */
    private static String built(String key) {
        String v = BUILD.getProperty(key, "").strip();
        return v.isEmpty() || v.startsWith("${") ? "unknown" : v;
    }

    static String kubeloopVersion() {
        return built("version");
    }

    /** The full hash of the commit kubeloop was built from, or "unknown" outside a git checkout. */
    static String commit() {
        return built("commit");
    }

    static String describe() {
        String commit = commit();
        String built = commit.equals("unknown")
                ? "commit unknown"
                : "commit " + commit + ("dirty".equals(built("tree")) ? " with uncommitted changes" : "");
        return "kubeloop " + kubeloopVersion() + " (" + built + "; Java " + Runtime.version() + ", "
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
