package io.kubeloop.testkit;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.testkit.engine.EngineExecutionResults;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Event;
import org.junit.platform.testkit.engine.Events;

/**
 * Runs sample test classes (static nested classes of the tests, which the build never runs by themselves) through
 * the JUnit Platform's {@link EngineTestKit}, and collects what they saw.
 */
final class Samples {

    /** What the samples record, by key; cleared before each run. */
    static final Map<String, List<Object>> SEEN = new ConcurrentHashMap<>();

    private Samples() {}

    static void see(String key, Object value) {
        SEEN.computeIfAbsent(key, k -> new CopyOnWriteArrayList<>()).add(value);
    }

    static List<Object> seen(String key) {
        return SEEN.getOrDefault(key, List.of());
    }

    /** One engine run over {@code classes}: one root context, so shared servers live until it returns. */
    static EngineExecutionResults run(Class<?>... classes) {
        SEEN.clear();
        return EngineTestKit.engine("junit-jupiter")
                .configurationParameter(Sample.PARAMETER, "true")
                .selectors(Arrays.stream(classes)
                        .map(c -> selectClass(c))
                        .toArray(org.junit.platform.engine.DiscoverySelector[]::new))
                .execute();
    }

    /** The failures of failed events, as throwables. */
    static List<Throwable> failures(Events events) {
        return events.failed().stream().map(Samples::throwable).toList();
    }

    private static Throwable throwable(Event e) {
        return e.getPayload(TestExecutionResult.class)
                .flatMap(TestExecutionResult::getThrowable)
                .orElseThrow(() -> new AssertionError("a failed event without a throwable: " + e));
    }

    /** Whether anything accepts connections at {@code url}'s host and port. */
    static boolean listening(URI url) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(url.getHost(), url.getPort()), 2000);
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
