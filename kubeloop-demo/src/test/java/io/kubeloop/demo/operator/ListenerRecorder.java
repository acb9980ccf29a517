package io.kubeloop.demo.operator;

import io.kubeloop.demo.PodGuardian;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Records what a {@link PodGuardian.Listener} hears, in order: {@code seen <pod>} and {@code created <pod>}. */
final class ListenerRecorder implements PodGuardian.Listener {

    record Call(String what, String namespace, String podSet, String pod, long nanos, long reconcileStartNanos) {}

    final List<Call> calls = new CopyOnWriteArrayList<>();

    @Override
    public void podDeletionSeen(String namespace, String podSet, String pod, String podUid, long nanoTime) {
        calls.add(new Call("seen", namespace, podSet, pod, nanoTime, 0));
    }

    @Override
    public void podCreated(String namespace, String podSet, String pod, long reconcileStartNanos, long createdNanos) {
        calls.add(new Call("created", namespace, podSet, pod, createdNanos, reconcileStartNanos));
    }

    List<String> lines() {
        return calls.stream().map(c -> c.what() + " " + c.pod()).toList();
    }

    List<String> created() {
        return calls.stream()
                .filter(c -> c.what().equals("created"))
                .map(Call::pod)
                .toList();
    }

    int indexOf(String what, String pod) {
        return lines().indexOf(what + " " + pod);
    }
}
