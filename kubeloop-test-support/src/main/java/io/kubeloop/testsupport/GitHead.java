package io.kubeloop.testsupport;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** The commit a checkout is at, asked of git the way the build asks (see the parent pom's git-commit execution). */
public final class GitHead {

    private GitHead() {}

    /** HEAD's full hash, or null when {@code root} is not a git checkout or git is not there. */
    public static String of(Path root) throws IOException, InterruptedException {
        if (!Files.exists(root.resolve(".git"))) {
            return null;
        }
        Process git;
        try {
            git = new ProcessBuilder("git", "rev-parse", "--verify", "HEAD")
                    .directory(root.toFile())
                    .redirectError(ProcessBuilder.Redirect.DISCARD)
                    .start();
        } catch (IOException noGit) {
            return null;
        }
        String out = new String(git.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        if (!git.waitFor(30, TimeUnit.SECONDS)) {
            git.destroyForcibly();
            throw new IOException("git rev-parse did not finish in 30 s");
        }
        return git.exitValue() == 0 && out.matches("[0-9a-f]{40,64}") ? out : null;
    }
}
