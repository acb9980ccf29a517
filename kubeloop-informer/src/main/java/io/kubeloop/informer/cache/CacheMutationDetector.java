package io.kubeloop.informer.cache;

import java.util.Locale;

/**
 * Detects changes to cached objects, which are shared and must never be mutated (client-go's cache mutation
 * detector). Off by default: it copies every cached object and re-checks it every second, which costs memory and
 * CPU. Turn it on in tests with the system property {@value #SYSTEM_PROPERTY}{@code =true} or the environment
 * variable {@value #ENV_VARIABLE}{@code =true} (the property wins when both are set).
 *
 * <p>When it is on, every store made by {@link Indexers} keeps a JSON copy of each object it holds, taken when the
 * object was written, and compares the object with its copy:
 * <ul>
 *   <li>every second ({@link #PERIOD_SECONDS}), on the daemon thread {@value #THREAD_NAME};</li>
 *   <li>at the next write of the same key (add, update, delete or replace), which is applied and then throws a
 *       {@link CacheMutationException};</li>
 *   <li>on demand, with {@link #checkNow()}.</li>
 * </ul>
 * Each mutation is logged once at ERROR, naming the object (kind, namespace/name, resourceVersion) with a bounded
 * excerpt of the differences (paths only for Secrets), and kept until {@link #checkNow()} reports it. A copy is
 * dropped when its object is replaced or deleted, and at the latest after {@link #RETENTION_SECONDS} (client-go's
 * retention; later mutations of that object go unnoticed).
 *
 * <p>kubeloop-informer's own test suite runs with the detector on and checks after every test.
 */
public final class CacheMutationDetector {

    /** The system property that turns the detector on ({@code true}) or off ({@code false}). */
    public static final String SYSTEM_PROPERTY = "kubeloop.cacheMutationDetector";
    /** The environment variable that turns the detector on when the system property is not set. */
    public static final String ENV_VARIABLE = "KUBELOOP_CACHE_MUTATION_DETECTOR";
    /** The name of the detector's thread, a daemon that lives as long as the JVM once a detecting store exists. */
    public static final String THREAD_NAME = "kubeloop-cache-mutation-detector";
    /** How often every copy is compared with its object. */
    public static final int PERIOD_SECONDS = 1;
    /** How long a copy is kept at most. */
    public static final int RETENTION_SECONDS = 120;

    private CacheMutationDetector() {}

    /** Whether stores made from now on detect mutations: the system property, else the environment variable. */
    public static boolean isEnabled() {
        String property = System.getProperty(SYSTEM_PROPERTY);
        String setting = property != null ? property : System.getenv(ENV_VARIABLE);
        return setting != null && setting.trim().toLowerCase(Locale.ROOT).equals("true");
    }

    /**
     * Compares every cached object of every detecting store with its copy now, and reports every mutation not
     * reported by this method before (including those the periodic check or a write found). Does nothing when no
     * detecting store was ever made.
     *
     * @throws CacheMutationException naming every mutated object
     */
    public static void checkNow() {
        MutationDetector.checkGlobal();
    }
}
