package org.replayfarm.model.build;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Collectors;
import org.replayfarm.model.capture.CaptureFormatException;
import org.replayfarm.model.capture.CaptureWriter;
import org.replayfarm.model.elf.CodeObjectException;
import org.replayfarm.model.elf.CodeObjectLoader;
import org.replayfarm.model.elf.ElfFile;
import org.replayfarm.model.elf.KernelDescriptor;
import org.replayfarm.model.elf.KernelMetadata;
import org.replayfarm.model.elf.LoadedCodeObject;
import org.replayfarm.proto.Capture;
import org.replayfarm.proto.DenormMode;
import org.replayfarm.proto.Dispatch;
import org.replayfarm.proto.FloatMode;
import org.replayfarm.proto.MemoryRange;
import org.replayfarm.proto.Program;
import org.replayfarm.proto.Provenance;
import org.replayfarm.proto.RegisterLayout;
import org.replayfarm.proto.RoundMode;
import org.replayfarm.proto.SystemSgpr;
import org.replayfarm.proto.SystemSgprKind;
import org.replayfarm.proto.UserSgpr;
import org.replayfarm.proto.UserSgprRole;
import org.replayfarm.proto.WorkItemDimension;
import org.replayfarm.proto.WorkItemVgpr;

/**
 * Builds a capture from an HSA code object (the launch state its kernel descriptor asks for, laid out as
 * the AMDGPU HSA ABI says) or from plain code with a hand-given register layout. Ranges are numbered in
 * the order the arguments are given; the ranges the builder adds itself (kernarg segment, dispatch
 * packet, the loaded code object) come after them.
 */
public final class CaptureBuilder {
    /** gfx10 hardware always gives a wave all 106 SGPRs (the descriptor's SGPR granule is ignored). */
    public static final int GFX10_SGPRS = 106;
    /** Scratch added per lane when the descriptor says the stack size is not statically known. */
    public static final int DYNAMIC_STACK_ALLOWANCE = 16 * 1024;
    public static final int DISPATCH_PACKET_BYTES = 64;

    /** A built capture: its metadata and the writer holding its blobs. */
    public record Built(Capture metadata, CaptureWriter writer) {
        public void write(java.nio.file.Path out) throws java.io.IOException, CaptureFormatException {
            writer.write(metadata, out);
        }

        public byte[] toBytes() throws CaptureFormatException {
            return writer.toBytes(metadata);
        }
    }

    private final CaptureWriter writer = new CaptureWriter();
    private final GuestLayout layout = new GuestLayout();
    private final List<MemoryRange> ranges = new ArrayList<>();
    private final List<Long> argumentAddresses = new ArrayList<>();
    private final List<org.replayfarm.proto.Image> images = new ArrayList<>();

    private CaptureBuilder() {
    }

    /** Builds from a code object compiled by clang for gfx1030 (relocatable or linked). */
    public static Built fromCodeObject(byte[] elfBytes, String kernelName, DispatchShape shape, List<KernelArg> args,
                                       Provenance provenance) throws CodeObjectException, CaptureFormatException {
        return new CaptureBuilder().kernel(ElfFile.parse(elfBytes), kernelName, shape, args, provenance);
    }

    /** Builds from an object holding plain code (no kernel descriptor): the entry is the start of .text. */
    public static Built fromRawCode(byte[] elfBytes, RawLayout raw, DispatchShape shape, List<KernelArg> args,
                                    Provenance provenance) throws CodeObjectException, CaptureFormatException {
        return new CaptureBuilder().raw(ElfFile.parse(elfBytes), raw, shape, args, provenance);
    }

    /** Names of the kernels (symbols {@code NAME.kd}) an object defines, in symbol order. */
    public static List<String> kernelNames(ElfFile elf) throws CodeObjectException {
        return elf.symbols().stream().map(ElfFile.Symbol::name).filter(n -> n.endsWith(".kd"))
                .map(n -> n.substring(0, n.length() - 3)).toList();
    }

