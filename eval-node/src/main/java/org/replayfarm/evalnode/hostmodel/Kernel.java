package org.replayfarm.evalnode.hostmodel;

import java.nio.ByteOrder;
import org.replayfarm.model.capture.CaptureFile;
import org.replayfarm.model.isa.DecodedProgram;
import org.replayfarm.model.isa.Decoder;
import org.replayfarm.proto.Capture;
import org.replayfarm.proto.Dispatch;
import org.replayfarm.proto.FloatMode;
import org.replayfarm.proto.Program;

/**
 * Everything about a capture that every group shares and nobody changes: the program decoded once, the
 * initial memory, the dispatch shape, the register layout and the MODE a wave starts with.
 */
public final class Kernel {
    private final Capture capture;
    private final DecodedProgram program;
    private final InitialMemory memory;
    private final InitialImages images;
    private final int mode;

    public Kernel(CaptureFile file) {
        this.capture = file.metadata();
        Program p = capture.getProgram();
        this.program = DecodedProgram.decode(Decoder.gfx1030(), file.blob(p.getCode()).order(ByteOrder.LITTLE_ENDIAN),
                p.getCodeAddress());
        this.memory = InitialMemory.of(file);
        this.images = InitialImages.of(file);
        this.mode = initialMode(p.getFloatMode());
    }

    private Kernel(Kernel other, int mode) {
        this.capture = other.capture;
        this.program = other.program;
        this.memory = other.memory;
        this.images = other.images;
        this.mode = mode;
    }

    /**
     * This kernel with waves starting in {@code mode} instead of the capture's (the comparison asks what the
     * program gives under another float mode: denormals kept where the capture's mode flushes them).
     */
    public Kernel withMode(int mode) {
        return new Kernel(this, mode);
    }

    /** MODE's FP_DENORM field [7:4] with every denormal kept, in and out, for f32 and for f16/f64. */
    public static final int DENORMALS_KEPT = 0xF << 4;

    /** Whether the capture's mode flushes any denormals (f32, or f16/f64; inputs or outputs). */
    public boolean flushesDenormals() {
        return (mode & DENORMALS_KEPT) != DENORMALS_KEPT;
    }

    /**
     * MODE at wave start: FP_ROUND [3:0] (f32 in [1:0], f16/f64 in [3:2]), FP_DENORM [7:4] likewise,
     * DX10_CLAMP [8], IEEE [9], FP16_OVFL [23]; the enum values are the hardware codes plus one.
     */
    static int initialMode(FloatMode f) {
        int round = (f.getRoundF32Value() - 1) | (f.getRoundF16F64Value() - 1) << 2;
        int denorm = (f.getDenormF32Value() - 1) | (f.getDenormF16F64Value() - 1) << 2;
        return round | denorm << 4 | (f.getDx10Clamp() ? 1 << 8 : 0) | (f.getIeee() ? 1 << 9 : 0)
                | (f.getFp16OverflowClamp() ? 1 << 23 : 0);
    }

    public Capture capture() {
        return capture;
    }

    public DecodedProgram program() {
        return program;
    }

    /** The capture's images and their initial texels. */
    public InitialImages images() {
        return images;
    }

    public InitialMemory memory() {
        return memory;
    }

    public int initialMode() {
        return mode;
    }

    public int waveSize() {
        return capture.getProgram().getWaveSize();
    }

    public int vgprCount() {
        return capture.getProgram().getVgprCount();
    }

    public int ldsBytes() {
        return capture.getProgram().getLdsBytes();
    }

    public int scratchBytesPerLane() {
        return capture.getProgram().getScratchBytesPerLane();
    }

    public long entry() {
        return capture.getProgram().getCodeAddress() + capture.getProgram().getEntryOffset();
    }

    public int groupSize() {
        Dispatch d = capture.getDispatch();
        return d.getGroupSizeX() * d.getGroupSizeY() * d.getGroupSizeZ();
    }

    public int wavesPerGroup() {
        return (groupSize() + waveSize() - 1) / waveSize();
    }

    public Dispatch dispatch() {
        return capture.getDispatch();
    }
}
