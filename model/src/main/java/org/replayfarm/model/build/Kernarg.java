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
 * {@code ldsBytes} is the workgroup's LDS: the kernel's static LDS and the {@code local:} allocations.
 */
record Kernarg(byte[] bytes, int ldsBytes) {
    /** LDS per workgroup on gfx1030 (RDNA 2: 64 KiB a workgroup may allocate). */
    static final int LDS_LIMIT = org.replayfarm.model.capture.CaptureValidator.LDS_LIMIT;
    /** Alignment of a dynamic LDS allocation whose metadata gives no {@code .pointee_align}. */
    static final int DEFAULT_LOCAL_ALIGN = 4;
    /**
     * The unit of memory the ROCm runtime's kernarg segment lies in. ROCclr (rocvirtual.cpp,
     * {@code VirtualGPU::ManagedBuffer::Acquire}) does not allocate the segment on its own: it carves
     * {@code .kernarg_segment_size} bytes at {@code .kernarg_segment_align} out of a per-queue kernarg pool
     * ({@code HSA_KERNARG_POOL_SIZE}: 512 KiB to 4 MiB depending on the release, used in 4 chunks, each starting
     * at its aligned base) of page-granular host or device memory. The bytes after the segment are mapped and
     * hold whatever the pool holds there, so a scalar load that reads a few bytes past the segment (clang-19
     * reads three trailing {@code u32}s with one {@code s_load_dwordx4}) does not fault on hardware. A capture
     * lays the segment out at the start of a fresh chunk, followed by zeros to the end of its page; a load
     * past the page stays a fault.
     */
    public static final int RUNTIME_PAGE = 4096;

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
        // Dynamic LDS (AMDGPUUsage: a dynamic_shared_pointer argument's kernarg slot is the 32-bit LDS
        // address of its allocation; .pointee_align is the pointee's alignment). As the ROCm runtime does
        // (ROCclr rocvirtual.cpp, local-memory kernel arguments), the allocations follow the kernel's static
        // group segment (group_segment_fixed_size) in argument order, each aligned up to its pointee
        // alignment, and the dispatch's group segment size becomes the end of the last one.
        long lds = kd.groupSegmentFixedSize();
        StringBuilder locals = new StringBuilder();
        for (int i = 0; i < args.size(); i++) {
            KernelMetadata.Arg slot = explicit.get(i);
            KernelArg given = args.get(i);
            String what = "argument " + i + " (" + CaptureBuilder.describe(List.of(slot)) + ")";
            if (given instanceof KernelArg.Local local) {
                if (!slot.valueKind().equals("dynamic_shared_pointer")) {
                    throw new CodeObjectException(what + " is a " + slot.valueKind() + ", not a __local pointer "
                            + "(dynamic_shared_pointer); '" + given.describe() + "' does not fit it");
                }
                int align = slot.pointeeAlign() > 0 ? slot.pointeeAlign() : DEFAULT_LOCAL_ALIGN;
                if (Integer.bitCount(align) != 1) {
                    throw new CodeObjectException(what + ": .pointee_align " + align + " is not a power of two");
                }
                lds = (lds + align - 1) / align * align;
                out.putInt(slot.offset(), (int) lds);
                lds += local.bytes();
                locals.append(locals.length() == 0 ? "" : ", ").append("argument ").append(i).append(' ')
                        .append(given.describe());
                continue;
            }
            if (slot.valueKind().equals("dynamic_shared_pointer")) {
                throw new CodeObjectException(what + " is a __local pointer (dynamic_shared_pointer); give local:BYTES, not '"
                        + given.describe() + "'");
            }
            if (slot.valueKind().equals("image") || slot.valueKind().equals("sampler")) {
                // the address of ROCm's image or sampler object; OpenClImages checked the kinds
                out.putLong(slot.offset(), addresses.get(i));
                continue;
            }
            if (given.passesAddress() && !slot.valueKind().equals("global_buffer")) {
                throw new CodeObjectException(what + " is a " + slot.valueKind() + ", not a global buffer; '"
                        + given.describe() + "' does not fit it");
            }
            if (!given.passesAddress() && slot.valueKind().equals("global_buffer") && !(given instanceof KernelArg.DoubleWord)) {
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
            String mismatch = kindMismatch(slot.typeName(), given);
            if (mismatch != null) {
                throw new CodeObjectException(what + " is a " + slot.typeName() + "; '" + given.describe() + "' " + mismatch);
            }
            put(out, slot.offset(), given, addresses.get(i));
        }
        if (lds > LDS_LIMIT) {
            throw new CodeObjectException("kernel " + meta.name() + ": " + kd.groupSegmentFixedSize()
                    + " bytes of static LDS and the local: arguments (" + locals + ") need " + lds
                    + " bytes of LDS per workgroup; gfx1030 has " + LDS_LIMIT);
        }
        for (KernelMetadata.Arg hidden : meta.hiddenArgs()) {
            if (hidden.valueKind().equals("hidden_printf_buffer")) {
                // a replay provides no printf buffer: the kernel would write through a null pointer (a hostcall buffer
                // is asked for by kernels that never call printf: the device libraries reference it)
                throw new CodeObjectException("kernel " + meta.name() + " calls printf (its code object asks for a "
                        + hidden.valueKind() + "), which a replay does not provide: its output would be written "
                        + "through a null pointer; remove the printf calls");
            }
            long value = hidden.valueKind().equals("hidden_dynamic_lds_size") ? lds - kd.groupSegmentFixedSize()
                    : hiddenValue(hidden.valueKind(), shape);
            putSized(out, hidden.offset(), hidden.size(), value);
        }
        return new Kernarg(out.array(), (int) lds);
    }

