package io.kubeloop.testkit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a {@code String} parameter of a {@link KubeloopTest} test method (or of its {@code @BeforeEach} and
 * {@code @AfterEach} methods) that receives the method's namespace: a fresh one per test method, e.g.
 * {@code reconciles-k3x9q}, the same in the method and its lifecycle methods, and the injected client's default
 * namespace.
 */
@Target(ElementType.PARAMETER)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface TestNamespace {}
