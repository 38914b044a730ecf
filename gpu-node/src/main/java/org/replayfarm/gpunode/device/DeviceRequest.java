package org.replayfarm.gpunode.device;

import org.replayfarm.model.capture.CaptureFile;

/**
 * What a device run is asked for: the capture (by file and SHA-256 identity) whose dispatch it runs, and the
 * job it runs for ({@code jobId}, empty outside a job): the job the run's figures are recorded under.
 */
public record DeviceRequest(CaptureFile capture, String captureSha256, String jobId) {
    public DeviceRequest {
        jobId = jobId == null ? "" : jobId;
    }

    /** A run outside any job. */
    public DeviceRequest(CaptureFile capture, String captureSha256) {
        this(capture, captureSha256, "");
    }
}
