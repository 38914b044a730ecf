package org.replayfarm.model.elf;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The 64-byte AMDHSA kernel descriptor ({@code <name>.kd}) as LLVM's AMDHSAKernelDescriptor.h lays it out,
 * with accessors for the fields of COMPUTE_PGM_RSRC1/2 and kernel_code_properties that gfx1030 uses.
 */
public record KernelDescriptor(int groupSegmentFixedSize, int privateSegmentFixedSize, int kernargSize,
                               long kernelCodeEntryByteOffset, int computePgmRsrc3, int computePgmRsrc1,
                               int computePgmRsrc2, int kernelCodeProperties, int kernargPreload) {
    public static final int SIZE = 64;

    // kernel_code_properties bits, in the order their user SGPRs are laid out
    public static final int KCP_PRIVATE_SEGMENT_BUFFER = 1;
    public static final int KCP_DISPATCH_PTR = 1 << 1;
    public static final int KCP_QUEUE_PTR = 1 << 2;
    public static final int KCP_KERNARG_SEGMENT_PTR = 1 << 3;
    public static final int KCP_DISPATCH_ID = 1 << 4;
    public static final int KCP_FLAT_SCRATCH_INIT = 1 << 5;
    public static final int KCP_PRIVATE_SEGMENT_SIZE = 1 << 6;
    public static final int KCP_WAVEFRONT_SIZE32 = 1 << 10;
    public static final int KCP_USES_DYNAMIC_STACK = 1 << 11;

    public static KernelDescriptor parse(byte[] bytes, String where) throws CodeObjectException {
        if (bytes.length < SIZE) {
            throw new CodeObjectException(where + ": kernel descriptor is " + bytes.length + " bytes, expected " + SIZE);
        }
        ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        return new KernelDescriptor(b.getInt(0), b.getInt(4), b.getInt(8), b.getLong(16), b.getInt(44),
                b.getInt(48), b.getInt(52), b.getShort(56) & 0xffff, b.getShort(58) & 0xffff);
    }

    private static int bits(int word, int lo, int width) {
        return (word >>> lo) & ((1 << width) - 1);
    }

    public boolean wave32() {
        return (kernelCodeProperties & KCP_WAVEFRONT_SIZE32) != 0;
    }

    public int waveSize() {
        return wave32() ? 32 : 64;
    }

    /** VGPRs per lane: the granulated count (rsrc1[5:0]) times the granule, 8 in wave32 and 4 in wave64. */
    public int vgprCount() {
        return (bits(computePgmRsrc1, 0, 6) + 1) * (wave32() ? 8 : 4);
    }

    public int floatRoundMode32() {
        return bits(computePgmRsrc1, 12, 2);
    }

    public int floatRoundMode16And64() {
        return bits(computePgmRsrc1, 14, 2);
    }

    public int floatDenormMode32() {
        return bits(computePgmRsrc1, 16, 2);
    }

    public int floatDenormMode16And64() {
        return bits(computePgmRsrc1, 18, 2);
    }

    public boolean dx10Clamp() {
        return bits(computePgmRsrc1, 21, 1) != 0;
    }

    public boolean ieeeMode() {
        return bits(computePgmRsrc1, 23, 1) != 0;
    }

    public boolean fp16Overflow() {
        return bits(computePgmRsrc1, 26, 1) != 0;
    }

    public boolean privateSegmentEnabled() {
        return bits(computePgmRsrc2, 0, 1) != 0;
    }

    /** System SGPRs start at s[userSgprCount]. */
    public int userSgprCount() {
        return bits(computePgmRsrc2, 1, 5);
    }

    public boolean workgroupIdX() {
        return bits(computePgmRsrc2, 7, 1) != 0;
    }

    public boolean workgroupIdY() {
        return bits(computePgmRsrc2, 8, 1) != 0;
    }

    public boolean workgroupIdZ() {
        return bits(computePgmRsrc2, 9, 1) != 0;
    }

    public boolean workgroupInfo() {
        return bits(computePgmRsrc2, 10, 1) != 0;
    }

    /** 0: X; 1: X and Y; 2: X, Y and Z. */
    public int workItemIdVgprs() {
        return bits(computePgmRsrc2, 11, 2);
    }

    public boolean has(int kernelCodePropertiesBit) {
        return (kernelCodeProperties & kernelCodePropertiesBit) != 0;
    }
}