    private Built kernel(ElfFile elf, String kernelName, DispatchShape shape, List<KernelArg> args,
                         Provenance provenance) throws CodeObjectException, CaptureFormatException {
        List<String> kernels = kernelNames(elf);
        if (!kernels.contains(kernelName)) {
            throw new CodeObjectException("no kernel '" + kernelName + "' in the code object (kernels: "
                    + (kernels.isEmpty() ? "none" : String.join(", ", kernels)) + ")");
        }
        String kdSymbol = kernelName + ".kd";
        // The descriptor's sizes do not depend on where the object is loaded: read them from a trial load.
        LoadedCodeObject trial = CodeObjectLoader.load(elf, 0);
        KernelDescriptor kd = KernelDescriptor.parse(trial.bytesAt(trial.symbolAddress(kdSymbol).orElseThrow(),
                KernelDescriptor.SIZE), kdSymbol);
        if (kd.workItemIdVgprs() == 3) {
            throw new CodeObjectException(kdSymbol + ": COMPUTE_PGM_RSRC2.ENABLE_VGPR_WORKITEM_ID is 3 (undefined)");
        }
        KernelMetadata meta = KernelMetadata.find(KernelMetadata.read(elf), kernelName).orElse(null);

        // an image or sampler parameter (OpenCL's image2d_t, sampler_t) gets ROCm's object for it
        addArgumentRanges(args, meta != null ? OpenClImages.layoutTypes(meta, args) : new org.replayfarm.proto.ImageType[args.size()]);
        Kernarg kernarg = meta != null ? Kernarg.fromMetadata(meta, kd, args, argumentAddresses, shape)
                : Kernarg.sequential(args, argumentAddresses, kd.kernargSize(), kd.groupSegmentFixedSize());
        long kernargAddress = kernarg.bytes().length > 0 ? addRange("kernarg", kernarg.asAllocated()) : 0;
        int scratchPerLane = kd.privateSegmentFixedSize()
                + (kd.has(KernelDescriptor.KCP_USES_DYNAMIC_STACK) ? DYNAMIC_STACK_ALLOWANCE : 0);
        boolean wantsPacket = kd.has(KernelDescriptor.KCP_DISPATCH_PTR);
        long packetAddress = wantsPacket ? layout.allocate(DISPATCH_PACKET_BYTES) : 0;
        long codeBase = layout.allocate(CodeObjectLoader.imageSize(elf));
        long kdAddress = codeBase + trial.symbolAddress(kdSymbol).orElseThrow();
        if (wantsPacket) {
            addRangeAt("dispatch-packet", packetAddress,
                    dispatchPacket(shape, scratchPerLane, kernarg.ldsBytes(), kdAddress, kernargAddress));
        }
        LoadedCodeObject loaded = CodeObjectLoader.load(elf, codeBase);
        addRangeAt("code-object", codeBase, loaded.image());
        long entry = kdAddress + kd.kernelCodeEntryByteOffset();

        int waveSize = kd.waveSize();
        RegisterLayout.Builder registers = RegisterLayout.newBuilder();
        int s = 0;
        if (kd.has(KernelDescriptor.KCP_PRIVATE_SEGMENT_BUFFER)) {
            int[] v = scratchResource(scratchPerLane, waveSize, shape);
            for (int word : v) {
                registers.addUserSgprs(user(s++, word, UserSgprRole.PRIVATE_SEGMENT_BUFFER));
            }
        }
        s = pointer(registers, s, kd.has(KernelDescriptor.KCP_DISPATCH_PTR), packetAddress, UserSgprRole.DISPATCH_PTR);
        // No AQL queue exists in a replay: the queue pointer is null.
        s = pointer(registers, s, kd.has(KernelDescriptor.KCP_QUEUE_PTR), 0, UserSgprRole.QUEUE_PTR);
        s = pointer(registers, s, kd.has(KernelDescriptor.KCP_KERNARG_SEGMENT_PTR), kernargAddress,
                UserSgprRole.KERNARG_SEGMENT_PTR);
        s = pointer(registers, s, kd.has(KernelDescriptor.KCP_DISPATCH_ID), 0, UserSgprRole.DISPATCH_ID);
        s = pointer(registers, s, kd.has(KernelDescriptor.KCP_FLAT_SCRATCH_INIT), GuestLayout.SCRATCH_BASE,
                UserSgprRole.FLAT_SCRATCH_INIT);
        if (kd.has(KernelDescriptor.KCP_PRIVATE_SEGMENT_SIZE)) {
            registers.addUserSgprs(user(s++, scratchPerLane, UserSgprRole.PRIVATE_SEGMENT_SIZE));
        }
        if (s > kd.userSgprCount()) {
            throw new CodeObjectException(kdSymbol + ": kernel_code_properties enable " + s
                    + " user SGPRs but COMPUTE_PGM_RSRC2.USER_SGPR_COUNT is " + kd.userSgprCount());
        }
        int sys = kd.userSgprCount(); // system SGPRs start at s[USER_SGPR_COUNT], not after the enabled ones
        if (kd.workgroupIdX()) {
            registers.addSystemSgprs(system(sys++, SystemSgprKind.WORKGROUP_ID_X));
        }
        if (kd.workgroupIdY()) {
            registers.addSystemSgprs(system(sys++, SystemSgprKind.WORKGROUP_ID_Y));
        }
        if (kd.workgroupIdZ()) {
            registers.addSystemSgprs(system(sys++, SystemSgprKind.WORKGROUP_ID_Z));
        }
        if (kd.workgroupInfo()) {
            registers.addSystemSgprs(system(sys++, SystemSgprKind.WORKGROUP_INFO));
        }
        if (kd.privateSegmentEnabled()) {
            registers.addSystemSgprs(system(sys, SystemSgprKind.PRIVATE_SEGMENT_WAVE_OFFSET));
        }
        workItemVgprs(registers, kd.workItemIdVgprs());

        FloatMode mode = FloatMode.newBuilder()
                .setIeee(kd.ieeeMode()).setDx10Clamp(kd.dx10Clamp())
                .setDenormF32(DenormMode.forNumber(kd.floatDenormMode32() + 1))
                .setDenormF16F64(DenormMode.forNumber(kd.floatDenormMode16And64() + 1))
                .setRoundF32(RoundMode.forNumber(kd.floatRoundMode32() + 1))
                .setRoundF16F64(RoundMode.forNumber(kd.floatRoundMode16And64() + 1))
                .setFp16OverflowClamp(kd.fp16Overflow()).build();
        ElfFile.Section text = executableSectionHolding(elf, loaded, entry);
        long textAddress = loaded.sectionAddress(text.name()).orElseThrow();
        Program program = Program.newBuilder()
                .setCode(writer.add(loaded.bytesAt(textAddress, (int) text.size())))
                .setCodeAddress(textAddress).setEntryOffset(entry - textAddress)
                .setWaveSize(waveSize).setVgprCount(Math.min(kd.vgprCount(), 256)).setSgprCount(GFX10_SGPRS)
                .setLdsBytes(kernarg.ldsBytes()).setScratchBytesPerLane(scratchPerLane)
                .setFloatMode(mode).setKernelName(kernelName)
                .setComputePgmRsrc1(kd.computePgmRsrc1()).setComputePgmRsrc2(kd.computePgmRsrc2())
                .setComputePgmRsrc3(kd.computePgmRsrc3()).setKernelCodeProperties(kd.kernelCodeProperties())
                .setKernargSize(kernarg.bytes().length).build();
        return finish(program, registers, shape, provenance);
    }

