package io.kubeloop.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

/**
 * The Java snippets of the Markdown documentation, and their compilation.
 *
 * <p>A snippet is a fenced block opened by a line {@code ```java}. It starts with its imports, then holds either
 * statements, which are compiled as the body of a method that may throw anything, or type declarations (a class,
 * record, interface or enum), compiled as they are. Names a snippet uses without declaring them (a {@code client}
 * made in another snippet, a {@code reconcile(key)} method of the reader's) are declared in an HTML comment on the
 * line before the fence, which Markdown does not show:
 *
 * <pre>
 * &lt;!-- snippet-context: io.kubeloop.client.KubernetesClient client; void reconcile(String key) {} --&gt;
 * </pre>
 *
 * <p>Those declarations become members of the class around the method, so they use fully qualified type names
 * (the snippet's own imports are for what the reader must import). A snippet that shows a module's test-scope
 * classes adds their folder with {@code <!-- snippet-classpath: kubeloop-informer/target/test-classes -->} (the
 * reactor compiles a module's tests before this module's). Each snippet is compiled in a package of its own, all
 * of them in one compiler run; an error is reported at its file and line in the Markdown.
 */
final class Snippets {

    static final String CONTEXT = "snippet-context:";
    static final String CLASSPATH = "snippet-classpath:";
    private static final Pattern FENCE = Pattern.compile("^(\\s*)```java\\s*$");
    private static final Pattern CLOSE = Pattern.compile("^\\s*```\\s*$");
    private static final Pattern TYPE = Pattern.compile(
            "^(?:(?:public|final|abstract|sealed|non-sealed|static)\\s+)*(class|record|interface|enum)\\s+(\\w+)");
    private static final Pattern PUBLIC_TYPE = Pattern.compile(
            "^public\\s+(?:(?:final|abstract|sealed|non-sealed)\\s+)*(?:class|record|interface|enum)\\s+(\\w+)");

    private Snippets() {}

    /**
     * One fenced Java block.
     *
     * @param file the Markdown file, relative to the repository root
     * @param firstLine the line (1-based) of the block's first code line
     * @param lines the code, without the fence's indentation
     * @param context member declarations from a {@code snippet-context} comment; empty when there is none
     * @param classpath folders, relative to the repository root, from a {@code snippet-classpath} comment: for a
     *     snippet showing a module's test-scope classes (its test kit)
     */
    record Snippet(Path file, int firstLine, List<String> lines, String context, List<String> classpath) {
        String where() {
            return file.toString().replace('\\', '/') + ":" + firstLine;
        }
    }

    /** The Markdown files of the repository at {@code root} that are documentation: never under target/ or src/. */
    static List<Path> documentation(Path root) {
        try (Stream<Path> files = Files.walk(root, 4)) {
            return files.filter(p -> p.toString().endsWith(".md"))
                    .map(root::relativize)
                    .filter(p -> {
                        String s = p.toString().replace('\\', '/');
                        return !s.startsWith(".")
                                && !s.contains("/target/")
                                && !s.contains("/src/")
                                && !s.contains("/results/")
                                && !s.contains("node_modules");
                    })
                    .sorted()
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every {@code ```java} block of {@code markdown}. */
    static List<Snippet> extract(Path file, String markdown) {
        List<String> lines = markdown.lines().toList();
        List<Snippet> snippets = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            Matcher fence = FENCE.matcher(lines.get(i));
            if (!fence.matches()) {
                continue;
            }
            int indent = fence.group(1).length();
            int start = i + 1;
            int end = start;
            while (end < lines.size() && !CLOSE.matcher(lines.get(end)).matches()) {
                end++;
            }
            if (end == lines.size()) {
                throw new IllegalArgumentException(file + ":" + (i + 1) + ": a ```java block is never closed");
            }
            List<String> code = new ArrayList<>();
            for (String line : lines.subList(start, end)) {
                code.add(
                        line.length() >= indent && line.substring(0, indent).isBlank() ? line.substring(indent) : line);
            }
            Directives directives = directives(lines, i);
            snippets.add(new Snippet(file, start + 1, code, directives.context(), directives.classpath()));
            i = end;
        }
        return snippets;
    }

    /**
     * The directives in the HTML comments stacked right above the fence: {@code snippet-context: <members>} and
     * {@code snippet-classpath: <folders>}, relative to the repository root.
     */
    private static Directives directives(List<String> lines, int fence) {
        StringBuilder context = new StringBuilder();
        List<String> classpath = new ArrayList<>();
        int end = fence - 1;
        while (end >= 0 && lines.get(end).strip().endsWith("-->")) {
            int start = end;
            while (start > 0 && !lines.get(start).contains("<!--")) {
                start--;
            }
            String comment = String.join("\n", lines.subList(start, end + 1)).strip();
            comment = comment.substring(comment.indexOf("<!--") + 4, comment.lastIndexOf("-->"))
                    .strip();
            if (comment.startsWith(CONTEXT)) {
                context.append(comment.substring(CONTEXT.length()).strip()).append(' ');
            } else if (comment.startsWith(CLASSPATH)) {
                classpath.addAll(
                        List.of(comment.substring(CLASSPATH.length()).strip().split("\\s+")));
            }
            end = start - 1;
        }
        return new Directives(context.toString().strip(), List.copyOf(classpath));
    }

