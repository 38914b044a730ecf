package org.replayfarm.gpunode.device;

import org.replayfarm.model.capture.CaptureFile;

/** What a device run is asked for: the capture (by file and SHA-256 identity) whose dispatch it runs. */
public record DeviceRequest(CaptureFile capture, String captureSha256) {
}
