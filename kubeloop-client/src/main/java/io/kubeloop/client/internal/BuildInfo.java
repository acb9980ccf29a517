package io.kubeloop.client.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Locale;
import java.util.Properties;

/**
 * What the build wrote into {@code build.properties} next to this class: kubeloop's version, the git commit it was
 * built from and the Jackson version it was built with. Read once, when this class is first used.
 *
 * <p>A value is never a placeholder: a build that did not filter the file (or a commit the build could not learn,
 * outside a git checkout) reads as {@code "unknown"}.
 */
public final class BuildInfo {

    private static final Properties BUILD = load();

    private static final String VERSION = built("version");
    private static final String COMMIT = built("commit");
    private static final String JACKSON = built("jackson");
    private static final String USER_AGENT =
            "kubeloop/" + VERSION + " (" + goos() + "/" + goarch() + ") kubeloop/" + shortCommit();

    private BuildInfo() {}

    /** kubeloop's version, e.g. {@code 0.1.0}. */
    public static String version() {
        return VERSION;
    }

    /** The full hash of the commit kubeloop was built from, or {@code unknown}. */
    public static String commit() {
        return COMMIT;
    }

    /** The first 7 characters of {@link #commit()} (as client-go shortens it), or {@code unknown}. */
    public static String shortCommit() {
        return COMMIT.equals("unknown") ? COMMIT : COMMIT.substring(0, Math.min(7, COMMIT.length()));
    }

    /** The Jackson version kubeloop was built with, e.g. {@code 3.3.0}. */
    public static String jacksonVersion() {
        return JACKSON;
    }

    /**
     * The User-Agent in client-go's form ({@code kubectl/v1.32.4 (linux/amd64) kubernetes/4cb5f07}):
     * {@code kubeloop/0.1.0 (linux/amd64) kubeloop/1be69f6}, operating system and architecture named as Go names
     * them. An API server that derives a field manager from it takes {@code kubeloop}.
     */
    public static String userAgent() {
        return USER_AGENT;
    }

    private static Properties load() {
        Properties p = new Properties();
        try (InputStream in = BuildInfo.class.getResourceAsStream("build.properties")) {
            if (in != null) {
                p.load(in);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read kubeloop-client's build.properties", e);
        }
        return p;
    }

    private static String built(String key) {
        String v = BUILD.getProperty(key, "").strip();
        return v.isEmpty() || v.startsWith("${") ? "unknown" : v;
    }

    /** Go's GOOS for the common systems, else Java's name in lower case without spaces. */
    private static String goos() {
        String os = System.getProperty("os.name", "unknown").toLowerCase(Locale.ROOT);
        if (os.startsWith("mac") || os.startsWith("darwin")) {
            return "darwin";
        }
        if (os.startsWith("windows")) {
            return "windows";
        }
        return os.replaceAll("[^a-z0-9]", "");
    }

    /** Go's GOARCH for the common architectures, else Java's name. */
    private static String goarch() {
        String arch = System.getProperty("os.arch", "unknown").toLowerCase(Locale.ROOT);
        return switch (arch) {
            case "amd64", "x86_64" -> "amd64";
            case "aarch64", "arm64" -> "arm64";
            case "x86", "i386", "i486", "i586", "i686" -> "386";
            default -> arch.replaceAll("[^a-z0-9]", "");
        };
    }
}
