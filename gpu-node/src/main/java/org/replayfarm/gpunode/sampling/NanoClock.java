package org.replayfarm.gpunode.sampling;

/** Where sampling reads time: nanoseconds on the device clock (CUPTI's on a GPU, a manual one in tests). */
@FunctionalInterface
public interface NanoClock {
    long nanos();
}
