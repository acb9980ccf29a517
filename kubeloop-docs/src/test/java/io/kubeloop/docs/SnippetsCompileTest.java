package io.kubeloop.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubeloop.docs.Snippets.Snippet;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every {@code ```java} block of every README and docs page compiles, against the modules a user depends on. How
 * to write one: the root README's "Java snippets in the documentation".
 */
class SnippetsCompileTest {

    /** The repository root: this module's parent folder (surefire runs in the module's folder). */
    private static final Path ROOT = Path.of("").toAbsolutePath().getParent();

    @Test
    void everyJavaSnippetOfTheDocumentationCompiles(@TempDir Path classes) throws IOException {
        List<Snippet> snippets = new ArrayList<>();
        for (Path md : Snippets.documentation(ROOT)) {
            snippets.addAll(Snippets.extract(md, Files.readString(ROOT.resolve(md))));
        }
        // The guard against finding nothing (a moved root, a changed fence) and so proving nothing.
        assertThat(snippets).as("java snippets found under " + ROOT).hasSizeGreaterThan(30);
        assertThat(snippets)
                .extracting(s -> s.file().toString().replace('\\', '/'))
                .contains("README.md", "kubeloop-client/README.md", "kubeloop-workqueue/README.md");

        StringBuilder classpath = new StringBuilder(classpath());
        snippets.stream().flatMap(s -> s.classpath().stream()).distinct().forEach(folder -> classpath
                .append(java.io.File.pathSeparator)
                .append(ROOT.resolve(folder)));
        List<String> errors = Snippets.compile(snippets, classpath.toString(), classes);

        assertThat(errors)
                .as("snippets that do not compile (fix the snippet, or declare what it assumes in a "
                        + "<!-- snippet-context: ... --> comment before it)")
                .isEmpty();
    }

    @Test
    void aSnippetThatDoesNotCompileIsReportedAtItsMarkdownLine(@TempDir Path classes) {
        String markdown = """
                # Title

                ```java
                import java.util.List;

                List<String> names = List.of("a");
                String first = names.get(0).nope();
                ```

                <!-- snippet-context: java.util.Map<String, Integer> counts; -->
                ```java
                int n = counts.get("a");
                ```

                - in a list:
                  ```java
                  import java.time.Duration;

                  record Pause(Duration length) {}
                  ```
                """;
        List<Snippet> snippets = Snippets.extract(Path.of("doc.md"), markdown);

        assertThat(snippets).hasSize(3);
        assertThat(snippets.get(1).context()).isEqualTo("java.util.Map<String, Integer> counts;");
        assertThat(Snippets.compile(snippets, classpath(), classes))
                .singleElement()
                .asString()
                .startsWith("doc.md:7: ")
                .contains("nope");
    }

    @Test
    void aMissingImportIsAnError(@TempDir Path classes) {
        List<Snippet> snippets = Snippets.extract(Path.of("doc.md"), """
                ```java
                Duration d = Duration.ofSeconds(1);
                ```
                """);

        assertThat(Snippets.compile(snippets, classpath(), classes))
                .isNotEmpty()
                .allSatisfy(e -> assertThat(e).startsWith("doc.md:2: ").contains("Duration"));
    }

    /** The test class path: surefire puts it in a manifest-only jar, and says what it is in this property. */
    private static String classpath() {
        String surefire = System.getProperty("surefire.test.class.path");
        return surefire != null && !surefire.isBlank() ? surefire : System.getProperty("java.class.path");
    }
}
