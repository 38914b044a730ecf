package org.replayfarm.gpunode.device;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A device run's outputs: the final bytes of each range it recorded (by range index n, as in
 * guest-<n>.bin) and the final texels of each image (by image index, in the capture's texel layout), and
 * the executions it made, and (a GPU run that sampled) the hottest guest instructions its PC samples were
 * traced to, with how many of its PC samples were traced to a guest instruction ({@code samplesAttributed}) and
 * how many were not (the kernel's prologue, other functions and modules: {@code samplesUnattributed}; both 0
 * for a run that took no samples). A range or image absent from the maps was not recorded by this run and cannot be
 * compared. An {@code exec:} run also says how its program ended ({@link Exec}; null for every other kind).
 * Buffers are read-only views.
 */
public record DeviceRun(String kind, String label, SortedMap<Integer, ByteBuffer> ranges,
                        SortedMap<Integer, ByteBuffer> images, List<ExecutionRecord> executions, Fidelity fidelity,
                        List<org.replayfarm.proto.GuestHotspot> hotspots, long samplesAttributed,
                        long samplesUnattributed, Exec exec) {
    public DeviceRun {
        ranges = readOnly(ranges);
        images = readOnly(images);
        executions = List.copyOf(executions);
        hotspots = List.copyOf(hotspots);
    }

    /** A run that ran no program of the user's ({@code exec} null). */
    public DeviceRun(String kind, String label, SortedMap<Integer, ByteBuffer> ranges,
                     SortedMap<Integer, ByteBuffer> images, List<ExecutionRecord> executions, Fidelity fidelity,
                     List<org.replayfarm.proto.GuestHotspot> hotspots, long samplesAttributed, long samplesUnattributed) {
        this(kind, label, ranges, images, executions, fidelity, hotspots, samplesAttributed, samplesUnattributed, null);
    }

    /**
     * How an {@code exec:} device's program ended: the command as given, its exit status, the end of what it wrote
     * to stderr ({@link ExecBackend#STDERR_TAIL_CHARS} characters, {@link ExecBackend#STDERR_TAIL_LINES} lines at
     * most) and how long it ran.
     */
    public record Exec(String command, int exitStatus, String stderrTail, double seconds) {
    }

    /** A run without PC samples traced to guest instructions. */
    public DeviceRun(String kind, String label, SortedMap<Integer, ByteBuffer> ranges,
                     SortedMap<Integer, ByteBuffer> images, List<ExecutionRecord> executions, Fidelity fidelity) {
        this(kind, label, ranges, images, executions, fidelity, List.of(), 0, 0);
    }

    /** A run with no fidelity counts (a recorded run: nothing was translated). */
    public DeviceRun(String kind, String label, SortedMap<Integer, ByteBuffer> ranges,
                     SortedMap<Integer, ByteBuffer> images, List<ExecutionRecord> executions) {
        this(kind, label, ranges, images, executions, null, List.of(), 0, 0);
    }

    /**
     * What a translated run says about itself: of the program's instructions, how many the translation
     * holds as exact and as approximate (transcendentals, the clock), how many it refused and how many the
     * entry cannot reach (not translated); what the device executed (wave and lane instructions); and how
     * many groups faulted on the device.
     */
    public record Fidelity(long translatedExact, long translatedApproximate, long refused, long unreached,
                           long waveInstructions, long laneInstructions, long faultedGroups) {
    }

    private static SortedMap<Integer, ByteBuffer> readOnly(Map<Integer, ByteBuffer> in) {
        SortedMap<Integer, ByteBuffer> out = new TreeMap<>();
        in.forEach((k, v) -> out.put(k, v.asReadOnlyBuffer()));
        return java.util.Collections.unmodifiableSortedMap(out);
    }

    /** Range {@code n}'s final bytes as a new array, or null when the run did not record it. */
    public byte[] rangeBytes(int n) {
        return copy(ranges.get(n));
    }

    /** Image {@code k}'s final texels as a new array, or null when the run did not record it. */
    public byte[] imageTexels(int k) {
        return copy(images.get(k));
    }

    private static byte[] copy(ByteBuffer b) {
        if (b == null) {
            return null;
        }
        byte[] a = new byte[b.remaining()];
        b.duplicate().get(a);
        return a;
    }
}
