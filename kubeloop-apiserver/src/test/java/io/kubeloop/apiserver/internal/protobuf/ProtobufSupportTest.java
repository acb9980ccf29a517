package io.kubeloop.apiserver.internal.protobuf;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

/** The codec is there with client-java-proto on the class path, and cleanly absent without it. */
class ProtobufSupportTest {

    @Test
    void withClientJavaProtoTheCodecIsThere() {
        Optional<ProtobufCodec> codec =
                ProtobufSupport.codec(JsonMapper.builder().build());

        assertThat(codec).isPresent();
        assertThat(codec.orElseThrow().supports("apps/v1", "Deployment")).isTrue();
    }

    @Test
    void withoutClientJavaProtoTheCodecIsEmptyAndNothingFailsToLoad() throws Exception {
        List<URL> withoutProtobuf = new ArrayList<>();
        int dropped = 0;
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            if (entry.contains("protobuf-java") || entry.contains("client-java-proto")) {
                dropped++;
            } else {
                withoutProtobuf.add(url(entry));
            }
        }
        assertThat(dropped).as("the test class path has the jars to leave out").isEqualTo(2);

        try (URLClassLoader loader =
                new URLClassLoader(withoutProtobuf.toArray(URL[]::new), ClassLoader.getPlatformClassLoader())) {
            Class<?> mapperClass = loader.loadClass(JsonMapper.class.getName());
            Object builder = mapperClass.getMethod("builder").invoke(null);
            Object mapper = builder.getClass().getMethod("build").invoke(builder);
            Class<?> support = loader.loadClass(ProtobufSupport.class.getName());

            Object codec = support.getMethod("codec", mapperClass).invoke(null, mapper);

            assertThat(codec).isEqualTo(Optional.empty());
            assertThat(loader.getResource("com/google/protobuf/Descriptors.class"))
                    .isNull();
        }
    }

    private static URL url(String entry) {
        try {
            return new File(entry).toURI().toURL();
        } catch (MalformedURLException e) {
            throw new IllegalStateException(e);
        }
    }
}
