package io.kubeloop.apiserver.internal.protobuf;

import java.util.Optional;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.json.JsonMapper;

/**
 * Whether protobuf bodies can be spoken, and the codec that speaks them. The codec needs the optional dependency
 * {@value #ARTIFACT} (with its protobuf-java): a server built without it speaks JSON and YAML only.
 *
 * <p>This class links no protobuf type, so it loads and answers {@link Optional#empty()} when the artifact is
 * absent; the implementation is loaded only after the check.
 */
public final class ProtobufSupport {

    /** The Maven coordinates (groupId:artifactId) of the optional dependency protobuf support needs. */
    public static final String ARTIFACT = "io.kubernetes:client-java-proto";

    private ProtobufSupport() {}

    /**
     * A codec for the built-in kinds, or empty when {@value #ARTIFACT} is not on the class path (or cannot be
     * loaded, which is logged). Build one per server and share it: it is immutable and thread-safe.
     *
     * @param json the mapper whose node factory builds decoded objects and which reads and writes embedded JSON
     */
    public static Optional<ProtobufCodec> codec(JsonMapper json) {
        if (!onClassPath()) {
            return Optional.empty();
        }
        try {
            return Optional.of(Implementation.create(json));
        } catch (LinkageError | RuntimeException e) {
            LoggerFactory.getLogger(ProtobufSupport.class)
                    .warn(
                            "{} is on the class path but cannot be used "
                                    + "(is a compatible protobuf-java 4.x there too?); protobuf bodies will be refused",
                            ARTIFACT,
                            e);
            return Optional.empty();
        }
    }

    private static boolean onClassPath() {
        ClassLoader loader = ProtobufSupport.class.getClassLoader();
        try {
            Class.forName("com.google.protobuf.Descriptors", false, loader);
            Class.forName("io.kubernetes.client.proto.V1", false, loader);
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    /** Loaded only once the protobuf classes are known to be there. */
    private static final class Implementation {
        static ProtobufCodec create(JsonMapper json) {
            return new DescriptorCodec(json);
        }
    }
}
