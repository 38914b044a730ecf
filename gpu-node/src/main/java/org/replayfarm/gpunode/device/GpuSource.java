package org.replayfarm.gpunode.device;

import java.util.Optional;

/**
 * Where a {@code cuda} (or {@code auto}) device comes from: this node's own GPU ({@code LocalGpu}), or in a
 * cluster a GPU node the coordinator sends the device run to. An offer without a backend says why.
 */
@FunctionalInterface
public interface GpuSource {
    Offer offer();

    /** A GPU backend, or (empty) the one line saying why there is none. */
    record Offer(Optional<DeviceBackend> backend, String why) {
        public static Offer of(DeviceBackend b, String why) {
            return new Offer(Optional.of(b), why);
        }

        public static Offer none(String why) {
            return new Offer(Optional.empty(), why);
        }
    }
}
