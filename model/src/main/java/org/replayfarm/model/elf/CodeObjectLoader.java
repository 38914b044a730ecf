package org.replayfarm.model.elf;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToLongFunction;

/**
 * Places an AMDGPU code object at a guest base address and applies its relocations, as a loader does:
 * a relocatable object ({@code clang -c}) gets its allocated sections laid out in section order at their
 * alignment, and its REL64/REL32_LO/REL32_HI/ABS64 (and kin) relocations applied; a shared object
 * ({@code ld.lld -shared}) gets its PT_LOAD segments placed at base + p_vaddr and its RELATIVE64
 * relocations applied. Formulas: LLVM AMDGPUUsage, "Relocation Records".
 */
public final class CodeObjectLoader {
    /** The mangled OpenCL work-item and barrier functions include/replay-cl.h defines. */
    private static final java.util.regex.Pattern WORK_ITEM_FUNCTION = java.util.regex.Pattern.compile(
            "_Z\\d+(get_(global|local|group|num|work|enqueued)\\w*|barrier|work_group_barrier|(read_|write_)?mem_fence)\\w*");

    public static final int R_AMDGPU_NONE = 0;
    public static final int R_AMDGPU_ABS32_LO = 1;
    public static final int R_AMDGPU_ABS32_HI = 2;
    public static final int R_AMDGPU_ABS64 = 3;
    public static final int R_AMDGPU_REL32 = 4;
    public static final int R_AMDGPU_REL64 = 5;
    public static final int R_AMDGPU_ABS32 = 6;
    public static final int R_AMDGPU_REL32_LO = 10;
    public static final int R_AMDGPU_REL32_HI = 11;
    public static final int R_AMDGPU_RELATIVE64 = 13;
    public static final int R_AMDGPU_REL16 = 14;

    private CodeObjectLoader() {
    }

    /** Bytes the loaded image takes (the same whatever the base address). */
    public static long imageSize(ElfFile elf) throws CodeObjectException {
        if (elf.type() == ElfFile.ET_DYN) {
            long end = 0;
            for (ElfFile.Segment seg : elf.segments()) {
                if (seg.type() == ElfFile.PT_LOAD) {
                    end = Math.max(end, seg.virtualAddress() + seg.memorySize());
                }
            }
            return end;
        }
        long end = 0;
        for (var entry : defaultPlacement(elf).entrySet()) {
            end = Math.max(end, entry.getValue() + elf.sections().get(entry.getKey()).size());
        }
        return end;
    }

    public static LoadedCodeObject load(ElfFile elf, long base) throws CodeObjectException {
        if (elf.type() == ElfFile.ET_DYN) {
            return loadShared(elf, base);
        }
        if (elf.type() != ElfFile.ET_REL) {
            throw new CodeObjectException("ELF header: e_type " + elf.type() + " is neither ET_REL (1) nor ET_DYN (3)");
        }
        Map<Integer, Long> placement = defaultPlacement(elf);
        return loadRelocatable(elf, base, s -> placement.getOrDefault(s.index(), -1L));
    }

