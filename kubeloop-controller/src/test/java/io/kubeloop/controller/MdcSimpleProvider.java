package io.kubeloop.controller;

import org.slf4j.ILoggerFactory;
import org.slf4j.IMarkerFactory;
import org.slf4j.helpers.BasicMDCAdapter;
import org.slf4j.simple.SimpleServiceProvider;
import org.slf4j.spi.MDCAdapter;
import org.slf4j.spi.SLF4JServiceProvider;

/**
 * slf4j-simple with a working MDC (slf4j-simple's own is a no-op), so that tests can check what a reconciler's MDC
 * holds. Chosen by the {@code slf4j.provider} system property in this module's surefire configuration.
 */
public final class MdcSimpleProvider implements SLF4JServiceProvider {

    private final SimpleServiceProvider simple = new SimpleServiceProvider();
    private final MDCAdapter mdc = new BasicMDCAdapter();

    @Override
    public ILoggerFactory getLoggerFactory() {
        return simple.getLoggerFactory();
    }

    @Override
    public IMarkerFactory getMarkerFactory() {
        return simple.getMarkerFactory();
    }

    @Override
    public MDCAdapter getMDCAdapter() {
        return mdc;
    }

    @Override
    public String getRequestedApiVersion() {
        return simple.getRequestedApiVersion();
    }

    @Override
    public void initialize() {
        simple.initialize();
    }
}
