package org.replayfarm.cli.commands;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.replayfarm.gpunode.cuda.CudaBackend;
import org.replayfarm.gpunode.device.CudaCpuBackend;
import org.replayfarm.gpunode.device.DeviceBackend;
import org.replayfarm.gpunode.device.DeviceChoice;
import org.replayfarm.gpunode.device.DeviceEvents;
import org.replayfarm.gpunode.device.DeviceRequest;
import org.replayfarm.gpunode.device.DeviceRun;
import org.replayfarm.model.capture.CaptureFile;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/** {@code capture add-run --from-device}: runs a capture on a device and writes its outputs as add-run reads them. */
final class DeviceRunToFiles {
    private DeviceRunToFiles() {
    }

    /** Runs {@code capture} on {@code device} (cuda or cuda-cpu), writes guest-<n>.bin / image-<k>.raw into {@code dir}; returns the label. */
    static String run(Path capture, String device, String label, Path dir, CommandSpec spec) throws Exception {
        if (!device.equals("cuda") && !device.equals("cuda-cpu")) {
            throw new ParameterException(spec.commandLine(), "--from-device takes cuda or cuda-cpu, not '" + device + "'");
        }
        CaptureFile file = CaptureFile.open(capture);
        DeviceBackend backend;
        try {
            backend = DeviceChoice.parse(device).resolve(file).backend().orElseThrow();
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        DeviceRun run = backend.run(new DeviceRequest(file, file.identity()), DeviceEvents.ignore());
        for (Map.Entry<Integer, ByteBuffer> r : run.ranges().entrySet()) {
            Files.write(dir.resolve("guest-" + r.getKey() + ".bin"), run.rangeBytes(r.getKey()));
        }
        for (Map.Entry<Integer, ByteBuffer> i : run.images().entrySet()) {
            Files.write(dir.resolve("image-" + i.getKey() + ".raw"), run.imageTexels(i.getKey()));
        }
        if (label != null) {
            return label;
        }
        String hash = backend instanceof CudaBackend c && c.lastOutcome() != null ? c.lastOutcome().built().hash()
                : backend instanceof CudaCpuBackend c && c.lastOutcome() != null ? c.lastOutcome().built().hash() : "";
        return run.label() + (hash.isEmpty() ? "" : ", translation " + hash.substring(0, 12));
    }
}