    /**
     * Loads a relocatable object with each allocated section at the image offset {@code placement} gives
     * (used to reproduce a linker's layout).
     */
    public static LoadedCodeObject loadRelocatable(ElfFile elf, long base, ToLongFunction<ElfFile.Section> placement)
            throws CodeObjectException {
        Map<Integer, Long> offsets = new LinkedHashMap<>();
        long size = 0;
        for (ElfFile.Section s : elf.sections()) {
            if (s.isAlloc() && s.size() > 0) {
                long at = placement.applyAsLong(s);
                if (at < 0) {
                    throw new CodeObjectException("section " + s.name() + " has no place in the image");
                }
                offsets.put(s.index(), at);
                size = Math.max(size, at + s.size());
            }
        }
        if (size > Integer.MAX_VALUE) {
            throw new CodeObjectException("code object image of " + size + " bytes is too large");
        }
        byte[] image = new byte[(int) size];
        Map<String, Long> sectionAddresses = new LinkedHashMap<>();
        for (var e : offsets.entrySet()) {
            ElfFile.Section s = elf.sections().get(e.getKey());
            byte[] contents = elf.contents(s);
            System.arraycopy(contents, 0, image, (int) (long) e.getValue(), contents.length);
            sectionAddresses.put(s.name(), base + e.getValue());
        }
        List<ElfFile.Symbol> symbols = elf.symbols();
        long[] symbolAddress = new long[symbols.size()];
        boolean[] defined = new boolean[symbols.size()];
        Map<String, Long> byName = new HashMap<>();
        for (int i = 0; i < symbols.size(); i++) {
            ElfFile.Symbol sym = symbols.get(i);
            if (sym.sectionIndex() == ElfFile.SHN_ABS) {
                symbolAddress[i] = sym.value();
                defined[i] = true;
            } else if (offsets.containsKey(sym.sectionIndex())) {
                symbolAddress[i] = base + offsets.get(sym.sectionIndex()) + sym.value();
                defined[i] = true;
            }
            if (defined[i] && !sym.name().isEmpty() && sym.type() != 3 /* STT_SECTION */) {
                byName.put(sym.name(), symbolAddress[i]);
            }
        }
        ByteBuffer out = ByteBuffer.wrap(image).order(ByteOrder.LITTLE_ENDIAN);
        java.util.Set<String> undefined = new java.util.LinkedHashSet<>();
        for (ElfFile.Section rela : elf.sections()) {
            if (rela.type() != ElfFile.SHT_RELA || rela.info() <= 0 || rela.info() >= elf.sections().size()) {
                continue;
            }
            ElfFile.Section target = elf.sections().get(rela.info());
            if (!offsets.containsKey(target.index())) {
                continue; // relocations of sections that are not loaded (debug info) do not matter
            }
            long targetOffset = offsets.get(target.index());
            for (ElfFile.Relocation r : elf.relocations(rela)) {
                String where = rela.name() + " at " + target.name() + "+0x" + Long.toHexString(r.offset());
                if (r.symbolIndex() < 0 || r.symbolIndex() >= symbols.size()) {
                    throw new CodeObjectException(where + ": symbol index " + r.symbolIndex() + " out of range");
                }
                if (r.type() != R_AMDGPU_NONE && !defined[r.symbolIndex()]) {
                    undefined.add(symbols.get(r.symbolIndex()).name());
                    continue;
                }
                long s = symbolAddress[r.symbolIndex()];
                long p = base + targetOffset + r.offset();
                apply(out, targetOffset, target, r, s, p, where);
            }
        }
        if (!undefined.isEmpty()) {
            throw new CodeObjectException(undefinedMessage(undefined));
        }
        return new LoadedCodeObject(base, image, Map.copyOf(byName), Map.copyOf(sectionAddresses), elf);
    }

    /** Where a code object built for {@code replay capture build --source} gets its OpenCL C built-ins. */
    public static final String DEVICE_LIBS_HINT = "build from source with `replay capture build --source FILE.cl` "
            + "(it links ROCm's device libraries, ocml/ockl/opencl bitcode, as ROCm itself does), or compile with "
            + "clang-19 --rocm-device-lib-path=/usr/lib/x86_64-linux-gnu/amdgcn/bitcode instead of -nogpulib "
            + "(Debian package rocm-device-libs)";

    /**
     * Every undefined symbol, in the order the code refers to them, as the OpenCL C declaration it is
     * ({@link OpenClNames}), with the way out.
     */
    static String undefinedMessage(java.util.Set<String> undefined) {
        StringBuilder b = new StringBuilder(undefined.size() == 1 ? "undefined symbol" : undefined.size() + " undefined symbols");
        b.append(" (the code calls functions no object given defines):");
        boolean workItemOnly = true;
        for (String name : undefined) {
            String spelled = OpenClNames.demangle(name);
            b.append("\n  ").append(spelled);
            if (!spelled.equals(name)) {
                b.append("  [").append(name).append(']');
            }
            workItemOnly &= WORK_ITEM_FUNCTION.matcher(name).matches();
        }
        b.append("\nUnder -nogpulib the OpenCL C built-in library is not linked. Fix: ").append(DEVICE_LIBS_HINT).append('.');
        if (workItemOnly) {
            b.append(" For the work-item functions and barrier alone, -include include/replay-cl.h also works (it "
                    + "defines them over the amdgcn builtins).");
        }
        b.append(" A function of your own must be defined in the source or linked in (ld.lld-19 -shared); a C99 `inline` "
                + "one that is not static is not emitted at -O0: make it static inline or compile with -fgnu89-inline "
                + "(--source does).");
        return b.toString();
    }

