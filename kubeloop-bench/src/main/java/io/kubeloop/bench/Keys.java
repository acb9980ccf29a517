package io.kubeloop.bench;

/** The keys the queue benchmarks use: per-thread rings of distinct keys, and a per-thread random pick of hot keys. */
final class Keys {

    private Keys() {}

    /** {@code size} distinct keys for thread {@code thread}, with their hash codes cached as long-lived keys have. */
    static String[] ring(int thread, int size) {
        String[] ring = new String[size];
        for (int i = 0; i < size; i++) {
            ring[i] = "worker-" + thread + "/obj-" + i;
            ring[i].hashCode();
        }
        return ring;
    }

    /** A non-zero xorshift seed for thread {@code thread}. */
    static int seed(int thread) {
        return 0x9E3779B9 * (thread + 1);
    }

    /** The next xorshift32 state. */
    static int xorshift(int x) {
        x ^= x << 13;
        x ^= x >>> 17;
        x ^= x << 5;
        return x;
    }
}
