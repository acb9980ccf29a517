package io.kubeloop.cli;

import tools.jackson.databind.json.JsonMapper;

/**
 * The CLI's one JSON mapper, made on first use. Not a static field of the commands that use it: picocli instantiates
 * every command at start-up, and making a mapper costs a cold JVM a few hundred milliseconds that a command without
 * JSON (say {@code kubeloop demo}, whose first line should show at once) must not pay.
 */
final class Json {
    static final JsonMapper MAPPER = JsonMapper.builder().build();

    private Json() {}
}
