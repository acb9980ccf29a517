package io.kubeloop.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The README's example is {@code com.example.EchoControllerTest} without its package line, word for word, so it
 * compiles and passes.
 */
class ReadmeExampleTest {

    @Test
    void theReadmeShowsTheCompiledExampleVerbatim() throws Exception {
        String readme = Files.readString(Path.of("README.md"));
        String example = Files.readString(Path.of("src/test/java/com/example/EchoControllerTest.java"));
        String shown = example.substring("package com.example;\n\n".length()); // readers have their own package
        Matcher block = Pattern.compile("```java\n(import static org\\.awaitility.*?)```", Pattern.DOTALL)
                .matcher(readme);
        assertThat(block.find()).as("the example's java block in README.md").isTrue();
        assertThat(block.group(1)).isEqualTo(shown);
        assertThat(shown.lines().count()).as("lines, imports included").isLessThan(30);
    }
}
