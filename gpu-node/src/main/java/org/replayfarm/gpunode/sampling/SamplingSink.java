package org.replayfarm.gpunode.sampling;

import com.google.protobuf.Message;

/** Where a session's records go as they happen: the GPU node sends them to the coordinator's window store. */
@FunctionalInterface
public interface SamplingSink {
    /** One of GpuSamplingWindowV1, GpuPcSampleBatch, GpuExecutionReport. */
    void send(Message record);
}
