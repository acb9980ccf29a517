package io.kubeloop.client.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * kubeloop-bom is what the Jackson message tells users to import, so it must hold what they need and nothing of
 * the build's: every published module at the project's version, Jackson's BOM at the version the client checks
 * for, fabric8's model; no parent, dependencies or plugins of its own, no test libraries. Read from the poms of
 * this checkout (the BOM is a pom-only module with no tests of its own).
 */
class KubeloopBomTest {

    /** Modules that are programs or checks (kubeloop-docs compiles the docs), not libraries: never published. */
    private static final Set<String> NOT_PUBLISHED =
            Set.of("kubeloop-bom", "kubeloop-cli", "kubeloop-bench", "kubeloop-docs", "kubeloop-test-support");

    private static final Path ROOT = Path.of("").toAbsolutePath().getParent();

    @Test
    void theBomManagesEveryPublishedModuleAtTheProjectVersion() throws Exception {
        Map<String, Element> managed = managed(pom(ROOT.resolve("kubeloop-bom/pom.xml")));
        List<String> published = new ArrayList<>();
        for (Element module : children(child(pom(ROOT.resolve("pom.xml")), "modules"), "module")) {
            if (!NOT_PUBLISHED.contains(module.getTextContent().strip())) {
                published.add(module.getTextContent().strip());
            }
        }
        assertThat(published).contains("kubeloop-client", "kubeloop-model");
        for (String module : published) {
            assertThat(managed).as("kubeloop-bom manages %s", module).containsKey("io.kubeloop:" + module);
        }
        managed.forEach((key, dependency) -> {
            if (key.startsWith("io.kubeloop:")) {
                assertThat(text(dependency, "version")).as(key).isEqualTo("${project.version}");
            }
        });
    }

    @Test
    void theBomImportsJacksonAtTheVersionTheClientChecksForAndPinsFabric8sModel() throws Exception {
        Element bom = pom(ROOT.resolve("kubeloop-bom/pom.xml"));
        Map<String, Element> managed = managed(bom);
        Element jackson = managed.get("tools.jackson:jackson-bom");
        assertThat(jackson).isNotNull();
        assertThat(text(jackson, "scope")).isEqualTo("import");
        assertThat(text(jackson, "version")).isEqualTo("${jackson.version}");
        assertThat(text(child(bom, "properties"), "jackson.version")).isEqualTo(BuildInfo.jacksonVersion());
        assertThat(managed).containsKeys("io.fabric8:kubernetes-model-core", "io.fabric8:kubernetes-model-common");
    }

    @Test
    void theBomCarriesNothingOfTheBuild() throws Exception {
        Element bom = pom(ROOT.resolve("kubeloop-bom/pom.xml"));
        assertThat(child(bom, "parent"))
                .as("a parent's dependencyManagement would be imported too")
                .isNull();
        assertThat(child(bom, "dependencies")).isNull();
        assertThat(child(bom, "build")).isNull();
        assertThat(text(bom, "packaging")).isEqualTo("pom");
        managed(bom).forEach((key, dependency) -> {
            assertThat(text(dependency, "scope")).as(key).isIn(null, "import");
            assertThat(key)
                    .as("test libraries stay in kubeloop-parent")
                    .doesNotStartWith("org.junit")
                    .doesNotStartWith("org.assertj")
                    .doesNotStartWith("net.jqwik")
                    .doesNotStartWith("org.awaitility");
        });
        // kubeloop-parent inherits the BOM, so what users import and what kubeloop is built with are one list.
        Element parent = child(pom(ROOT.resolve("pom.xml")), "parent");
        assertThat(parent).isNotNull();
        assertThat(text(parent, "artifactId")).isEqualTo("kubeloop-bom");
        assertThat(text(parent, "version")).isEqualTo(text(bom, "version"));
    }

    private static Element pom(Path file) throws Exception {
        assertThat(file).isRegularFile();
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        try (var in = Files.newInputStream(file)) {
            return f.newDocumentBuilder().parse(in).getDocumentElement();
        }
    }

    /** groupId:artifactId of each dependencyManagement entry. */
    private static Map<String, Element> managed(Element pom) {
        Map<String, Element> out = new TreeMap<>();
        Element dm = child(pom, "dependencyManagement");
        assertThat(dm).isNotNull();
        for (Element d : children(child(dm, "dependencies"), "dependency")) {
            out.put(text(d, "groupId") + ":" + text(d, "artifactId"), d);
        }
        return out;
    }

    private static Element child(Element parent, String name) {
        List<Element> c = children(parent, name);
        return c.isEmpty() ? null : c.get(0);
    }

    private static List<Element> children(Element parent, String name) {
        List<Element> out = new ArrayList<>();
        if (parent != null) {
            for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
                if (n instanceof Element e && e.getTagName().equals(name)) {
                    out.add(e);
                }
            }
        }
        return out;
    }

    private static String text(Element parent, String name) {
        Element e = child(parent, name);
        return e == null ? null : e.getTextContent().strip();
    }
}
