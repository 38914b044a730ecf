package org.replayfarm.gpunode.translate;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.replayfarm.model.capture.CaptureFile;
import org.replayfarm.model.isa.DecodedProgram;
import org.replayfarm.model.isa.Decoder;
import org.replayfarm.proto.Program;

/**
 * What the translator needs of a program: its code (decoded once by the project's decoder), the entry
 * point, the wave size and its allocations.
 *
 * @param code the program's bytes (for the listing), little-endian, position 0 at {@code program.base()}
 */
public record ProgramInfo(String name, DecodedProgram program, ByteBuffer code, long entry, int waveSize,
                          int vgprCount, int ldsBytes, int scratchBytesPerLane) {
    public ProgramInfo {
        code = code.asReadOnlyBuffer().order(ByteOrder.LITTLE_ENDIAN);
        if (waveSize != 32 && waveSize != 64) {
            throw new IllegalArgumentException("wave size " + waveSize + ": expected 32 or 64");
        }
    }

    /** The capture's program, decoded with the same decoder and tables the host model uses. */
    public static ProgramInfo of(CaptureFile capture) {
        Program p = capture.metadata().getProgram();
        ByteBuffer code = capture.blob(p.getCode()).order(ByteOrder.LITTLE_ENDIAN);
        DecodedProgram decoded = DecodedProgram.decode(Decoder.gfx1030(), code.duplicate().order(ByteOrder.LITTLE_ENDIAN),
                p.getCodeAddress());
        return new ProgramInfo(p.getKernelName(), decoded, code, p.getCodeAddress() + p.getEntryOffset(),
                p.getWaveSize(), p.getVgprCount(), p.getLdsBytes(), p.getScratchBytesPerLane());
    }
}
