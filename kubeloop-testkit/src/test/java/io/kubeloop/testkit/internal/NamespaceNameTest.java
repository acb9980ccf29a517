package io.kubeloop.testkit.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class NamespaceNameTest {

    @Test
    void aMethodNameBecomesADnsLabelWithARandomSuffix() {
        assertThat(KubeloopExtension.namespaceName("reconcilesTheWidget")).matches("reconciles-the-widget-[a-z0-9]{5}");
        assertThat(KubeloopExtension.namespaceName("with_underscores__and$dollar"))
                .matches("with-underscores-and-dollar-[a-z0-9]{5}");
        assertThat(KubeloopExtension.namespaceName("_")).matches("test-[a-z0-9]{5}");
        String longName = KubeloopExtension.namespaceName("a".repeat(39) + "-" + "b".repeat(100));
        assertThat(longName).hasSizeLessThanOrEqualTo(63).matches("a{39}-[a-z0-9]{5}");
        assertThat(KubeloopExtension.namespaceName("same")).isNotEqualTo(KubeloopExtension.namespaceName("same"));
    }
}