    private Built raw(ElfFile elf, RawLayout raw, DispatchShape shape, List<KernelArg> args, Provenance provenance)
            throws CodeObjectException, CaptureFormatException {
        addArgumentRanges(args, new org.replayfarm.proto.ImageType[args.size()]);
        Kernarg kernarg = Kernarg.sequential(args, argumentAddresses, 0, raw.ldsBytes());
        long kernargAddress = kernarg.bytes().length > 0 ? addRange("kernarg", kernarg.asAllocated()) : 0;
        long codeBase = layout.allocate(CodeObjectLoader.imageSize(elf));
        LoadedCodeObject loaded = CodeObjectLoader.load(elf, codeBase);
        addRangeAt("code-object", codeBase, loaded.image());
        ElfFile.Section text = elf.section(".text").filter(t -> t.size() > 0)
                .orElseThrow(() -> new CodeObjectException("the object has no code (.text is missing or empty)"));
        long textAddress = loaded.sectionAddress(".text").orElseThrow();

        List<UserSgpr> users = new ArrayList<>();
        raw.userSgprs().forEach((index, value) -> users.add(user(index, value, UserSgprRole.USER_SGPR_ROLE_UNSPECIFIED)));
        int highestUser = raw.userSgprs().keySet().stream().mapToInt(Integer::intValue).max().orElse(-1);
        if (kernargAddress != 0 || raw.kernargSgpr().isPresent()) {
            int k = raw.kernargSgpr().orElse(0);
            for (UserSgpr u : users) {
                if (u.getIndex() == k || u.getIndex() == k + 1) {
                    throw new CodeObjectException("s" + u.getIndex() + " is given a value but also holds the kernarg pointer s["
                            + k + ":" + (k + 1) + "]");
                }
            }
            users.add(user(k, (int) kernargAddress, UserSgprRole.KERNARG_SEGMENT_PTR));
            users.add(user(k + 1, (int) (kernargAddress >>> 32), UserSgprRole.KERNARG_SEGMENT_PTR));
            highestUser = Math.max(highestUser, k + 1);
        }
        users.sort(Comparator.comparingInt(UserSgpr::getIndex));
        RegisterLayout.Builder registers = RegisterLayout.newBuilder().addAllUserSgprs(users);
        int wg = raw.workgroupIdSgpr().orElse(highestUser + 1);
        registers.addSystemSgprs(system(wg, SystemSgprKind.WORKGROUP_ID_X))
                .addSystemSgprs(system(wg + 1, SystemSgprKind.WORKGROUP_ID_Y))
                .addSystemSgprs(system(wg + 2, SystemSgprKind.WORKGROUP_ID_Z));
        workItemVgprs(registers, 2);
        FloatMode mode = FloatMode.newBuilder().setIeee(true).setDx10Clamp(true)
                .setDenormF32(DenormMode.DENORM_NONE).setDenormF16F64(DenormMode.DENORM_NONE)
                .setRoundF32(RoundMode.ROUND_NEAREST_EVEN).setRoundF16F64(RoundMode.ROUND_NEAREST_EVEN).build();
        Program program = Program.newBuilder()
                .setCode(writer.add(loaded.bytesAt(textAddress, (int) text.size())))
                .setCodeAddress(textAddress).setEntryOffset(0).setWaveSize(raw.waveSize())
                .setVgprCount(raw.vgprCount()).setSgprCount(raw.sgprCount()).setLdsBytes(raw.ldsBytes())
                .setScratchBytesPerLane(raw.scratchBytesPerLane()).setFloatMode(mode)
                .setKernargSize(kernarg.bytes().length).build();
        return finish(program, registers, shape, provenance);
    }

