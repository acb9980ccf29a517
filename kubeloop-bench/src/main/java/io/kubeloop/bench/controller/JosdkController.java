package io.kubeloop.bench.controller;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import java.util.Map;

/**
 * The Java Operator SDK 5.3.2 (on fabric8 7.6.1 with its default Vert.x HTTP client, Jackson 2): an
 * {@code Operator} with one registered {@code Reconciler<ConfigMap>} for the namespace, generation-aware event
 * filtering off (ConfigMaps have no generation), everything else default. The reconciler reads the object JOSDK
 * hands it, which JOSDK takes from its informer's cache. Default workers: JOSDK's 50
 * ({@code ConfigurationService.DEFAULT_RECONCILIATION_THREADS_NUMBER}).
 *
 * <p>Compiled against kubeloop-bench's fabric8 8 model (JOSDK is a compile-only dependency there) and run only on
 * the JOSDK class path ({@code kubeloop-bench/josdk/pom.xml}); it uses no fabric8 API that differs between them.
 */
public final class JosdkController implements ControllerUnderTest {

    @Override
    public int defaultWorkers() {
        return 50;
    }

    @Override
    public void start(String url, int workers, Tally tally) {
        // fabric8's client configures itself from system properties: the embedded API server, and no kubeconfig
        // or service account of the machine.
        System.setProperty("kubernetes.master", url);
        System.setProperty("kubernetes.auth.tryKubeConfig", "false");
        System.setProperty("kubernetes.auth.tryServiceAccount", "false");
        System.setProperty("kubernetes.namespace", ControllerBench.NAMESPACE);
        Operator operator = new Operator(o -> o.withConcurrentReconciliationThreads(workers));
        operator.register(new BenchReconciler(tally), c -> c.settingNamespace(ControllerBench.NAMESPACE)
                .withGenerationAware(false)
                .withName("bench"));
        operator.start();
    }

    /** Reads the object and counts; never updates it. */
    static final class BenchReconciler implements Reconciler<ConfigMap> {
        private final Tally tally;

        BenchReconciler(Tally tally) {
            this.tally = tally;
        }

        @Override
        public UpdateControl<ConfigMap> reconcile(ConfigMap resource, Context<ConfigMap> context) {
            long entry = System.nanoTime();
            Map<String, String> data = resource.getData();
            tally.reconciled(resource.getMetadata().getName(), data == null ? null : data.get("seq"), entry);
            return UpdateControl.noUpdate();
        }
    }
}
