package io.kubeloop.client.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import java.io.File;
import java.lang.reflect.InvocationTargetException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The client refuses a Jackson of another minor version with one message. The rule is pinned on
 * {@link JacksonVersionCheck#problem}; then the client itself runs on mixed class paths for real: its classes and
 * run-time dependencies (the build writes them to {@code target/runtime-classpath.txt}) in a class loader of their
 * own, with jackson-core and jackson-databind swapped for 3.2.x jars (which the build copies to {@code target/}).
 */
class JacksonVersionCheckTest {

    private static final Pattern CORE_OR_DATABIND = Pattern.compile("jackson-(core|databind)-\\d.*\\.jar");

    @Test
    void aPatchOrAPreReleaseOfTheBuiltMinorFits() {
        assertThat(JacksonVersionCheck.problem("1.0.0", "3.3.0", "3.3.0", "3.3.0"))
                .isNull();
        assertThat(JacksonVersionCheck.problem("1.0.0", "3.3.0", "3.3.7", "3.3.2"))
                .isNull();
        assertThat(JacksonVersionCheck.problem("1.0.0", "3.3.1", "3.3.0-rc1", "3.3.4-SNAPSHOT"))
                .isNull();
    }

    @Test
    void anotherMinorOrMajorOfEitherJarIsRefused() {
        assertThat(JacksonVersionCheck.problem("1.0.0", "3.3.0", "3.2.3", "3.3.0"))
                .isNotNull();
        assertThat(JacksonVersionCheck.problem("1.0.0", "3.3.0", "3.3.0", "3.4.0"))
                .isNotNull();
        assertThat(JacksonVersionCheck.problem("1.0.0", "3.3.0", "4.3.0", "4.3.0"))
                .isNotNull();
        assertThat(JacksonVersionCheck.problem("1.0.0", "3.3.0", "3.33.0", "3.33.0"))
                .isNotNull();
        assertThat(JacksonVersionCheck.problem(
                        "1.0.0", "3.3.0", "(unreadable: java.lang.NoClassDefFoundError)", "3.3.0"))
                .isNotNull();
    }

    @Test
    void aBuildThatDidNotWriteItsJacksonVersionChecksNothing() {
        assertThat(JacksonVersionCheck.problem("unknown", "unknown", "3.2.3", "2.0.0"))
                .isNull();
    }

    @Test
    void theMessageNamesBothVersionsFoundTheOneExpectedAndTheFix() {
        assertThat(JacksonVersionCheck.problem("1.2.0", "3.3.0", "3.2.3", "3.3.0"))
                .isEqualTo(
                        "kubeloop 1.2.0 needs Jackson 3.3.x (it was built with 3.3.0), but the class path has jackson-core"
                                + " 3.2.3 and jackson-databind 3.3.0. Align them: import io.kubeloop:kubeloop-bom:1.2.0 in"
                                + " <dependencyManagement> (Gradle: platform(\"io.kubeloop:kubeloop-bom:1.2.0\")), or manage every"
                                + " tools.jackson artifact at 3.3.0 (tools.jackson:jackson-bom:3.3.0). To run anyway, at your own"
                                + " risk: -Dkubeloop.jacksonCheck=false.");
    }

    @Test
    void theBuildWroteTheJacksonVersionOfThisClassPath() {
        assertThat(BuildInfo.jacksonVersion())
                .isEqualTo(tools.jackson.core.json.PackageVersion.VERSION.toString())
                .isEqualTo(tools.jackson.databind.cfg.PackageVersion.VERSION.toString());
        assertThatCode(JacksonVersionCheck::verify).doesNotThrowAnyException();
    }

    @Test
    void onTheJacksonItWasBuiltWithTheIsolatedClientDecodesAPod() throws Exception {
        try (URLClassLoader client = isolatedClient(null, null)) {
            Object pod = readPod(client);
            Object metadata = pod.getClass().getMethod("getMetadata").invoke(pod);
            assertThat(metadata.getClass().getMethod("getName").invoke(metadata))
                    .isEqualTo("p1");
        }
    }

    @Test
    void withAnOlderJacksonCoreDecodingFailsAtOnceWithTheMessage() throws Exception {
        try (URLClassLoader client = isolatedClient(mismatched("jackson-core"), null)) {
            assertThat(failure(() -> readPod(client)))
                    .isExactlyInstanceOf(IllegalStateException.class)
                    .hasMessage(expectedMessage(mismatchedVersion(), BuildInfo.jacksonVersion()));
        }
    }

    @Test
    void withAnOlderJacksonEveryEntryPointFailsWithTheMessage(@TempDir Path dir) throws Exception {
        Path kubeconfig = Files.writeString(dir.resolve("config"), """
                apiVersion: v1
                kind: Config
                clusters: [{name: c, cluster: {server: "http://127.0.0.1:1"}}]
                users: [{name: u, user: {}}]
                contexts: [{name: x, context: {cluster: c, user: u}}]
                current-context: x
                """, StandardCharsets.UTF_8);
        String expected = expectedMessage(mismatchedVersion(), mismatchedVersion());
        try (URLClassLoader client = isolatedClient(mismatched("jackson-core"), mismatched("jackson-databind"))) {
            assertThat(failure(() -> readPod(client)))
                    .isExactlyInstanceOf(IllegalStateException.class)
                    .hasMessage(expected);
            assertThat(failure(() -> client.loadClass("io.kubeloop.client.config.ClientConfig")
                            .getMethod("fromKubeconfig", Path.class)
                            .invoke(null, kubeconfig)))
                    .isExactlyInstanceOf(IllegalStateException.class)
                    .hasMessage(expected);
            assertThat(failure(() -> {
                        Class<?> configs = client.loadClass("io.kubeloop.client.config.ClientConfig");
                        Object builder = configs.getMethod("builder").invoke(null);
                        builder = builder.getClass()
                                .getMethod("server", String.class)
                                .invoke(builder, "http://127.0.0.1:1");
                        Object config = builder.getClass().getMethod("build").invoke(builder);
                        return client.loadClass("io.kubeloop.client.KubernetesClient")
                                .getMethod("create", configs)
                                .invoke(null, config);
                    }))
                    .isExactlyInstanceOf(IllegalStateException.class)
                    .hasMessage(expected);
        }
    }

    @Test
    void theCheckCanBeTurnedOffByAUserWhoTestedTheirJackson() throws Exception {
        // Read when the isolated loader initialises the check; no other test runs meanwhile (one JVM, in sequence).
        String before = System.setProperty(JacksonVersionCheck.PROPERTY, "false");
        try (URLClassLoader client = isolatedClient(mismatched("jackson-core"), null)) {
            Object pod = readPod(client);
            assertThat(pod.getClass().getName()).isEqualTo("io.fabric8.kubernetes.api.model.Pod");
        } finally {
            if (before == null) {
                System.clearProperty(JacksonVersionCheck.PROPERTY);
            } else {
                System.setProperty(JacksonVersionCheck.PROPERTY, before);
            }
        }
    }

    private static String expectedMessage(String core, String databind) {
        String v = BuildInfo.version();
        String built = BuildInfo.jacksonVersion();
        String minor = built.substring(0, built.lastIndexOf('.'));
        return "kubeloop " + v + " needs Jackson " + minor + ".x (it was built with " + built + "), but the class"
                + " path has jackson-core " + core + " and jackson-databind " + databind + ". Align them: import"
                + " io.kubeloop:kubeloop-bom:" + v + " in <dependencyManagement> (Gradle: platform(\"io.kubeloop:"
                + "kubeloop-bom:" + v + "\")), or manage every tools.jackson artifact at " + built
                + " (tools.jackson:jackson-bom:" + built + "). To run anyway, at your own risk:"
                + " -Dkubeloop.jacksonCheck=false.";
    }

    /** Decodes a pod with {@code Decoding.standard()} of the client in {@code loader}. */
    private static Object readPod(ClassLoader loader) throws Exception {
        Class<?> decoding = loader.loadClass("io.kubeloop.client.codec.Decoding");
        Object standard = decoding.getMethod("standard").invoke(null);
        Object mapper = decoding.getMethod("mapper").invoke(standard);
        return mapper.getClass()
                .getMethod("readValue", String.class, Class.class)
                .invoke(
                        mapper,
                        "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p1\"}}",
                        loader.loadClass("io.fabric8.kubernetes.api.model.Pod"));
    }

    /** What a reflective call threw, unwrapped; fails the test when it threw nothing. */
    private static Throwable failure(ReflectiveCall call) {
        try {
            call.run();
        } catch (InvocationTargetException e) {
            return e.getCause();
        } catch (Exception e) {
            throw new AssertionError("the call failed outside the client", e);
        }
        throw new AssertionError("the client ran on a Jackson of another minor version without complaint");
    }

    @FunctionalInterface
    private interface ReflectiveCall {
        Object run() throws Exception;
    }

    /**
     * kubeloop-client's classes and run-time class path in a loader whose parent is the platform loader (so nothing
     * comes from the test's class path), with {@code core} and {@code databind} in place of the built ones when
     * given.
     */
    private static URLClassLoader isolatedClient(Path core, Path databind) throws Exception {
        List<URL> urls = new ArrayList<>();
        urls.add(BuildInfo.class.getProtectionDomain().getCodeSource().getLocation());
        String runtime =
                Files.readString(Path.of(required("kubeloop.runtimeClasspath"))).strip();
        for (String entry : runtime.split(Pattern.quote(File.pathSeparator))) {
            Path p = Path.of(entry);
            String name = p.getFileName().toString();
            if (core != null
                    && name.startsWith("jackson-core-")
                    && CORE_OR_DATABIND.matcher(name).matches()) {
                p = core;
            } else if (databind != null
                    && name.startsWith("jackson-databind-")
                    && CORE_OR_DATABIND.matcher(name).matches()) {
                p = databind;
            }
            urls.add(p.toUri().toURL());
        }
        assertThat(urls)
                .as("the Jackson jars were swapped")
                .filteredOn(u -> u.getPath().contains("/jackson-" + mismatchedVersion() + "/"))
                .hasSize((core == null ? 0 : 1) + (databind == null ? 0 : 1));
        return new URLClassLoader(
                "isolated-kubeloop-client", urls.toArray(URL[]::new), ClassLoader.getPlatformClassLoader());
    }

    private static Path mismatched(String artifact) {
        Path jar = Path.of(required("kubeloop.mismatchedJackson"), artifact + "-" + mismatchedVersion() + ".jar");
        assertThat(jar).isRegularFile();
        return jar;
    }

    /** The other Jackson's version, from its folder's name ({@code target/jackson-3.2.3}). */
    private static String mismatchedVersion() {
        String folder =
                Path.of(required("kubeloop.mismatchedJackson")).getFileName().toString();
        return folder.substring("jackson-".length());
    }

    private static String required(String property) {
        String v = System.getProperty(property);
        assertThat(v)
                .as("system property %s (set by the pom's surefire configuration)", property)
                .isNotBlank();
        return v;
    }
}
