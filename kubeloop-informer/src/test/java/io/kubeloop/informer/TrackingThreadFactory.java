package io.kubeloop.informer;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadFactory;

/** Virtual threads, every one remembered, so a test can check that none is left running. */
final class TrackingThreadFactory implements ThreadFactory {

    private final List<Thread> threads = new CopyOnWriteArrayList<>();

    @Override
    public Thread newThread(Runnable body) {
        Thread t = Thread.ofVirtual().unstarted(body);
        threads.add(t);
        return t;
    }

    /** Names of the threads made here that are still alive. */
    List<String> alive() {
        return threads.stream().filter(Thread::isAlive).map(Thread::getName).toList();
    }

    /** Names of every thread made here. */
    List<String> names() {
        return threads.stream().map(Thread::getName).toList();
    }

    boolean isAlive(String nameFragment) {
        return threads.stream().anyMatch(t -> t.isAlive() && t.getName().contains(nameFragment));
    }
}
