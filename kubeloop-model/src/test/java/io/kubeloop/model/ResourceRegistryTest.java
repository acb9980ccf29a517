package io.kubeloop.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ResourceRegistryTest {

    private final ResourceRegistry registry = ResourceRegistry.builtIn();

    @ParameterizedTest(name = "{0} resolves to {1}")
    @CsvSource({
        "po, pods",
        "pod, pods",
        "pods, pods",
        "Pod, pods",
        "PODS, pods",
        "ns, namespaces",
        "no, nodes",
        "svc, services",
        "ep, endpoints",
        "cm, configmaps",
        "sa, serviceaccounts",
        "deploy, deployments.apps",
        "deployments.apps, deployments.apps",
        "deploy.apps, deployments.apps",
        "rs, replicasets.apps",
        "sts, statefulsets.apps",
        "ds, daemonsets.apps",
        "lease, leases.coordination.k8s.io",
        // Both core/v1 and events.k8s.io/v1 serve "events"; kubectl picks the core group for the short name.
        "ev, events",
        "events, events",
        "events.events.k8s.io, events.events.k8s.io",
    })
    void resolvesTheNamesKubectlAccepts(String name, String qualified) {
        assertThat(registry.resolve(name)).map(ResourceType::qualifiedName).hasValue(qualified);
    }

    @Test
    void unknownNamesResolveToNothing() {
        assertThat(registry.resolve("widgets")).isEmpty();
        assertThat(registry.resolve("pods.apps")).isEmpty();
    }

    @Test
    void builtInTypesCarryDiscoveryFacts() {
        ResourceType pods = registry.byResource("", "pods").orElseThrow();
        assertThat(pods.gvk()).isEqualTo(new GroupVersionKind("", "v1", "Pod"));
        assertThat(pods.namespaced()).isTrue();
        assertThat(pods.listKind()).isEqualTo("PodList");
        assertThat(pods.categories()).containsExactly("all");
        assertThat(pods.hasStatus()).isTrue();
        assertThat(pods.hasScale()).isFalse();

        ResourceType deployments = registry.byKind(new GroupVersionKind("apps", "v1", "Deployment"))
                .orElseThrow();
        assertThat(deployments.plural()).isEqualTo("deployments");
        assertThat(deployments.subresources()).containsExactlyInAnyOrder("status", "scale");
        assertThat(deployments.gvr().groupVersion()).isEqualTo("apps/v1");

        assertThat(registry.byResource("", "namespaces").orElseThrow().verbs()).doesNotContain("deletecollection");
        assertThat(registry.byResource("", "nodes").orElseThrow().namespaced()).isFalse();
        assertThat(registry.byResource("coordination.k8s.io", "leases")
                        .orElseThrow()
                        .namespaced())
                .isTrue();
    }

    @Test
    void everyBuiltInResourceOfTheIssueIsServed() {
        assertThat(registry.types())
                .extracting(ResourceType::qualifiedName)
                .containsExactly(
                        "namespaces",
                        "pods",
                        "bindings",
                        "nodes",
                        "services",
                        "endpoints",
                        "configmaps",
                        "secrets",
                        "serviceaccounts",
                        "events",
                        "persistentvolumes",
                        "persistentvolumeclaims",
                        "deployments.apps",
                        "replicasets.apps",
                        "statefulsets.apps",
                        "daemonsets.apps",
                        "leases.coordination.k8s.io",
                        "events.events.k8s.io",
                        "horizontalpodautoscalers.autoscaling",
                        "cronjobs.batch",
                        "jobs.batch",
                        "ingressclasses.networking.k8s.io",
                        "ingresses.networking.k8s.io",
                        "networkpolicies.networking.k8s.io",
                        "poddisruptionbudgets.policy",
                        "storageclasses.storage.k8s.io",
                        "endpointslices.discovery.k8s.io",
                        "roles.rbac.authorization.k8s.io",
                        "clusterroles.rbac.authorization.k8s.io",
                        "rolebindings.rbac.authorization.k8s.io",
                        "clusterrolebindings.rbac.authorization.k8s.io",
                        "customresourcedefinitions.apiextensions.k8s.io",
                        "selfsubjectaccessreviews.authorization.k8s.io",
                        "subjectaccessreviews.authorization.k8s.io",
                        "selfsubjectrulesreviews.authorization.k8s.io",
                        "selfsubjectreviews.authentication.k8s.io");
        assertThat(registry.groups())
                .containsExactly(
                        "",
                        "apps",
                        "coordination.k8s.io",
                        "events.k8s.io",
                        "autoscaling",
                        "batch",
                        "networking.k8s.io",
                        "policy",
                        "storage.k8s.io",
                        "discovery.k8s.io",
                        "rbac.authorization.k8s.io",
                        "apiextensions.k8s.io",
                        "authorization.k8s.io",
                        "authentication.k8s.io");
        assertThat(registry.typesIn("apps", "v1")).hasSize(4);
        assertThat(registry.resolve("cj").orElseThrow().kind()).isEqualTo("CronJob");
        assertThat(registry.resolve("pdb").orElseThrow().group()).isEqualTo("policy");
        assertThat(registry.resolve("hpa").orElseThrow().version()).isEqualTo("v2");
        assertThat(registry.resolve("pvc").orElseThrow().namespaced()).isTrue();
        assertThat(registry.resolve("pv").orElseThrow().namespaced()).isFalse();
        assertThat(registry.resolve("job").orElseThrow().categories()).containsExactly("all");
        assertThat(registry.resolve("ing").orElseThrow().categories()).isEmpty();
        assertThat(registry.resolve("pods").orElseThrow().subresources())
                .containsExactlyInAnyOrder("status", "eviction", "binding");
        assertThat(registry.byResource("", "bindings").orElseThrow().verbs()).containsExactly("create");
    }

    @Test
    void byResourceWithAVersionMatchesOnlyTheServedVersion() {
        assertThat(registry.byResource(new GroupVersionResource("apps", "v1", "deployments")))
                .isPresent();
        assertThat(registry.byResource(new GroupVersionResource("apps", "v1beta1", "deployments")))
                .isEmpty();
    }

    @Test
    void withAddsOrReplacesAndWithoutRemoves() {
        ResourceType widgets = new ResourceType(
                new GroupVersionKind("example.com", "v1", "Widget"),
                "widgets",
                "widget",
                true,
                List.of("wd"),
                List.of("all"),
                ResourceType.ALL_VERBS,
                Set.of("status"));
        ResourceRegistry more = registry.with(widgets);
        assertThat(more.resolve("wd")).hasValue(widgets);
        assertThat(registry.resolve("wd")).as("the original is unchanged").isEmpty();
        assertThat(more.groups()).endsWith("example.com");

        ResourceType widgetsV2 = new ResourceType(
                new GroupVersionKind("example.com", "v2", "Widget"),
                "widgets",
                "widget",
                true,
                List.of(),
                List.of(),
                ResourceType.ALL_VERBS,
                Set.of());
        assertThat(more.with(widgetsV2).byResource("example.com", "widgets")).hasValue(widgetsV2);
        assertThat(more.without("example.com", "widgets").resolve("widgets")).isEmpty();
    }

    @Test
    void withVersionsServesOneResourceAtSeveralVersionsPreferredFirst() {
        ResourceType v2 = new ResourceType(
                new GroupVersionKind("example.com", "v2", "Widget"),
                "widgets",
                "widget",
                true,
                List.of("wd"),
                List.of(),
                ResourceType.ALL_VERBS,
                Set.of(),
                "WidgetCollection");
        ResourceType v1 = new ResourceType(
                new GroupVersionKind("example.com", "v1", "Widget"),
                "widgets",
                "widget",
                true,
                List.of("wd"),
                List.of(),
                ResourceType.ALL_VERBS,
                Set.of());
        ResourceRegistry both = registry.withVersions(List.of(v2, v1));
        assertThat(both.byResource("example.com", "widgets")).hasValue(v2);
        assertThat(both.byResource(new GroupVersionResource("example.com", "v1", "widgets")))
                .hasValue(v1);
        assertThat(both.resolve("wd")).hasValue(v2);
        assertThat(both.typesIn("example.com", "v1")).containsExactly(v1);
        assertThat(v2.listKind()).isEqualTo("WidgetCollection");
        assertThat(v1.listKind()).isEqualTo("WidgetList");
        assertThat(both.withVersions(List.of(v1)).byResource(new GroupVersionResource("example.com", "v2", "widgets")))
                .isEmpty();
        assertThat(both.without("example.com", "widgets").typesIn("example.com", "v1"))
                .isEmpty();
        assertThatThrownBy(() -> registry.withVersions(List.of(v1, v1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("widgets.example.com version v1");
    }

    @Test
    void duplicateKindsAreRejectedWithTheirName() {
        ResourceType pods2 = new ResourceType(
                new GroupVersionKind("", "v1", "Pod"),
                "pods2",
                "pod2",
                true,
                List.of(),
                List.of(),
                ResourceType.ALL_VERBS,
                Set.of());
        assertThatThrownBy(() -> registry.with(pods2))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("v1, Kind=Pod");
    }

    @ParameterizedTest
    @CsvSource({"v1, '', v1", "apps/v1, apps, v1", "coordination.k8s.io/v1, coordination.k8s.io, v1"})
    void groupVersionKindParsesApiVersions(String apiVersion, String group, String version) {
        GroupVersionKind gvk = GroupVersionKind.of(apiVersion, "Thing");
        assertThat(gvk.group()).isEqualTo(group);
        assertThat(gvk.version()).isEqualTo(version);
        assertThat(gvk.apiVersion()).isEqualTo(apiVersion);
    }

    @Test
    void malformedApiVersionsAreRejectedByName() {
        for (String bad : List.of("a/b/c", "/v1", "apps/")) {
            assertThatThrownBy(() -> GroupVersionKind.of(bad, "X"))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(bad);
        }
    }

    @Test
    void groupVersionResourcePrintsLikeKubeApiserver() {
        assertThat(new GroupVersionResource("", "v1", "pods")).hasToString("/v1, Resource=pods");
        assertThat(new GroupVersionResource("apps", "v1", "deployments")).hasToString("apps/v1, Resource=deployments");
    }
}
