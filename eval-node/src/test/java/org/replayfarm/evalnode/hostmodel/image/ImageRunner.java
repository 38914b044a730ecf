package org.replayfarm.evalnode.hostmodel.image;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import org.replayfarm.evalnode.hostmodel.GroupResult;
import org.replayfarm.evalnode.hostmodel.HostModel;
import org.replayfarm.evalnode.hostmodel.InitialMemory;
import org.replayfarm.evalnode.hostmodel.Kernel;
import org.replayfarm.evalnode.hostmodel.wave.Wave;
import org.replayfarm.model.build.CaptureBuilder;
import org.replayfarm.model.build.DispatchShape;
import org.replayfarm.model.build.KernelArg;
import org.replayfarm.model.build.Llvm;
import org.replayfarm.model.build.RawLayout;
import org.replayfarm.model.capture.CaptureFile;
import org.replayfarm.proto.Provenance;

/**
 * Runs gfx1030 assembly (llvm-mc-19) on a capture built by {@link CaptureBuilder} from {@code --arg}
 * texts, as {@code replay capture build} would: the kernarg pointer in s[0:1], argument k's 8 bytes at
 * kernarg offset 8k (a buffer's address, an image's T# address, a sampler's S# address), work-item ids
 * in v0..v2, group ids in s[20:22]. One group of {@code lanes} lanes.
 */
final class ImageRunner {
    private final Path dir;
    private final List<String> args = new ArrayList<>();
    private int lanes = 32;
    private java.util.function.UnaryOperator<org.replayfarm.proto.Capture> patch = c -> c;

    ImageRunner(Path dir) {
        this.dir = dir;
    }

    ImageRunner arg(String text) {
        args.add(text);
        return this;
    }

    ImageRunner lanes(int n) {
        lanes = n;
        return this;
    }

    /** Rewrites the built capture's metadata before it is written (an image's type and layers, say). */
    ImageRunner patch(java.util.function.UnaryOperator<org.replayfarm.proto.Capture> change) {
        patch = change;
        return this;
    }

    /** A file in the test directory holding {@code bytes}, for buffer: and image:raw: arguments. */
    Path file(String name, byte[] bytes) throws Exception {
        Path p = dir.resolve(name);
        Files.write(p, bytes);
        return p;
    }

    record Outcome(HostModel.Run run, Kernel kernel) {
        public Wave wave() {
            return run.group().waves().get(0);
        }

        GroupResult result() {
            return run.result();
        }

        /** Range n as the group left it. */
        public ByteBuffer buffer(int n) {
            InitialMemory.Range r = run.group().memory().initial().ranges().get(n);
            byte[] out = new byte[(int) r.size()];
            for (int i = 0; i < out.length; i++) {
                out[i] = (byte) run.group().memory().load(r.address() + i, 1, -1);
            }
            return ByteBuffer.wrap(out).order(ByteOrder.LITTLE_ENDIAN);
        }

        public Outcome ok() {
            if (run.result().fault().isPresent()) {
                throw new AssertionError("unexpected fault: " + run.result().fault().get());
            }
            return this;
        }
    }

    /** Assembles the prologue-free program (it must load what it needs from the kernarg) and runs group 0. */
    Outcome run(String assembly) throws Exception {
        Path s = Files.createTempFile(dir, "i", ".s");
        Files.writeString(s, assembly + "\ns_endpgm\n");
        byte[] object = Llvm.assemble(s, false);
        List<KernelArg> kernelArgs = new ArrayList<>();
        for (String a : args) {
            kernelArgs.add(KernelArg.parse(a));
        }
        var built = CaptureBuilder.fromRawCode(object, new RawLayout(32, 256, 106, 0, 0, Map.of(), OptionalInt.of(0),
                OptionalInt.of(20)), new DispatchShape(1, 1, 1, lanes, 1, 1, 1), kernelArgs, Provenance.getDefaultInstance());
        Path capture = Files.createTempFile(dir, "i", ".capture");
        built.writer().write(patch.apply(built.metadata()), capture);
        Kernel kernel = new Kernel(CaptureFile.open(capture));
        return new Outcome(new HostModel(kernel, 1_000_000).runKeepingState(0, 0, 0), kernel);
    }

    static byte[] floats(float... v) {
        ByteBuffer b = ByteBuffer.allocate(4 * v.length).order(ByteOrder.LITTLE_ENDIAN);
        for (float f : v) {
            b.putFloat(f);
        }
        return b.array();
    }
}