    private record Directives(String context, List<String> classpath) {}

    /** One generated compilation unit and, for each of its lines, the Markdown line it came from (0: none). */
    record Unit(Snippet snippet, String path, String text, int[] markdownLines) {}

    /** The compilation unit for the {@code index}th snippet, in package {@code snippets.s<index>}. */
    static Unit unit(Snippet s, int index) {
        String pkg = "snippets.s" + index;
        List<String> out = new ArrayList<>();
        List<Integer> from = new ArrayList<>();
        out.add("package " + pkg + ";");
        from.add(0);
        int body = 0;
        while (body < s.lines().size() && isPreamble(s.lines().get(body))) {
            out.add(s.lines().get(body));
            from.add(s.firstLine() + body);
            body++;
        }
        String first = firstDeclarationLine(s.lines().subList(body, s.lines().size()));
        Matcher type = TYPE.matcher(first);
        String className = "Snippet";
        if (type.find()) {
            Matcher publicType = PUBLIC_TYPE.matcher(first);
            if (publicType.find()) {
                className = publicType.group(1);
            }
            if (!s.context().isEmpty()) {
                out.add("abstract class SnippetContext { " + s.context().replace('\n', ' ') + " }");
                from.add(0);
            }
            for (int i = body; i < s.lines().size(); i++) {
                out.add(s.lines().get(i));
                from.add(s.firstLine() + i);
            }
        } else {
            out.add("@SuppressWarnings(\"all\") abstract class Snippet { "
                    + s.context().replace('\n', ' ') + " void run() throws Throwable {");
            from.add(0);
            for (int i = body; i < s.lines().size(); i++) {
                out.add(s.lines().get(i));
                from.add(s.firstLine() + i);
            }
            out.add("}}");
            from.add(0);
        }
        return new Unit(
                s,
                pkg.replace('.', '/') + "/" + className + ".java",
                String.join("\n", out) + "\n",
                from.stream().mapToInt(Integer::intValue).toArray());
    }

    private static boolean isPreamble(String line) {
        String t = line.strip();
        return t.isEmpty() || t.startsWith("import ") || t.startsWith("//");
    }

    private static String firstDeclarationLine(List<String> lines) {
        for (String line : lines) {
            String t = line.strip();
            if (!t.isEmpty()
                    && !t.startsWith("//")
                    && !t.startsWith("@")
                    && !t.startsWith("/*")
                    && !t.startsWith("*")) {
                return t;
            }
        }
        return "";
    }

    /**
     * Compiles every snippet in one run against {@code classpath}, writing classes under {@code output}; returns
     * the errors, each as {@code file:line: message}, empty when all compile.
     */
    static List<String> compile(List<Snippet> snippets, String classpath, Path output) {
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        if (javac == null) {
            throw new IllegalStateException("no system Java compiler: run the tests on a JDK, not a JRE");
        }
        List<Unit> units = new ArrayList<>();
        for (int i = 0; i < snippets.size(); i++) {
            units.add(unit(snippets.get(i), i));
        }
        List<JavaFileObject> sources = new ArrayList<>();
        for (Unit u : units) {
            sources.add(new SimpleJavaFileObject(URI.create("string:///" + u.path()), JavaFileObject.Kind.SOURCE) {
                @Override
                public CharSequence getCharContent(boolean ignoreEncodingErrors) {
                    return u.text();
                }
            });
        }
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        try (StandardJavaFileManager files = javac.getStandardFileManager(diagnostics, Locale.ROOT, null)) {
            List<String> options = List.of(
                    "--release",
                    "21",
                    "-proc:none",
                    "-implicit:none",
                    "-nowarn",
                    "-classpath",
                    classpath,
                    "-d",
                    output.toString());
            javac.getTask(null, files, diagnostics, options, null, sources).call();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<String> errors = new ArrayList<>();
        for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
            if (d.getKind() != Diagnostic.Kind.ERROR) {
                continue;
            }
            Unit unit = d.getSource() == null
                    ? null
                    : units.stream()
                            .filter(u -> d.getSource().toUri().toString().endsWith(u.path()))
                            .findFirst()
                            .orElse(null);
            String where = "?";
            if (unit != null) {
                int line = (int) d.getLineNumber();
                int md = line >= 1 && line <= unit.markdownLines().length ? unit.markdownLines()[line - 1] : 0;
                where = unit.snippet().file().toString().replace('\\', '/') + ":"
                        + (md > 0 ? md : unit.snippet().firstLine() + " (the snippet-context before it)");
            }
            errors.add(where + ": " + d.getMessage(Locale.ROOT));
        }
        return errors;
    }
}