    private static void apply(ByteBuffer out, long targetOffset, ElfFile.Section target, ElfFile.Relocation r,
                              long s, long p, String where) throws CodeObjectException {
        long a = r.addend();
        int width;
        long value;
        switch (r.type()) {
            case R_AMDGPU_NONE -> {
                return;
            }
            case R_AMDGPU_ABS32_LO, R_AMDGPU_ABS32 -> { width = 4; value = s + a; }
            case R_AMDGPU_ABS32_HI -> { width = 4; value = (s + a) >>> 32; }
            case R_AMDGPU_ABS64 -> { width = 8; value = s + a; }
            case R_AMDGPU_REL32, R_AMDGPU_REL32_LO -> { width = 4; value = s + a - p; }
            case R_AMDGPU_REL32_HI -> { width = 4; value = (s + a - p) >>> 32; }
            case R_AMDGPU_REL64 -> { width = 8; value = s + a - p; }
            case R_AMDGPU_REL16 -> { width = 2; value = ((s + a - p) - 4) / 4; }
            default -> throw new CodeObjectException(where + ": relocation type " + r.type() + " is not supported");
        }
        if (r.offset() < 0 || r.offset() + width > target.size()) {
            throw new CodeObjectException(where + ": relocation of " + width + " bytes runs past the end of "
                    + target.name() + " (" + target.size() + " bytes)");
        }
        int at = (int) (targetOffset + r.offset());
        switch (width) {
            case 2 -> out.putShort(at, (short) value);
            case 4 -> out.putInt(at, (int) value);
            default -> out.putLong(at, value);
        }
    }

    /** Allocated sections in section order, each at the next multiple of its alignment. */
    private static Map<Integer, Long> defaultPlacement(ElfFile elf) {
        Map<Integer, Long> offsets = new LinkedHashMap<>();
        long cursor = 0;
        for (ElfFile.Section s : elf.sections()) {
            if (s.isAlloc() && s.size() > 0) {
                long align = Math.max(1, s.alignment());
                cursor = (cursor + align - 1) / align * align;
                offsets.put(s.index(), cursor);
                cursor += s.size();
            }
        }
        return offsets;
    }

    private static LoadedCodeObject loadShared(ElfFile elf, long base) throws CodeObjectException {
        long size = imageSize(elf);
        if (size > Integer.MAX_VALUE) {
            throw new CodeObjectException("code object image of " + size + " bytes is too large");
        }
        byte[] image = new byte[(int) size];
        for (ElfFile.Segment seg : elf.segments()) {
            if (seg.type() == ElfFile.PT_LOAD) {
                byte[] data = elf.fileBytes(seg.offset(), seg.fileSize(), "PT_LOAD segment");
                System.arraycopy(data, 0, image, (int) seg.virtualAddress(), data.length);
            }
        }
        ByteBuffer out = ByteBuffer.wrap(image).order(ByteOrder.LITTLE_ENDIAN);
        java.util.Set<String> undefined = new java.util.LinkedHashSet<>();
        for (ElfFile.Section rela : elf.sections()) {
            if (rela.type() != ElfFile.SHT_RELA || !rela.isAlloc()) {
                continue;
            }
            for (ElfFile.Relocation r : elf.relocations(rela)) {
                String where = rela.name() + " at 0x" + Long.toHexString(r.offset());
                if (r.type() != R_AMDGPU_RELATIVE64) {
                    throw new CodeObjectException(where + ": dynamic relocation type " + r.type()
                            + " is not supported (only RELATIVE64)");
                }
                if (r.offset() < 0 || r.offset() + 8 > image.length) {
                    throw new CodeObjectException(where + ": outside the loaded segments");
                }
                out.putLong((int) r.offset(), base + r.addend());
            }
        }
        Map<String, Long> symbols = new HashMap<>();
        for (ElfFile.Symbol sym : elf.symbols()) {
            if (sym.sectionIndex() != ElfFile.SHN_UNDEF && !sym.name().isEmpty() && sym.type() != 3) {
                symbols.put(sym.name(), sym.sectionIndex() == ElfFile.SHN_ABS ? sym.value() : base + sym.value());
            }
        }
        Map<String, Long> sections = new LinkedHashMap<>();
        for (ElfFile.Section s : elf.sections()) {
            if (s.isAlloc()) {
                sections.put(s.name(), base + s.address());
            }
        }
        return new LoadedCodeObject(base, image, Map.copyOf(symbols), Map.copyOf(sections), elf);
    }
}
