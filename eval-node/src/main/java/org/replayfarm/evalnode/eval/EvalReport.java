package org.replayfarm.evalnode.eval;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.ArrayList;
import java.util.List;
import org.replayfarm.evalnode.hostmodel.FaultRecord;
import org.replayfarm.evalnode.hostmodel.InitialImages;
import org.replayfarm.evalnode.hostmodel.InitialMemory;
import org.replayfarm.evalnode.hostmodel.Kernel;
import org.replayfarm.model.capture.TexelLayout;

/**
 * The host's part of report.json (docs/report-schema.md), what {@code replay eval} writes and {@code replay run}
 * starts its report with: {@code schema} ... {@code images}, then {@code wall_time_seconds}, written through
 * {@link ReportJson}. Each record is one object, its components the object's fields in the order written; a
 * component marked {@link JsonInclude.Include#NON_NULL} is left out when null.
 */
public record EvalReport(String schema, String captureSha256, String kernel, String kernelDemangled, int waveSize,
                         int groups, int threads, long waveInstructions, long laneInstructions,
                         Fidelity instructionsByFidelity, List<Fault> faults, long storeConflicts,
                         List<StoreConflict> storeConflictExamples, List<TexelConflict> texelConflictExamples,
                         List<OrderDependent> orderDependentAtomics,
                         @JsonInclude(JsonInclude.Include.NON_NULL) InOrderPass orderDependentInOrder,
                         List<Range> ranges, List<Image> images, double wallTimeSeconds) {
    public static final String SCHEMA = "replay-farm/eval-report/1";
    /** How many store and texel conflicts the report gives as examples, of each. */
    public static final int CONFLICT_EXAMPLES = 20;
    /** How many groups of the in-order pass the report names. */
    public static final int IN_ORDER_GROUPS = 1000;

    /** Counts of the instructions run, by how faithfully the host model executes them. */
    public record Fidelity(long exact, long approximate, long unsupported) {
    }

    /** A fault: the group ({@code [x, y, z]}), wave, lane, pc (hex), the instruction and why. */
    public record Fault(List<Integer> group, int wave, int lane, String pc, String instruction, String message) {
        static Fault of(FaultRecord f) {
            return new Fault(List.of(f.groupX(), f.groupY(), f.groupZ()), f.wave(), f.lane(),
                    String.format("0x%x", f.pc()), f.instruction(), f.message());
        }
    }

    /** Two groups stored different bytes at one offset of a range. */
    public record StoreConflict(int range, long offset, String firstGroup, String secondGroup) {
    }

    /** Two groups stored different values in one texel of an image. */
    public record TexelConflict(int image, int mip, int layer, int x, int y, int z, String firstGroup,
                                String secondGroup) {
    }

    /** An atomic location whose final value depends on the order of the groups: in a range or in an image. */
    public sealed interface OrderDependent permits MemoryAtomic, ImageAtomic {
    }

    /** An order-dependent location of a range: the operation, its width, how many changes and the groups. */
    public record MemoryAtomic(int range, long offset, String op, int bytes, int changes, List<String> groups)
            implements OrderDependent {
    }

    /** An order-dependent texel: the operation, whether a store came before it, and the groups. */
    public record ImageAtomic(int image, int mip, int layer, int x, int y, int z, String op, boolean afterStore,
                              List<String> groups) implements OrderDependent {
    }

    /** The groups of order-dependent locations run again in group order ({@link InOrder}); {@code fault} if one. */
    public record InOrderPass(String order, int groupCount, List<String> groups, long waveInstructions,
                              @JsonInclude(JsonInclude.Include.NON_NULL) String fault) {
    }

    /** A range's final bytes, in {@code file}. */
    public record Range(int index, String name, String file, long bytes) {
    }

    /** An image's final texels, in {@code file} (the capture's layout). */
    public record Image(int index, String name, String file, int width, int height, String format) {
    }

    /** The report of an evaluation's outcome. */
    public static EvalReport of(Evaluation.Outcome o, Kernel kernel, String captureSha256) {
        String name = kernel.capture().getProgram().getKernelName();
        List<OrderDependent> dependent = new ArrayList<>();
        for (MemoryMerge.OrderDependent d : o.orderDependent()) {
            dependent.add(new MemoryAtomic(d.range(), d.offset(), d.op(), d.bytes(), d.changes(), d.groups()));
        }
        for (ImageMerge.OrderDependent d : o.images().orderDependent()) {
            TexelLayout.Texel at = d.at();
            dependent.add(new ImageAtomic(d.image(), at.mip(), at.layer(), at.x(), at.y(), at.z(), d.op(),
                    d.afterStore(), d.groups()));
        }
        InOrderPass inOrder = !o.inOrder().ran() ? null : new InOrderPass("group order", o.inOrder().groups().size(),
                o.inOrder().groups().stream().limit(IN_ORDER_GROUPS).toList(), o.inOrder().waveInstructions(),
                o.inOrder().fault().map(FaultRecord::toString).orElse(null));
        return new EvalReport(SCHEMA, captureSha256, name,
                // a HIP kernel's symbol is mangled (_Z5scalePffj): its declaration, as people read it
                org.replayfarm.model.elf.OpenClNames.demangle(name), kernel.waveSize(), o.groups(), o.threads(),
                o.waveInstructions(), o.laneInstructions(), new Fidelity(o.exact(), o.approximate(), o.unsupported()),
                o.faults().stream().map(Fault::of).toList(), o.memory().conflictCount() + o.images().conflictCount(),
                o.memory().conflicts().stream().limit(CONFLICT_EXAMPLES)
                        .map(c -> new StoreConflict(c.range(), c.offset(), c.firstGroup(), c.secondGroup())).toList(),
                o.images().conflicts().stream().limit(CONFLICT_EXAMPLES)
                        .map(c -> new TexelConflict(c.image(), c.at().mip(), c.at().layer(), c.at().x(), c.at().y(),
                                c.at().z(), c.firstGroup(), c.secondGroup())).toList(),
                dependent, inOrder,
                o.memory().initial().ranges().stream().map(r -> new Range(r.index(), r.name(),
                        "host/guest-" + r.index() + ".bin", r.size())).toList(),
                o.images().initial().images().stream().map(e -> new Image(e.index(), e.image().getName(),
                        "host/image-" + e.index() + ".raw", e.image().getWidth(), e.image().getHeight(),
                        e.image().getDataFormat() + "_" + e.image().getNumericFormat())).toList(),
                o.wallTime().toNanos() / 1e9);
    }
}
