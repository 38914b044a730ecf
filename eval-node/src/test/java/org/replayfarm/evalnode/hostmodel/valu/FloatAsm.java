package org.replayfarm.evalnode.hostmodel.valu;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import org.replayfarm.evalnode.hostmodel.HostModel;
import org.replayfarm.evalnode.hostmodel.Kernel;
import org.replayfarm.evalnode.hostmodel.wave.Wave;
import org.replayfarm.model.build.CaptureBuilder;
import org.replayfarm.model.build.DispatchShape;
import org.replayfarm.model.build.Llvm;
import org.replayfarm.model.build.RawLayout;
import org.replayfarm.model.capture.CaptureFile;
import org.replayfarm.proto.Capture;
import org.replayfarm.proto.DenormMode;
import org.replayfarm.proto.FloatMode;
import org.replayfarm.proto.Provenance;
import org.replayfarm.proto.RoundMode;

/**
 * AsmRunner's way of running assembly (llvm-mc-19, a raw capture, the host model's group 0), with what the
 * float tests need on top: SGPRs preset with chosen bit patterns (inputs of any value, NaN payloads and
 * denormals included, without needing other units' move instructions) and the wave's starting MODE
 * (round modes, denormal modes, DX10_CLAMP, IEEE) set through the capture's float mode.
 */
final class FloatAsm {
    private final Path dir;
    private int waveSize = 32;
    private int lanes = 32;
    private int mode = org.replayfarm.model.fp.FpMode.encode(0, 0, 3, 3, true, true);
    private final Map<Integer, Integer> sgprs = new LinkedHashMap<>();

    FloatAsm(Path dir) {
        this.dir = dir;
    }

    FloatAsm wave64() {
        waveSize = 64;
        lanes = 64;
        return this;
    }

    FloatAsm lanes(int n) {
        lanes = n;
        return this;
    }

    /** The MODE the wave starts with (only its float fields: round, denorm, DX10_CLAMP, IEEE). */
    FloatAsm mode(int value) {
        mode = value;
        return this;
    }

    FloatAsm sgpr(int index, int bits) {
        sgprs.put(index, bits);
        return this;
    }

    FloatAsm sgpr64(int index, long bits) {
        sgprs.put(index, (int) bits);
        sgprs.put(index + 1, (int) (bits >>> 32));
        return this;
    }

    FloatAsm f32(int index, float v) {
        return sgpr(index, Float.floatToRawIntBits(v));
    }

    FloatAsm f64(int index, double v) {
        return sgpr64(index, Double.doubleToRawLongBits(v));
    }

    /** Runs the lines (s_endpgm appended) and returns wave 0, failing on any fault. */
    Wave run(String assembly) throws Exception {
        Path s = Files.createTempFile(dir, "t", ".s");
        Files.writeString(s, assembly + "\ns_endpgm\n");
        byte[] object = Llvm.assemble(s, waveSize == 64);
        DispatchShape shape = new DispatchShape(1, 1, 1, lanes, 1, 1, 1);
        RawLayout raw = new RawLayout(waveSize, 256, 106, 0, 0, sgprs, OptionalInt.empty(), OptionalInt.of(100));
        var built = CaptureBuilder.fromRawCode(object, raw, shape, List.of(), Provenance.getDefaultInstance());
        Capture c = built.metadata();
        FloatMode fm = FloatMode.newBuilder().setIeee((mode & (1 << 9)) != 0).setDx10Clamp((mode & (1 << 8)) != 0)
                .setRoundF32(RoundMode.forNumber((mode & 3) + 1)).setRoundF16F64(RoundMode.forNumber((mode >>> 2 & 3) + 1))
                .setDenormF32(DenormMode.forNumber((mode >>> 4 & 3) + 1))
                .setDenormF16F64(DenormMode.forNumber((mode >>> 6 & 3) + 1)).build();
        c = c.toBuilder().setProgram(c.getProgram().toBuilder().setFloatMode(fm)).build();
        Path capture = Files.createTempFile(dir, "t", ".capture");
        new CaptureBuilder.Built(c, built.writer()).write(capture);
        Kernel kernel = new Kernel(CaptureFile.open(capture));
        HostModel.Run run = new HostModel(kernel, 100_000).runKeepingState(0, 0, 0);
        assertTrue(run.result().fault().isEmpty(), () -> run.result().fault().toString());
        return run.group().waves().get(0);
    }

    /** MODE with round modes (f32, f16/f64), denorm modes (f32, f16/f64) and the two flags. */
    static int mode(int roundF32, int roundF16F64, int denormF32, int denormF16F64, boolean dx10, boolean ieee) {
        return org.replayfarm.model.fp.FpMode.encode(roundF32, roundF16F64, denormF32, denormF16F64, dx10, ieee);
    }
}
