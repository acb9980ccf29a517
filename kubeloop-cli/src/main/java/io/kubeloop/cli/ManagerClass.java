package io.kubeloop.cli;

import io.kubeloop.controller.Manager;
import java.io.File;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/**
 * How {@code kubeloop rbac} and {@code kubeloop run} get a user's {@link Manager}: from a class on the class path
 * (plus {@code --class-path}) that has a {@code public static Manager manager()} method, or else implements
 * {@code Supplier<Manager>} with a public no-argument constructor. The method builds the manager (its client,
 * controllers and informers) without starting it.
 */
final class ManagerClass {

    @Option(
            names = "--class",
            paramLabel = "<class>",
            description = "Fully qualified name of a class with a 'public static Manager manager()' method, "
                    + "or a Supplier<Manager> with a public no-argument constructor (kubeloop run without it: the "
                    + "pod-guardian operator).")
    String className;

    @Option(
            names = {"--class-path", "-cp"},
            paramLabel = "<path>",
            description = "Jars and directories to load the class from, separated by the platform's path separator "
                    + "(':' on Linux and macOS; default: kubeloop's own class path).")
    String classPath;

    /** Whether {@code --class} was given. */
    boolean given() {
        return className != null;
    }

    /**
     * Refuses, with a usage error naming the first one, any of {@code podGuardianOptions} given together with
     * {@code --class}: they configure pod-guardian, and a class's {@code manager()} sets up its own client and manager.
     */
    static void refusePodGuardianOptions(CommandLine cmd, List<String> podGuardianOptions) {
        for (String option : podGuardianOptions) {
            if (cmd.getParseResult().hasMatchedOption(option)) {
                throw new CommandLine.ParameterException(
                        cmd,
                        option + " configures pod-guardian; with --class, the class's manager() sets up its own "
                                + "client and manager");
            }
        }
    }

    /** Loads the class and builds its manager. */
    Manager load() {
        if (className == null) {
            throw new IllegalStateException("--class is not set");
        }
        ClassLoader loader = loader();
        Class<?> type;
        try {
            type = Class.forName(className, true, loader);
        } catch (ClassNotFoundException e) {
            throw new IllegalArgumentException("class " + className + " not found"
                    + (classPath == null ? " on kubeloop's class path (add --class-path)" : " on " + classPath));
        } catch (LinkageError e) {
            throw new IllegalArgumentException("class " + className + " cannot be loaded: " + e, e);
        }
        try {
            Method m = type.getMethod("manager");
            if (Modifier.isStatic(m.getModifiers()) && Manager.class.isAssignableFrom(m.getReturnType())) {
                return requireManager(m.invoke(null), "manager()");
            }
        } catch (NoSuchMethodException e) {
            // next: a Supplier
        } catch (IllegalAccessException e) {
            throw new IllegalArgumentException(className + ".manager() is not accessible: " + e.getMessage(), e);
        } catch (InvocationTargetException e) {
            throw new IllegalStateException(className + ".manager() failed: " + e.getCause(), e.getCause());
        }
        if (Supplier.class.isAssignableFrom(type)) {
            try {
                Supplier<?> supplier = (Supplier<?>) type.getConstructor().newInstance();
                return requireManager(supplier.get(), "get()");
            } catch (NoSuchMethodException | InstantiationException | IllegalAccessException e) {
                throw new IllegalArgumentException(
                        className + " is a Supplier but has no public no-argument constructor: " + e, e);
            } catch (InvocationTargetException e) {
                throw new IllegalStateException(className + "'s constructor failed: " + e.getCause(), e.getCause());
            }
        }
        throw new IllegalArgumentException(className
                + " has no 'public static Manager manager()' method and does not implement Supplier<Manager>");
    }

    private Manager requireManager(Object made, String how) {
        if (made instanceof Manager manager) {
            return manager;
        }
        throw new IllegalArgumentException(className + "." + how + " returned "
                + (made == null ? "null" : "a " + made.getClass().getName()) + ", not a Manager");
    }

    private ClassLoader loader() {
        ClassLoader parent = ManagerClass.class.getClassLoader();
        if (classPath == null || classPath.isBlank()) {
            return parent;
        }
        List<URL> urls = new ArrayList<>();
        for (String entry : classPath.split(File.pathSeparator)) {
            if (entry.isBlank()) {
                continue;
            }
            File f = new File(entry);
            if (!f.exists()) {
                throw new IllegalArgumentException("--class-path entry " + entry + " does not exist");
            }
            try {
                urls.add(f.toURI().toURL());
            } catch (MalformedURLException e) {
                throw new IllegalArgumentException("--class-path entry " + entry + " is not a path: " + e.getMessage());
            }
        }
        return new URLClassLoader(urls.toArray(URL[]::new), parent);
    }
}
