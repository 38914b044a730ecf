package org.replayfarm.cli.commands;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import org.replayfarm.coordinator.report.RangeView;
import org.replayfarm.coordinator.report.RangeViews;
import org.replayfarm.evalnode.hostmodel.InitialMemory;
import org.replayfarm.model.capture.CaptureFile;
import org.replayfarm.proto.Capture;
import org.replayfarm.proto.Dispatch;
import org.replayfarm.proto.FloatMode;
import org.replayfarm.proto.Image;
import org.replayfarm.proto.MemoryRange;
import org.replayfarm.proto.Program;
import org.replayfarm.proto.SystemSgpr;
import org.replayfarm.proto.UserSgpr;
import org.replayfarm.proto.WorkItemVgpr;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import org.replayfarm.cli.Replay;

@Command(name = "export", mixinStandardHelpOptions = true,
        description = {"Write what another tool needs to run a capture's dispatch: code.bin (the program, loaded at "
                + "program.code_address), kernarg.bin (the kernarg segment, when there is one), guest-<n>.bin (every "
                + "range's initial bytes), image-<k>.raw (every image's initial texels, in the capture's layout) and "
                + "manifest.json (replay-farm/capture-export/1: program, float mode, dispatch, the register layout with "
                + "the values user SGPRs start with, ranges and images with their guest addresses and kernel parameters).",
                "A translator that runs it writes the final guest-<n>.bin and image-<k>.raw into a folder, which "
                        + "replay run CAPTURE --device dir:FOLDER compares with the host model."})
final class CaptureExportCommand implements Callable<Integer> {
    public static final String SCHEMA = "replay-farm/capture-export/1";

    @Spec
    CommandSpec spec;

    @Parameters(paramLabel = "CAPTURE")
    Path capture;

    @Option(names = "--out", required = true, paramLabel = "DIR", description = "Output directory.")
    Path out;

