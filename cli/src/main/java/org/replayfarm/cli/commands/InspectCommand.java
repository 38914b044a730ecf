package org.replayfarm.cli.commands;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import org.replayfarm.model.capture.CaptureFile;
import org.replayfarm.model.capture.Sha256;
import org.replayfarm.proto.BlobRef;
import org.replayfarm.proto.Capture;
import org.replayfarm.proto.Dispatch;
import org.replayfarm.proto.FloatMode;
import org.replayfarm.proto.Image;
import org.replayfarm.proto.MemoryRange;
import org.replayfarm.proto.Program;
import org.replayfarm.proto.RecordedRun;
import org.replayfarm.proto.RegisterLayout;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;
import org.replayfarm.cli.Replay;

@Command(name = "inspect", mixinStandardHelpOptions = true,
        description = "Print a readable summary of a capture: program, dispatch, register layout, ranges, images, runs.")
public final class InspectCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(paramLabel = "CAPTURE")
    Path capture;

    @Override
    public Integer call() throws Exception {
        CaptureFile file = CaptureFile.open(capture);
        print(file, spec.commandLine().getOut());
        return Replay.EXIT_OK;
    }

    static void print(CaptureFile file, PrintWriter out) throws java.io.IOException {
        Capture c = file.metadata();
        Program p = c.getProgram();
        out.printf("capture   %s%n", file.path());
        out.printf("sha256    %s (%d bytes)%n", file.identity(), file.fileLength());
        out.printf("program   %s, wave%d, %d code bytes at 0x%x, entry +0x%x%n",
                p.getKernelName().isEmpty() ? "(no kernel name)" : p.getKernelName(), p.getWaveSize(),
                p.getCode().getLength(), p.getCodeAddress(), p.getEntryOffset());
        out.printf("          %d VGPRs, %d SGPRs, LDS %d bytes/group, scratch %d bytes/lane%n",
                p.getVgprCount(), p.getSgprCount(), p.getLdsBytes(), p.getScratchBytesPerLane());
        FloatMode f = p.getFloatMode();
        out.printf("          float mode: IEEE %s, DX10_CLAMP %s, denorm f32 %s, f16/f64 %s, round f32 %s, f16/f64 %s%n",
                onOff(f.getIeee()), onOff(f.getDx10Clamp()), f.getDenormF32(), f.getDenormF16F64(),
                f.getRoundF32(), f.getRoundF16F64());
        if (p.getComputePgmRsrc1() != 0 || p.getComputePgmRsrc2() != 0) {
            out.printf("          rsrc1 0x%08x rsrc2 0x%08x rsrc3 0x%08x code properties 0x%04x kernarg %d bytes%n",
                    p.getComputePgmRsrc1(), p.getComputePgmRsrc2(), p.getComputePgmRsrc3(),
                    p.getKernelCodeProperties(), p.getKernargSize());
        }
        out.printf("          code sha256 %s%n", hex(p.getCode()));
        Dispatch d = c.getDispatch();
        out.printf("dispatch  %d x %d x %d groups of %d x %d x %d work-items (%d groups)%n",
                d.getGroupCountX(), d.getGroupCountY(), d.getGroupCountZ(), d.getGroupSizeX(), d.getGroupSizeY(),
                d.getGroupSizeZ(), (long) d.getGroupCountX() * d.getGroupCountY() * d.getGroupCountZ());
        RegisterLayout r = c.getRegisters();
        out.println("registers");
        for (var u : r.getUserSgprsList()) {
            out.printf("  s%-3d = 0x%08x  %s%n", u.getIndex(), u.getValue(), u.getRole());
        }
        for (var s : r.getSystemSgprsList()) {
            out.printf("  s%-3d   %s (per wave)%n", s.getIndex(), s.getKind());
        }
        out.println("  " + r.getWorkItemVgprsList().stream().map(v -> "v" + v.getIndex() + " " + v.getDimension())
                .collect(Collectors.joining(", ")) + " (per lane)");
        out.printf("ranges    %d%n", c.getRangesCount());
        for (MemoryRange m : c.getRangesList()) {
            out.printf("  [%d] 0x%012x %10d bytes  %-24s sha256 %s%n", m.getIndex(), m.getGuestAddress(), m.getSize(),
                    m.getName(), hex(m.getInitial()));
        }
        out.printf("images    %d%n", c.getImagesCount());
        for (Image im : c.getImagesList()) {
            out.printf("  [%d] 0x%012x %s %dx%dx%d, %d layer(s), %d mip(s), %s %s, order %s  %s sha256 %s%n",
                    im.getIndex(), im.getGuestAddress(), im.getType(), im.getWidth(), im.getHeight(), im.getDepth(),
                    im.getLayers(), im.getMipLevels(), im.getDataFormat(), im.getNumericFormat(),
                    im.getChannelOrderList(), im.getName(), hex(im.getTexels()));
        }
        out.printf("runs      %d%n", c.getRunsCount());
        for (RecordedRun run : c.getRunsList()) {
            out.printf("  \"%s\": %d range(s), %d image(s)%n", run.getLabel(), run.getRangesCount(), run.getImagesCount());
        }
        var prov = c.getProvenance();
        out.printf("provenance %s %s%n", prov.getTool(), String.join(" ", prov.getArgumentsList()));
        for (var s : prov.getSourcesList()) {
            out.printf("  %s sha256 %s%n", s.getName(), s.getSha256Hex());
        }
        out.flush();
    }

    private static String onOff(boolean b) {
        return b ? "on" : "off";
    }

    private static String hex(BlobRef ref) {
        return Sha256.hex(ref.getSha256().toByteArray());
    }
}