    private Built finish(Program program, RegisterLayout.Builder registers, DispatchShape shape, Provenance provenance)
            throws CaptureFormatException {
        Dispatch dispatch = Dispatch.newBuilder()
                .setGroupCountX(shape.groupsX()).setGroupCountY(shape.groupsY()).setGroupCountZ(shape.groupsZ())
                .setGroupSizeX(shape.sizeX()).setGroupSizeY(shape.sizeY()).setGroupSizeZ(shape.sizeZ()).build();
        Capture capture = Capture.newBuilder().setProgram(program).setRegisters(registers).setDispatch(dispatch)
                .addAllRanges(ranges).addAllImages(images).setProvenance(provenance).build();
        // validate now, so a bad dispatch or layout is reported by the builder rather than by the writer
        org.replayfarm.model.capture.CaptureValidator.validate(capture, writer);
        return new Built(capture, writer);
    }

    /**
     * The argument ranges. {@code imageTypes[n]}: the type argument n's image is laid out as for an OpenCL image
     * parameter (its range then holds ROCm's image object, {@link OpenClImages}), or null for a T# alone.
     */
    private void addArgumentRanges(List<KernelArg> args, org.replayfarm.proto.ImageType[] imageTypes)
            throws CodeObjectException {
        Long[] addresses = new Long[args.size()];
        int n = 0;
        for (KernelArg arg : args) {
            if (arg instanceof KernelArg.Buffer b) {
                if (b.contents().length == 0) {
                    throw new CodeObjectException("argument buffer:" + b.path() + ": the file is empty; a range needs at least one byte");
                }
                addresses[n] = addRange("arg" + n + " " + b.path().getFileName(), b.contents());
            } else if (arg instanceof KernelArg.Zeros z) {
                if (z.bytes() > Integer.MAX_VALUE - 8) {
                    throw new CodeObjectException("argument zeros:" + z.bytes() + ": ranges are limited to 2 GiB");
                }
                addresses[n] = addRange("arg" + n + " zeros", new byte[(int) z.bytes()]);
            } else if (!arg.passesAddress()) {
                addresses[n] = 0L;
            }
            n++;
        }
        // images, samplers and BVHs come after the buffer ranges, in argument order: their descriptor ranges
        // (and a BVH's nodes before its descriptor), numbered on from them
        n = 0;
        for (KernelArg arg : args) {
            if (arg instanceof KernelArg.ImageArg i) {
                addresses[n] = addImage(n, i, imageTypes[n]);
            } else if (arg instanceof KernelArg.SamplerArg s) {
                addresses[n] = addRange("arg" + n + " sampler S#", words(s.sampler().encode()));
            } else if (arg instanceof KernelArg.Bvh v) {
                long nodes = addRange("arg" + n + " bvh " + v.path().getFileName(), v.nodes());
                byte[] descriptor = org.replayfarm.model.bvh.BvhDescriptor.of(nodes, v.nodes().length,
                        v.returnBarycentrics()).bytes();
                addresses[n] = addRange("arg" + n + " bvh descriptor", descriptor);
            }
            n++;
        }
        argumentAddresses.addAll(java.util.Arrays.asList(addresses));
    }

