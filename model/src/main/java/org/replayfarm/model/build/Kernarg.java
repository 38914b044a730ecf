package org.replayfarm.model.build;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import org.replayfarm.model.elf.CodeObjectException;
import org.replayfarm.model.elf.KernelDescriptor;
import org.replayfarm.model.elf.KernelMetadata;

/**
 * The kernarg segment: explicit arguments at the offsets the kernel's metadata gives (or, without
 * metadata, each at the next multiple of its natural alignment), and the COV5 hidden arguments the
 * kernel lists, filled as the runtime would for this dispatch (AMDGPUUsage, "Code Object V5 Metadata").
 */
record Kernarg(byte[] bytes) {

    static Kernarg fromMetadata(KernelMetadata meta, KernelDescriptor kd, List<KernelArg> args, List<Long> addresses,
                                DispatchShape shape) throws CodeObjectException {
        List<KernelMetadata.Arg> explicit = meta.explicitArgs();
        if (explicit.size() != args.size()) {
            throw new CodeObjectException("kernel " + meta.name() + " takes " + explicit.size() + " argument(s) ("
                    + CaptureBuilder.describe(explicit) + "); " + args.size() + " given");
        }
        int size = Math.max(meta.kernargSegmentSize(), kd.kernargSize());
        for (KernelMetadata.Arg a : meta.args()) {
            if ((long) a.offset() + a.size() > size) {
                throw new CodeObjectException("kernel " + meta.name() + ": argument at offset " + a.offset() + " of "
                        + a.size() + " bytes runs past the " + size + "-byte kernarg segment");
            }
        }
        ByteBuffer out = ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < args.size(); i++) {
            KernelMetadata.Arg slot = explicit.get(i);
            KernelArg given = args.get(i);
            String what = "argument " + i + " (" + CaptureBuilder.describe(List.of(slot)) + ")";
            if (given.passesAddress() && !slot.valueKind().equals("global_buffer")) {
                throw new CodeObjectException(what + " is a " + slot.valueKind() + ", not a global buffer; '"
                        + given.describe() + "' does not fit it");
            }
            if (!given.passesAddress() && slot.valueKind().equals("global_buffer") && given.size() != 8) {
                throw new CodeObjectException(what + " is a global buffer; give buffer:PATH, zeros:BYTES or u64:ADDRESS, not '"
                        + given.describe() + "'");
            }
            if (!given.passesAddress() && !slot.valueKind().equals("global_buffer") && !slot.valueKind().equals("by_value")) {
                throw new CodeObjectException(what + " is a " + slot.valueKind() + " argument, which --arg cannot supply");
            }
            if (given.size() != slot.size()) {
                throw new CodeObjectException(what + " takes " + slot.size() + " bytes; '" + given.describe()
                        + "' gives " + given.size());
            }
            put(out, slot.offset(), given, addresses.get(i));
        }
        for (KernelMetadata.Arg hidden : meta.hiddenArgs()) {
            long value = hiddenValue(hidden.valueKind(), shape);
            putSized(out, hidden.offset(), hidden.size(), value);
        }
        return new Kernarg(out.array());
    }

    /** Without metadata: each argument at the next multiple of its size, the segment at least {@code minimum}. */
    static Kernarg sequential(List<KernelArg> args, List<Long> addresses, int minimum) {
        int offset = 0;
        int[] at = new int[args.size()];
        for (int i = 0; i < args.size(); i++) {
            int size = args.get(i).size();
            offset = (offset + size - 1) / size * size;
            at[i] = offset;
            offset += size;
        }
        ByteBuffer out = ByteBuffer.allocate(Math.max(offset, minimum)).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < args.size(); i++) {
            put(out, at[i], args.get(i), addresses.get(i));
        }
        return new Kernarg(out.array());
    }

    private static void put(ByteBuffer out, int offset, KernelArg arg, long address) {
        if (arg.passesAddress()) {
            out.putLong(offset, address);
        } else if (arg instanceof KernelArg.Word w) {
            out.putInt(offset, w.bits());
        } else if (arg instanceof KernelArg.DoubleWord d) {
            out.putLong(offset, d.bits());
        }
    }

    private static void putSized(ByteBuffer out, int offset, int size, long value) {
        for (int i = 0; i < size; i++) {
            out.put(offset + i, (byte) (i < 8 ? value >>> (8 * i) : 0));
        }
    }

    /**
     * Values of the hidden arguments. The grid is always whole groups, so remainders are 0; there is no
     * global offset, printf buffer, hostcall, heap, queue or completion signal in a replay: those are null.
     */
    static long hiddenValue(String kind, DispatchShape shape) {
        return switch (kind) {
            case "hidden_block_count_x" -> shape.groupCount(0);
            case "hidden_block_count_y" -> shape.groupCount(1);
            case "hidden_block_count_z" -> shape.groupCount(2);
            case "hidden_group_size_x" -> shape.groupSize(0);
            case "hidden_group_size_y" -> shape.groupSize(1);
            case "hidden_group_size_z" -> shape.groupSize(2);
            case "hidden_grid_dims" -> shape.dimensions();
            default -> 0;
        };
    }
}
