package io.kubeloop.testkit;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A sample test class, run only through {@link Samples#run} (some are meant to fail); skipped when a build or an
 * IDE picks it up by itself.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(Sample.OnlyThroughSamples.class)
@interface Sample {

    String PARAMETER = "kubeloop.testkit.sample";

    final class OnlyThroughSamples implements ExecutionCondition {
        @Override
        public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
            return context.getConfigurationParameter(PARAMETER).isPresent()
                    ? ConditionEvaluationResult.enabled("run by Samples.run")
                    : ConditionEvaluationResult.disabled("a sample, run only by Samples.run");
        }
    }
}
