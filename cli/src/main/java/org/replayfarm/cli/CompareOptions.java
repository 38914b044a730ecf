package org.replayfarm.cli;

import org.replayfarm.coordinator.diff.CompareWith;
import picocli.CommandLine.Option;

/** What the host's results are compared with, and how: {@code replay run} and {@code replay submit} take the same. */
final class CompareOptions {
    @Option(names = "--device", paramLabel = "auto|recorded[:LABEL]|cuda-cpu|none", defaultValue = "auto",
            description = "The device side: auto (a GPU when the farm has one, else the capture's first recorded run, "
                    + "else none), recorded (the first recorded run), recorded:LABEL, cuda-cpu (the program translated "
                    + "to CUDA C, built with g++ and run on the CPU in a separate process), or none (default "
                    + "${DEFAULT-VALUE}).")
    String device;

    @Option(names = "--ulp", paramLabel = "N", defaultValue = "0",
            description = "Accept float channels of images within N units in the last place (default exact).")
    int ulp;

    @Option(names = "--approximate",
            description = "Accept a texel at most one unit in the last place off per channel when the group that stored "
                    + "it executed at least one instruction classified approximate (never a memory byte).")
    boolean approximate;

    /** The parsed choice; a bad spelling throws {@link IllegalArgumentException} naming it. */
    CompareWith compareWith() {
        return CompareWith.parse(device, ulp, approximate);
    }
}