    /**
     * Without metadata: each argument at the next multiple of its alignment (its size, for a struct given as
     * bytes the largest power of two up to 16 dividing it), the segment at least {@code minimum}. A
     * {@code local:} argument needs metadata (where the static LDS ends and the pointee's alignment).
     */
    static Kernarg sequential(List<KernelArg> args, List<Long> addresses, int minimum, int ldsBytes)
            throws CodeObjectException {
        int offset = 0;
        int[] at = new int[args.size()];
        for (int i = 0; i < args.size(); i++) {
            if (args.get(i) instanceof KernelArg.Local) {
                throw new CodeObjectException("argument " + i + " '" + args.get(i).describe() + "': a local: argument "
                        + "needs the kernel's AMDGPU metadata (which slots are __local pointers), and this code has none");
            }
            int size = args.get(i).size();
            int align = Math.min(16, Integer.lowestOneBit(size));
            offset = (offset + align - 1) / align * align;
            at[i] = offset;
            offset += size;
        }
        ByteBuffer out = ByteBuffer.allocate(Math.max(offset, minimum)).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < args.size(); i++) {
            put(out, at[i], args.get(i), addresses.get(i));
        }
        return new Kernarg(out.array(), ldsBytes);
    }

    private static final java.util.regex.Pattern SCALAR_OR_VECTOR = java.util.regex.Pattern.compile(
            "(char|uchar|short|ushort|int|uint|long|ulong|half|float|double)(2|3|4|8|16)?");

    /**
     * Why a by-value argument does not fit its parameter's type as the metadata names it ({@code .type_name}:
     * {@code float}, {@code uint4}, {@code unsigned int}...), or null when it fits or the type is not a scalar or
     * vector the check knows (a struct, a typedef of one's own, a pointer). Float against integer, element width
     * and element count must agree; signed and unsigned integers of one width are interchangeable (same bits).
     */
    static String kindMismatch(String typeName, KernelArg given) {
        if (typeName == null || typeName.isEmpty() || typeName.contains("*")) {
            return null;
        }
        String t = typeName.replaceAll("\\b(const|volatile|__private|private)\\b", "").trim().replaceAll("\\s+", " ");
        t = switch (t) {
            case "unsigned char", "uint8_t", "bool", "_Bool" -> "uchar";
            case "signed char", "int8_t" -> "char";
            case "unsigned short", "uint16_t" -> "ushort";
            case "int16_t" -> "short";
            case "unsigned int", "unsigned", "uint32_t" -> "uint";
            case "int32_t" -> "int";
            case "unsigned long", "unsigned long long", "uint64_t", "size_t", "uintptr_t" -> "ulong";
            case "long long", "int64_t", "ptrdiff_t", "intptr_t" -> "long";
            case "_Float16", "__fp16" -> "half";
            default -> t;
        };
        java.util.regex.Matcher m = SCALAR_OR_VECTOR.matcher(t);
        if (!m.matches()) {
            return null;
        }
        String base = m.group(1);
        int count = m.group(2) == null ? 1 : Integer.parseInt(m.group(2));
        boolean isFloat = base.equals("half") || base.equals("float") || base.equals("double");
        int width = switch (base) {
            case "char", "uchar" -> 1;
            case "short", "ushort", "half" -> 2;
            case "int", "uint", "float" -> 4;
            default -> 8;
        };
        String kind = (isFloat ? "f" : base.startsWith("u") ? "u" : "i") + (8 * width);
        String wanted = count == 1 ? kind + ":VALUE" : kind + "x" + count + ":V1,...,V" + count;
        String givenKind;
        int givenCount;
        if (given instanceof KernelArg.Word w) {
            givenKind = w.kind();
            givenCount = 1;
        } else if (given instanceof KernelArg.DoubleWord) {
            givenKind = "u64";
            givenCount = 1;
        } else if (given instanceof KernelArg.Value v && !v.kind().equals("bytes")) {
            givenKind = v.elementKind();
            givenCount = v.count();
        } else {
            return null;
        }
        boolean givenFloat = givenKind.startsWith("f");
        int givenWidth = Integer.parseInt(givenKind.substring(1)) / 8;
        if (givenFloat != isFloat || givenWidth != width || givenCount != count) {
            return "gives " + (givenCount == 1 ? givenKind : givenKind + "x" + givenCount) + "; give " + wanted;
        }
        return null;
    }

    /** The kernarg range as the runtime gives it: the segment, then zeros to the end of its {@link #RUNTIME_PAGE}. */
    byte[] asAllocated() {
        int size = (bytes.length + RUNTIME_PAGE - 1) / RUNTIME_PAGE * RUNTIME_PAGE;
        return java.util.Arrays.copyOf(bytes, size);
    }

    private static void put(ByteBuffer out, int offset, KernelArg arg, long address) {
        if (arg.passesAddress()) {
            out.putLong(offset, address);
        } else if (arg instanceof KernelArg.Word w) {
            out.putInt(offset, w.bits());
        } else if (arg instanceof KernelArg.DoubleWord d) {
            out.putLong(offset, d.bits());
        } else if (arg instanceof KernelArg.Value v) {
            out.put(offset, v.bytes());
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
