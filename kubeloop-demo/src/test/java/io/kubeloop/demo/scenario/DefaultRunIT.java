package io.kubeloop.demo.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubeloop.demo.Demo;
import io.kubeloop.demo.DemoReport;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * A whole run at {@code kubeloop demo}'s defaults (or {@code -Ddemo.scenario=…}, {@code -Ddemo.duration=…} seconds,
 * {@code -Ddemo.speed=…}), printing the live view's plain lines and the report: minutes, so only on request:
 * {@code mvn -pl kubeloop-demo -am test -Dtest=DefaultRunIT -Ddemo.run=true -Dsurefire.failIfNoSpecifiedTests=false}.
 */
@EnabledIfSystemProperty(named = "demo.run", matches = "true")
class DefaultRunIT {

    @Test
    void theDefaultRunPasses() throws InterruptedException {
        Demo.Builder builder = Demo.builder()
                .scenario(System.getProperty("demo.scenario", Demo.DEFAULT_SCENARIO))
                .duration(Duration.ofSeconds(Long.getLong("demo.duration", 60)))
                .speed(Double.parseDouble(System.getProperty("demo.speed", "10")));
        if (System.getProperty("demo.seed") != null) {
            builder.seed(Long.getLong("demo.seed"));
        }
        long start = System.nanoTime();
        DemoReport report = builder.build().run();
        System.out.print(report.toText());
        System.out.println("run took " + (System.nanoTime() - start) / 1_000_000 + " ms");

        assertThat(report.passed()).as(report.reason()).isTrue();
    }
}
