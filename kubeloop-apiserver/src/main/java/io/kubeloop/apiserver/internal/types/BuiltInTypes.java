package io.kubeloop.apiserver.internal.types;

import io.kubeloop.apiserver.internal.protobuf.GoTypes;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.LoggerFactory;

/**
 * The type table of each built-in kind, looked up by apiVersion and kind: built once per JVM on the first write of
 * that kind (never per request) from the protobuf descriptors of the optional dependency
 * {@code io.kubernetes:client-java-proto}. Without that dependency there are no tables and built-in objects are
 * stored without type checking (logged once), as before; a kind the descriptors do not have (a custom resource, or
 * a built-in kind newer than them) has no table either.
 *
 * <p>Thread-safe: tables are immutable once published through the concurrent map.
 */
public final class BuiltInTypes {

    private static final Map<String, Optional<GoType>> TABLES = new ConcurrentHashMap<>();
    private static final boolean AVAILABLE = onClassPath();

    private BuiltInTypes() {}

    /** The table of a top-level object of this apiVersion and kind, if there is one. */
    public static Optional<GoType> of(String apiVersion, String kind) {
        if (!AVAILABLE || !builtInGroup(apiVersion)) {
            return Optional.empty();
        }
        return TABLES.computeIfAbsent(apiVersion + "\n" + kind, key -> Implementation.of(apiVersion, kind));
    }

    /**
     * Whether an apiVersion is in a group only built-in kinds use: the core group, a group without a dot (a CRD's
     * group must have one) or one under {@code k8s.io} (reserved to Kubernetes' own APIs).
     */
    private static boolean builtInGroup(String apiVersion) {
        int slash = apiVersion.indexOf('/');
        if (slash < 0) {
            return true;
        }
        String group = apiVersion.substring(0, slash);
        return group.indexOf('.') < 0 || group.endsWith(".k8s.io");
    }

    private static boolean onClassPath() {
        ClassLoader loader = BuiltInTypes.class.getClassLoader();
        try {
            Class.forName("com.google.protobuf.Descriptors", false, loader);
            Class.forName("io.kubernetes.client.proto.V1", false, loader);
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            LoggerFactory.getLogger(io.kubeloop.apiserver.EmbeddedApiServer.class)
                    .info("io.kubernetes:client-java-proto is not on the class path: built-in objects are stored "
                            + "without checking their fields' types");
            return false;
        }
    }

    /** Loaded only once the protobuf classes are known to be there. */
    private static final class Implementation {
        static Optional<GoType> of(String apiVersion, String kind) {
            return GoTypes.of(apiVersion, kind);
        }
    }
}
