package io.kubeloop.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The README's example is {@code com.example.EchoControllerTest}, word for word, so it compiles and passes. */
class ReadmeExampleTest {

    @Test
    void theReadmeShowsTheCompiledExampleVerbatim() throws Exception {
        String readme = Files.readString(Path.of("README.md"));
        String example = Files.readString(Path.of("src/test/java/com/example/EchoControllerTest.java"));
        Matcher block = Pattern.compile("```java\n(package com\\.example;\n.*?)```", Pattern.DOTALL).matcher(readme);
        assertThat(block.find()).as("a java block starting with package com.example in README.md").isTrue();
        assertThat(block.group(1)).isEqualTo(example);
        assertThat(example.lines().count()).as("lines, imports included").isLessThan(30);
    }
}
