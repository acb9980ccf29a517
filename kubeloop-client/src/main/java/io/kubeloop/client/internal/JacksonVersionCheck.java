package io.kubeloop.client.internal;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Refuses to run kubeloop's client on a Jackson it was not built for, with one message that names the versions
 * and the fix, instead of a {@code NoSuchMethodError} deep in decoding: the codec reads jackson-core's parser
 * internals, and Maven's nearest-wins easily mixes the Jackson of kubeloop with that of another library (fabric8's
 * client brings 3.2).
 *
 * <p>The rule: the class path's jackson-core and jackson-databind must both have the major.minor kubeloop was
 * built with (3.3.0 allows any 3.3.x), which is also what Jackson's own OSGi metadata demands of databind and core.
 * It is checked once per class loader, when this class is first used; {@link #verify()} then costs a field read.
 * The client calls it before it first touches Jackson: on reading a kubeconfig, on building a transport, on
 * building a {@code Decoding}'s mapper. {@code -Dkubeloop.jacksonCheck=false} turns the check off, for a user who
 * has tested another Jackson and takes the risk.
 */
public final class JacksonVersionCheck {

    /** The system property that turns the check off when it is {@code false}. */
    public static final String PROPERTY = "kubeloop.jacksonCheck";

    private static final Pattern MAJOR_MINOR = Pattern.compile("^(\\d+)\\.(\\d+)(?:\\D.*)?$");

    /** Null when the running Jackson is one kubeloop was built for (or the check is off); else why not. */
    private static final String PROBLEM = "false".equalsIgnoreCase(System.getProperty(PROPERTY))
            ? null
            : problem(BuildInfo.version(), BuildInfo.jacksonVersion(), coreVersion(), databindVersion());

    private JacksonVersionCheck() {}

    /**
     * Returns when the class path's Jackson is one kubeloop was built for.
     *
     * @throws IllegalStateException naming the versions found, the one expected and how to align them, otherwise
     */
    public static void verify() {
        if (PROBLEM != null) {
            throw new IllegalStateException(PROBLEM);
        }
    }

    /**
     * The message for running kubeloop {@code kubeloop} built with Jackson {@code built} on jackson-core
     * {@code core} and jackson-databind {@code databind}, or null when they fit. An unknown {@code built} (a build
     * that did not write it) checks nothing.
     */
    static String problem(String kubeloop, String built, String core, String databind) {
        String wanted = majorMinor(built);
        if (wanted == null || (wanted.equals(majorMinor(core)) && wanted.equals(majorMinor(databind)))) {
            return null;
        }
        return "kubeloop " + kubeloop + " needs Jackson " + wanted + ".x (it was built with " + built
                + "), but the class path has jackson-core " + core + " and jackson-databind " + databind
                + ". Align them: import io.kubeloop:kubeloop-bom:" + kubeloop + " in <dependencyManagement>"
                + " (Gradle: platform(\"io.kubeloop:kubeloop-bom:" + kubeloop + "\")), or manage every tools.jackson"
                + " artifact at " + built + " (tools.jackson:jackson-bom:" + built + "). To run anyway, at your own"
                + " risk: -D" + PROPERTY + "=false.";
    }

    /** "3.3" of "3.3.0" or "3.3.0-SNAPSHOT"; null when the text is no version. */
    private static String majorMinor(String version) {
        Matcher m = MAJOR_MINOR.matcher(version == null ? "" : version);
        return m.matches() ? m.group(1) + "." + m.group(2) : null;
    }

    // Each reads a class of its own jar only, so that a broken mix of jars still yields a version to print.

    private static String coreVersion() {
        try {
            return tools.jackson.core.json.PackageVersion.VERSION.toString();
        } catch (LinkageError e) {
            return "(unreadable: " + e + ")";
        }
    }

    private static String databindVersion() {
        try {
            return tools.jackson.databind.cfg.PackageVersion.VERSION.toString();
        } catch (LinkageError e) {
            return "(unreadable: " + e + ")";
        }
    }
}
