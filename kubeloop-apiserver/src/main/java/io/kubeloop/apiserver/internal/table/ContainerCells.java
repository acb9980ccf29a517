package io.kubeloop.apiserver.internal.table;

import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;

/** The printers' {@code layoutContainerCells}: a pod spec's container names and images, comma-separated. */
record ContainerCells(String names, String images) {

    static ContainerCells of(JsonNode podSpec) {
        List<String> names = new ArrayList<>();
        List<String> images = new ArrayList<>();
        for (JsonNode c : podSpec.path("containers")) {
            names.add(Fields.text(c.get("name")));
            images.add(Fields.text(c.get("image")));
        }
        return new ContainerCells(String.join(",", names), String.join(",", images));
    }

    /** The containers of {@code spec.template.spec} of a workload. */
    static ContainerCells ofTemplate(JsonNode object) {
        return of(object.path("spec").path("template").path("spec"));
    }
}
