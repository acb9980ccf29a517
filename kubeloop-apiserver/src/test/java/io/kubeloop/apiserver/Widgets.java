package io.kubeloop.apiserver;

/** The CustomResourceDefinition the custom resource tests share: widgets.example.com, served as v1 (preferred, storage) and v1beta1. */
final class Widgets {

    private Widgets() {}

    static final String CRD_PATH = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";

    /** Namespaced Widget, v1 (storage) and v1beta1, status and scale subresources, printer columns on v1. */
    static final String CRD = """
            apiVersion: apiextensions.k8s.io/v1
            kind: CustomResourceDefinition
            metadata:
              name: widgets.example.com
            spec:
              group: example.com
              scope: Namespaced
              names:
                plural: widgets
                singular: widget
                kind: Widget
                shortNames: [wd]
                categories: [all]
              versions:
              - name: v1
                served: true
                storage: true
                subresources:
                  status: {}
                  scale:
                    specReplicasPath: .spec.replicas
                    statusReplicasPath: .status.replicas
                    labelSelectorPath: .status.selector
                additionalPrinterColumns:
                - name: Size
                  type: string
                  jsonPath: .spec.size
                - name: Replicas
                  type: integer
                  jsonPath: .spec.replicas
                - name: Ready
                  type: string
                  jsonPath: .status.conditions[?(@.type=="Ready")].status
                - name: Color
                  type: string
                  priority: 1
                  jsonPath: .spec.color
                - name: Age
                  type: date
                  jsonPath: .metadata.creationTimestamp
                schema:
                  openAPIV3Schema:
                    type: object
                    properties:
                      spec:
                        type: object
                        required: [size]
                        properties:
                          size:
                            type: string
                            enum: [small, large]
                          replicas:
                            type: integer
                            minimum: 0
                          color:
                            type: string
                            default: blue
                          port:
                            x-kubernetes-int-or-string: true
                          note:
                            type: string
                            nullable: true
                          labels:
                            type: object
                            additionalProperties:
                              type: string
                          extra:
                            type: object
                            x-kubernetes-preserve-unknown-fields: true
                          template:
                            type: object
                            x-kubernetes-embedded-resource: true
                            x-kubernetes-preserve-unknown-fields: true
                      status:
                        type: object
                        properties:
                          replicas:
                            type: integer
                          selector:
                            type: string
                          conditions:
                            type: array
                            items:
                              type: object
                              properties:
                                type: {type: string}
                                status: {type: string}
              - name: v1beta1
                served: true
                storage: false
                subresources:
                  status: {}
                schema:
                  openAPIV3Schema:
                    type: object
                    properties:
                      spec:
                        type: object
                        x-kubernetes-preserve-unknown-fields: true
                      status:
                        type: object
                        x-kubernetes-preserve-unknown-fields: true
            """;

    /** A valid v1 Widget in namespace default. */
    static String widget(String name, int replicas) {
        return """
                {"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"%s"},
                 "spec":{"size":"small","replicas":%d}}""".formatted(name, replicas);
    }

    static final String WIDGETS = "/apis/example.com/v1/namespaces/default/widgets";
    static final String WIDGETS_BETA = "/apis/example.com/v1beta1/namespaces/default/widgets";
}