    @Override
    public Integer call() throws Exception {
        Replay.checkOutDir(spec, out);
        CaptureFile file = CaptureFile.open(capture);
        Capture c = file.metadata();
        Files.createDirectories(out);
        Program p = c.getProgram();
        write(out.resolve("code.bin"), file.blob(p.getCode()));
        ObjectNode m = new ObjectMapper().createObjectNode();
        m.put("schema", SCHEMA).put("capture_sha256", file.identity()).put("capture_file", capture.getFileName().toString());
        ObjectNode program = m.putObject("program").put("kernel", p.getKernelName()).put("file", "code.bin")
                .put("code_address", hex(p.getCodeAddress())).put("code_bytes", p.getCode().getLength())
                .put("entry_offset", p.getEntryOffset()).put("entry_address", hex(p.getCodeAddress() + p.getEntryOffset()))
                .put("wave_size", p.getWaveSize()).put("vgprs", p.getVgprCount()).put("sgprs", p.getSgprCount())
                .put("lds_bytes", p.getLdsBytes()).put("scratch_bytes_per_lane", p.getScratchBytesPerLane())
                .put("compute_pgm_rsrc1", hex(p.getComputePgmRsrc1())).put("compute_pgm_rsrc2", hex(p.getComputePgmRsrc2()))
                .put("compute_pgm_rsrc3", hex(p.getComputePgmRsrc3()))
                .put("kernel_code_properties", hex(p.getKernelCodeProperties())).put("kernarg_size", p.getKernargSize());
        FloatMode f = p.getFloatMode();
        program.putObject("float_mode").put("ieee", f.getIeee()).put("dx10_clamp", f.getDx10Clamp())
                .put("denorm_f32", f.getDenormF32().name()).put("denorm_f16_f64", f.getDenormF16F64().name())
                .put("round_f32", f.getRoundF32().name()).put("round_f16_f64", f.getRoundF16F64().name())
                .put("fp16_overflow_clamp", f.getFp16OverflowClamp());
        Dispatch d = c.getDispatch();
        ObjectNode dispatch = m.putObject("dispatch");
        dispatch.putArray("groups").add(d.getGroupCountX()).add(d.getGroupCountY()).add(d.getGroupCountZ());
        dispatch.putArray("group_size").add(d.getGroupSizeX()).add(d.getGroupSizeY()).add(d.getGroupSizeZ());
        ObjectNode registers = m.putObject("registers");
        ArrayNode users = registers.putArray("user_sgprs");
        for (UserSgpr u : c.getRegisters().getUserSgprsList()) {
            users.addObject().put("sgpr", u.getIndex()).put("value", hex(Integer.toUnsignedLong(u.getValue())))
                    .put("role", u.getRole().name());
        }
        ArrayNode system = registers.putArray("system_sgprs");
        for (SystemSgpr s : c.getRegisters().getSystemSgprsList()) {
            system.addObject().put("sgpr", s.getIndex()).put("kind", s.getKind().name());
        }
        ArrayNode vgprs = registers.putArray("work_item_vgprs");
        for (WorkItemVgpr v : c.getRegisters().getWorkItemVgprsList()) {
            vgprs.addObject().put("vgpr", v.getIndex()).put("dimension", v.getDimension().name());
        }
        List<RangeView> views = RangeViews.of(InitialMemory.of(file), p.getKernelName(), List.of());
        ArrayNode ranges = m.putArray("ranges");
        for (MemoryRange r : c.getRangesList()) {
            String name = "guest-" + r.getIndex() + ".bin";
            write(out.resolve(name), file.blob(r.getInitial()));
            RangeView v = views.get(r.getIndex());
            ObjectNode rn = ranges.addObject().put("index", r.getIndex()).put("name", r.getName())
                    .put("guest_address", hex(r.getGuestAddress())).put("bytes", r.getSize()).put("file", name)
                    .put("argument", v.argument()).put("parameter", v.parameter()).put("type_name", v.typeName())
                    .put("element", v.typed() ? v.type().spelling() : "");
            if (r.getName().equals("kernarg")) {
                write(out.resolve("kernarg.bin"), file.blob(r.getInitial()));
                m.putObject("kernarg").put("range", r.getIndex()).put("guest_address", hex(r.getGuestAddress()))
                        .put("bytes", r.getSize()).put("file", "kernarg.bin");
                rn.put("role", "kernarg segment");
            } else if (r.getName().equals("code-object")) {
                rn.put("role", "loaded code object");
            } else if (r.getName().equals("dispatch-packet")) {
                rn.put("role", "AQL dispatch packet");
            }
        }
        ArrayNode images = m.putArray("images");
        for (Image i : c.getImagesList()) {
            String name = "image-" + i.getIndex() + ".raw";
            write(out.resolve(name), file.blob(i.getTexels()));
            ObjectNode in = images.addObject().put("index", i.getIndex()).put("name", i.getName())
                    .put("guest_address", hex(i.getGuestAddress())).put("type", i.getType().name())
                    .put("data_format", i.getDataFormat().name()).put("numeric_format", i.getNumericFormat().name())
                    .put("width", i.getWidth()).put("height", i.getHeight()).put("depth", i.getDepth())
                    .put("layers", i.getLayers()).put("mip_levels", i.getMipLevels()).put("file", name)
                    .put("bytes", i.getTexels().getLength())
                    .put("layout", "mip-major: mip 0 (every layer, then every slice, row by row), then mip 1, ...");
            ArrayNode order = in.putArray("channel_order");
            i.getChannelOrderList().forEach(s -> order.add(s.name()));
        }
        m.put("device_output", "write the final contents as guest-<n>.bin (every range the dispatch may change, its full "
                + "size) and image-<k>.raw into a folder; replay run CAPTURE --device dir:FOLDER compares them");
        Files.writeString(out.resolve("manifest.json"),
                new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(m) + "\n");
        spec.commandLine().getOut().printf("wrote %s: code.bin, %d range(s), %d image(s), manifest.json%n", out,
                c.getRangesCount(), c.getImagesCount());
        return Replay.EXIT_OK;
    }

    private static String hex(long v) {
        return String.format("0x%x", v);
    }

    private static void write(Path file, ByteBuffer data) throws IOException {
        byte[] b = new byte[data.remaining()];
        data.duplicate().get(b);
        Files.write(file, b);
    }
}
