package org.replayfarm.cli.commands;

import org.replayfarm.coordinator.report.CompareWith;
import org.replayfarm.coordinator.report.RangeViews;
import org.replayfarm.coordinator.report.Tolerance;
import org.replayfarm.gpunode.device.DeviceChoice;
import picocli.CommandLine.Option;

/** What the host's results are compared with, and how: {@code replay run} and {@code replay submit} take the same. */
final class CompareOptions {
    @Option(names = "--device", paramLabel = "auto|recorded[:LABEL]|dir:PATH|exec:COMMAND|cuda[:DIR]|cuda-cpu[:DIR]|none",
            defaultValue = "auto",
            description = "The device side: auto (a GPU when the farm has one, else the capture's first recorded run, "
                    + "else none), recorded (the first recorded run), recorded:LABEL, dir:PATH (a folder of guest-<n>.bin "
                    + "and image-<k>.raw another tool produced; the capture is not touched), exec:COMMAND (a program "
                    + "run as the device: COMMAND is split into words as a shell would, without a shell or any "
                    + "expansion; {capture} becomes a copy of the capture and {out} an empty folder the program fills "
                    + "as dir: reads one, every range and image of the capture included; a non-zero exit, a timeout "
                    + "or a missing or wrong-sized file is an error with the end of its stderr; e.g. --device 'exec:my-emu "
                    + "--run {capture} --dump {out}'), cuda (the program translated "
                    + "to CUDA C and launched on a GPU: this machine's, or a GPU node's of the farm; an error naming why "
                    + "when there is none), cuda:DIR (a translation folder, replay translate --out DIR, perhaps edited, "
                    + "built with nvcc as it lies and launched on this machine's GPU), cuda-cpu (the program translated to "
                    + "CUDA C, built with g++ and run on the CPU in a separate process), cuda-cpu:DIR (a translation folder "
                    + "built with g++ as it lies and run on the CPU), or none (default ${DEFAULT-VALUE}).")
    String device;

    @Option(names = "--device-timeout", paramLabel = "SECONDS", defaultValue = "" + DeviceChoice.DEFAULT_TIMEOUT_SECONDS,
            description = "How long an exec: device's program may run; then it and every process it started are killed "
                    + "and the device run is an error saying it timed out (default ${DEFAULT-VALUE}).")
    long deviceTimeout;

    @Option(names = "--ulp", paramLabel = "N", defaultValue = "0",
            description = "Accept float channels of images and float elements of typed ranges within N units in the "
                    + "last place (default exact; integers and untyped bytes are always exact).")
    int ulp;

    @Option(names = "--abs", paramLabel = "X", defaultValue = "0",
            description = "Accept float channels and elements whose |host - device| <= X (e.g. 1e-6; default 0: off). "
                    + "A value is accepted when exact or within any of --ulp, --abs and --rel; a NaN only matches a "
                    + "NaN, an infinity only itself.")
    String abs;

    @Option(names = "--rel", paramLabel = "X", defaultValue = "0",
            description = "Accept float channels and elements whose |host - device| <= X * max(|host|, |device|) "
                    + "(e.g. 1e-5; default 0: off).")
    String rel;

    @Option(names = "--approximate",
            description = "Accept a texel or float element at most one unit in the last place off (or --ulp N) when a "
                    + "group that stored it executed at least one instruction classified approximate (never an integer "
                    + "or an untyped byte).")
    boolean approximate;

    @Option(names = "--view", paramLabel = "RANGE=TYPE[ROWSxCOLS][,abs=X,rel=X,ulp=N]",
            description = "Type or shape a range (repeatable): RANGE is its index, kernel parameter or name; TYPE f16, "
                    + "f32, f64, i8..i64, u8..u64, optionally xN (f32x4), or an OpenCL C type; e.g. --view C=f32[37x50]. "
                    + "Pointer arguments are typed from the kernel metadata (.type_name) without it. Tolerances of the "
                    + "range's own follow (or stand alone), each replacing --abs, --rel or --ulp there: "
                    + "--view 4=f32,abs=1e-6, --view C=f32[37x50],rel=1e-5,ulp=4, --view C=abs=1e-6; an image's by "
                    + "image:K (index or name): --view image:1=abs=1e-3.")
    java.util.List<String> views = new java.util.ArrayList<>();

    @Option(names = "--values", paramLabel = "N", defaultValue = "" + org.replayfarm.coordinator.report.DiffOptions.DEFAULT_VALUES,
            description = "Differing elements or texels listed with their values per range and image in report.json "
                    + "(default ${DEFAULT-VALUE}; summary.txt shows the first three of them).")
    int values;

    /** The parsed choice; a bad spelling throws {@link IllegalArgumentException} naming it. */
    CompareWith compareWith() {
        double absolute = Tolerance.parseAmount("--abs", abs == null ? "0" : abs);
        double relative = Tolerance.parseAmount("--rel", rel == null ? "0" : rel);
        if (ulp < 0) {
            throw new IllegalArgumentException("--ulp '" + ulp + "': expected a whole number of ulps, 0 or more");
        }
        for (String v : views) {
            RangeViews.parse(v); // a malformed view (or tolerance) is refused before anything starts
        }
        return new CompareWith(DeviceChoice.parse(device).withTimeoutSeconds(deviceTimeout), ulp, approximate)
                .withTolerances(absolute, relative).withViews(views, values);
    }
}