    /**
     * Lays out an image: guest address space for its texels (not a memory range: only image instructions
     * reach it, through the T#), the captured image numbered in argument order, and a range holding its
     * 256-bit T# (for an OpenCL image parameter, {@code openClType} non-null: ROCm's 48-byte image object, the
     * image typed as the parameter). Returns the range's address.
     */
    private long addImage(int argument, KernelArg.ImageArg arg, org.replayfarm.proto.ImageType openClType)
            throws CodeObjectException {
        org.replayfarm.proto.Image.Builder im = org.replayfarm.proto.Image.newBuilder().setIndex(images.size())
                .setGuestAddress(layout.allocate(arg.texels().length))
                .setType(arg.depth() > 1 ? org.replayfarm.proto.ImageType.IMAGE_3D : arg.layers() > 1
                        ? org.replayfarm.proto.ImageType.IMAGE_2D_ARRAY : org.replayfarm.proto.ImageType.IMAGE_2D)
                .setDataFormat(arg.format().data()).setNumericFormat(arg.format().numeric()).setWidth(arg.width())
                .setHeight(arg.height()).setDepth(arg.depth())
                .setLayers(arg.layers()).setMipLevels(arg.mips()).addAllChannelOrder(java.util.Arrays.asList(arg.order()))
                .setName("arg" + argument + " " + arg.path().getFileName());
        if (openClType != null) {
            im.setType(openClType); // the OpenCL parameter's type: image1d_t is a 1D image
        }
        long want;
        try {
            want = org.replayfarm.model.capture.TexelLayout.totalBytes(im.build());
        } catch (ArithmeticException e) {
            want = -1;
        }
        if (want != arg.texels().length) {
            throw new CodeObjectException("argument " + arg.describe() + ": " + arg.texels().length + " bytes of texels, "
                    + "the image needs " + want);
        }
        org.replayfarm.proto.Image image = im.setTexels(writer.add(arg.texels())).build();
        images.add(image);
        int[] tsharp = org.replayfarm.model.image.ImageDescriptor.of(image).encode();
        if (openClType != null) {
            return addRange("arg" + argument + " image" + image.getIndex() + " object", OpenClImages.imageObject(tsharp,
                    arg.format(), arg.order(), arg.width(), "argument " + argument + " '" + arg.describe() + "'"));
        }
        return addRange("arg" + argument + " image" + image.getIndex() + " T#", words(tsharp));
    }

    /** Words little-endian, as guest memory holds them. */
    static byte[] words(int[] w) {
        ByteBuffer b = ByteBuffer.allocate(4 * w.length).order(ByteOrder.LITTLE_ENDIAN);
        for (int x : w) {
            b.putInt(x);
        }
        return b.array();
    }

    private long addRange(String name, byte[] contents) {
        long address = layout.allocate(contents.length);
        addRangeAt(name, address, contents);
        return address;
    }

    private void addRangeAt(String name, long address, byte[] contents) {
        ranges.add(MemoryRange.newBuilder().setIndex(ranges.size()).setGuestAddress(address).setSize(contents.length)
                .setInitial(writer.add(contents)).setName(name).build());
    }

