package io.kubeloop.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import picocli.CommandLine;
import tools.jackson.databind.JsonNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * The container image's configuration (the {@code image} profile of kubeloop-cli/pom.xml, built by
 * {@code ./kubeloop image}) against the CLI and deploy/'s Deployment, without building the image: the entrypoint
 * is this CLI's {@code run}, the Deployment's args are options {@code run} accepts, and the Deployment runs the
 * image's name as the image's user. Building and running the image itself is kubeloop-cli/scripts/check-image.sh
 * (docs/image.md, "Verifying it"), not part of the suite.
 */
class ImageTest {

    private static final Path MODULE = Path.of("").toAbsolutePath();
    private static final Path DEPLOYMENT = MODULE.getParent().resolve("deploy/40-deployment.yaml");

    @Test
    void theEntrypointIsKubeloopRunFromJibsClassPathFile() throws Exception {
        Element container = jibConfiguration().container();

        List<String> entrypoint = children(child(container, "entrypoint"));

        assertThat(entrypoint).containsExactly("java", "-cp", "@/app/jib-classpath-file", Main.class.getName(), "run");
        assertThat(Main.commandLine("run").getSubcommands()).containsKey("run");
        assertThat(child(container, "user").getTextContent().strip()).isEqualTo("65532:65532");
        // JVM options stay out of the entrypoint, where they would win over a pod's JAVA_TOOL_OPTIONS.
        assertThat(child(child(container, "environment"), "JAVA_TOOL_OPTIONS").getTextContent())
                .contains("-XX:MaxRAMPercentage=");
    }

    @Test
    void theDeploymentsArgsAreOptionsOfKubeloopRun() throws Exception {
        JsonNode container = deploymentContainer();
        List<String> args = new ArrayList<>(List.of("run"));
        container.path("args").forEach(arg -> args.add(arg.asString()));

        String[] commandLine = args.toArray(String[]::new);
        CommandLine.ParseResult parsed = Main.commandLine(commandLine).parseArgs(commandLine);

        assertThat(parsed.subcommand().commandSpec().name()).isEqualTo("run");
        assertThat(parsed.subcommand().unmatched()).isEmpty();
        assertThat(args).contains("--leader-election");
    }

    @Test
    void theDeploymentRunsTheImagesNameAsTheImagesUser() throws Exception {
        JibConfiguration jib = jibConfiguration();
        JsonNode container = deploymentContainer();

        assertThat(container.path("image").asString()).isEqualTo(jib.imageName());
        String imageUser =
                child(jib.container(), "user").getTextContent().strip().split(":")[0];
        assertThat(container.path("securityContext").path("runAsUser").asInt()).isEqualTo(Integer.parseInt(imageUser));
        List<Integer> ports = new ArrayList<>();
        container
                .path("ports")
                .forEach(port -> ports.add(port.path("containerPort").asInt()));
        assertThat(children(child(jib.container(), "ports")).stream().map(Integer::valueOf))
                .containsExactlyInAnyOrderElementsOf(ports);
    }

    private record JibConfiguration(Element container, String imageName) {}

    /** The Jib plugin's configuration in the pom's {@code image} profile, and the image name it builds. */
    private static JibConfiguration jibConfiguration() throws Exception {
        var factory = DocumentBuilderFactory.newInstance();
        factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        Element project = factory.newDocumentBuilder()
                .parse(MODULE.resolve("pom.xml").toFile())
                .getDocumentElement();
        String version =
                child(child(project, "parent"), "version").getTextContent().strip();
        for (Element profile : elements(child(project, "profiles"))) {
            if (!child(profile, "id").getTextContent().strip().equals("image")) {
                continue;
            }
            Map<String, String> properties = elements(child(profile, "properties")).stream()
                    .collect(Collectors.toMap(
                            Element::getTagName, e -> e.getTextContent().strip()));
            for (Element plugin : elements(child(child(profile, "build"), "plugins"))) {
                if (child(plugin, "artifactId").getTextContent().strip().equals("jib-maven-plugin")) {
                    Element configuration = child(plugin, "configuration");
                    String toImage = child(child(configuration, "to"), "image")
                            .getTextContent()
                            .strip();
                    String name = resolve(toImage, properties).replace("${project.version}", version);
                    return new JibConfiguration(child(configuration, "container"), name);
                }
            }
        }
        throw new AssertionError("kubeloop-cli/pom.xml has no profile 'image' with the jib-maven-plugin");
    }

    private static String resolve(String value, Map<String, String> properties) {
        String resolved = value;
        for (Map.Entry<String, String> property : properties.entrySet()) {
            resolved = resolved.replace("${" + property.getKey() + "}", property.getValue());
        }
        return resolved;
    }

    private static JsonNode deploymentContainer() throws IOException {
        JsonNode deployment = new YAMLMapper().readTree(Files.readString(DEPLOYMENT));
        assertThat(deployment.path("kind").asString()).isEqualTo("Deployment");
        JsonNode containers =
                deployment.path("spec").path("template").path("spec").path("containers");
        assertThat(containers.size()).as("containers of %s", DEPLOYMENT).isEqualTo(1);
        return containers.get(0);
    }

    private static Element child(Element parent, String name) {
        for (Element element : elements(parent)) {
            if (element.getTagName().equals(name)) {
                return element;
            }
        }
        throw new AssertionError("<" + parent.getTagName() + "> has no <" + name + ">");
    }

    private static List<Element> elements(Element parent) {
        List<Element> elements = new ArrayList<>();
        for (Node node = parent.getFirstChild(); node != null; node = node.getNextSibling()) {
            if (node instanceof Element element) {
                elements.add(element);
            }
        }
        return elements;
    }

    private static List<String> children(Element parent) {
        return elements(parent).stream().map(e -> e.getTextContent().strip()).toList();
    }
}
