package org.replayfarm.coordinator.sampling;

import com.google.protobuf.Message;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.function.Predicate;
import org.replayfarm.gpunode.sampling.SamplingSink;

/**
 * A transport that loses, duplicates and reorders what a GPU node's session sends, as a test says:
 * {@code drop} decides which records never arrive, {@code duplicate} which arrive twice, and while
 * {@code holding} records are kept back and then delivered newest first.
 */
final class LossyWire implements SamplingSink {
    private final SamplingSink downstream;
    private final Deque<Message> held = new ArrayDeque<>();
    Predicate<Message> drop = m -> false;
    Predicate<Message> duplicate = m -> false;
    boolean holding;
    boolean cut;
    long dropped;

    LossyWire(SamplingSink downstream) {
        this.downstream = downstream;
    }

    @Override
    public void send(Message m) {
        if (cut || drop.test(m)) {
            dropped++;
            return;
        }
        if (holding) {
            held.push(m);
            return;
        }
        downstream.send(m);
        if (duplicate.test(m)) {
            downstream.send(m);
        }
    }

    /** Delivers what was held, newest first (reversed), and stops holding. */
    void release() {
        holding = false;
        while (!held.isEmpty()) {
            downstream.send(held.pop());
        }
    }
}