    private static ElfFile.Section executableSectionHolding(ElfFile elf, LoadedCodeObject loaded, long entry)
            throws CodeObjectException {
        for (ElfFile.Section s : elf.sections()) {
            if ((s.flags() & ElfFile.SHF_EXECINSTR) != 0 && s.size() > 0) {
                long start = loaded.sectionAddress(s.name()).orElse(-1L);
                if (entry >= start && entry < start + s.size()) {
                    return s;
                }
            }
        }
        throw new CodeObjectException(String.format("kernel entry 0x%x lies in no executable section", entry));
    }

    private static int pointer(RegisterLayout.Builder registers, int s, boolean enabled, long value, UserSgprRole role) {
        if (!enabled) {
            return s;
        }
        registers.addUserSgprs(user(s, (int) value, role));
        registers.addUserSgprs(user(s + 1, (int) (value >>> 32), role));
        return s + 2;
    }

    private static void workItemVgprs(RegisterLayout.Builder registers, int enabled) {
        registers.addWorkItemVgprs(WorkItemVgpr.newBuilder().setIndex(0).setDimension(WorkItemDimension.WORK_ITEM_ID_X));
        if (enabled >= 1) {
            registers.addWorkItemVgprs(WorkItemVgpr.newBuilder().setIndex(1).setDimension(WorkItemDimension.WORK_ITEM_ID_Y));
        }
        if (enabled >= 2) {
            registers.addWorkItemVgprs(WorkItemVgpr.newBuilder().setIndex(2).setDimension(WorkItemDimension.WORK_ITEM_ID_Z));
        }
    }

    private static UserSgpr user(int index, int value, UserSgprRole role) {
        return UserSgpr.newBuilder().setIndex(index).setValue(value).setRole(role).build();
    }

    private static SystemSgpr system(int index, SystemSgprKind kind) {
        return SystemSgpr.newBuilder().setIndex(index).setKind(kind).build();
    }

    /**
     * The scratch buffer resource (V#) ROCr hands a gfx10 kernel in s[0:3]: base, SWIZZLE_ENABLE,
     * NUM_RECORDS, DST_SEL XYZW, FORMAT 32_UINT, INDEX_STRIDE as the wave size, ADD_TID_ENABLE,
     * RESOURCE_LEVEL 1, OOB_SELECT 2. NUM_RECORDS covers one workgroup's waves: each group replays with
     * its own scratch.
     */
    static int[] scratchResource(int bytesPerLane, int waveSize, DispatchShape shape) {
        long base = GuestLayout.SCRATCH_BASE;
        long lanes = (long) shape.sizeX() * shape.sizeY() * shape.sizeZ();
        long waves = (lanes + waveSize - 1) / waveSize;
        long records = Math.min(0xFFFF_FFFFL, (long) bytesPerLane * waveSize * waves);
        int word1 = (int) ((base >>> 32) & 0xFFFF) | (1 << 31);
        int dstSel = 4 | 5 << 3 | 6 << 6 | 7 << 9;
        int format32Uint = 20;
        int indexStride = waveSize == 64 ? 3 : 2;
        int word3 = dstSel | format32Uint << 12 | indexStride << 21 | 1 << 23 | 1 << 24 | 2 << 28;
        return new int[] {(int) base, word1, (int) records, word3};
    }

    /** The 64-byte AQL kernel dispatch packet (hsa_kernel_dispatch_packet_t). */
    static byte[] dispatchPacket(DispatchShape shape, int privateBytes, int groupBytes, long kernelObject,
                                 long kernargAddress) {
        ByteBuffer p = ByteBuffer.allocate(DISPATCH_PACKET_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        p.putShort(0, (short) 2); // HSA_PACKET_TYPE_KERNEL_DISPATCH
        p.putShort(2, (short) shape.dimensions());
        p.putShort(4, (short) shape.sizeX()).putShort(6, (short) shape.sizeY()).putShort(8, (short) shape.sizeZ());
        p.putInt(12, (int) (shape.groupCount(0) * shape.sizeX()));
        p.putInt(16, (int) (shape.groupCount(1) * shape.sizeY()));
        p.putInt(20, (int) (shape.groupCount(2) * shape.sizeZ()));
        p.putInt(24, privateBytes).putInt(28, groupBytes);
        p.putLong(32, kernelObject).putLong(40, kernargAddress);
        return p.array();
    }

    static String describe(List<KernelMetadata.Arg> args) {
        return args.stream().map(a -> (a.typeName().isEmpty() ? a.valueKind() : a.typeName())
                + (a.name().isEmpty() ? "" : " " + a.name())).collect(Collectors.joining(", "));
    }
}
