package org.replayfarm.model.elf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.model.testing.Kernels;
import org.replayfarm.model.testing.Toolchain;

/** llvm-mc-19 encodes a descriptor from .amdhsa_* directives; the decoder must read back each value. */
@Tag("unit")
class KernelDescriptorTest {
    @TempDir
    Path dir;


    private KernelDescriptor descriptor(boolean wave64) throws Exception {
        Path o = Toolchain.assemble(dir, wave64 ? "kd64" : "kd32", Kernels.DESCRIPTOR_ASM, wave64);
        ElfFile elf = ElfFile.parse(Files.readAllBytes(o));
        LoadedCodeObject loaded = CodeObjectLoader.load(elf, 0x10000);
        return KernelDescriptor.parse(loaded.bytesAt(loaded.symbolAddress("k.kd").orElseThrow(), 64), "k.kd");
    }

    @Test
    void every_directive_value_reads_back_from_the_encoded_wave32_descriptor() throws Exception {
        KernelDescriptor kd = descriptor(false);
        assertEquals(512, kd.groupSegmentFixedSize());
        assertEquals(64, kd.privateSegmentFixedSize());
        assertEquals(32, kd.kernargSize());
        assertTrue(kd.wave32());
        assertEquals(32, kd.waveSize());
        assertEquals(16, kd.vgprCount(), "9 VGPRs round up to two granules of 8");
        assertEquals(10, kd.userSgprCount());
        assertTrue(kd.has(KernelDescriptor.KCP_PRIVATE_SEGMENT_BUFFER));
        assertTrue(kd.has(KernelDescriptor.KCP_DISPATCH_PTR));
        assertTrue(kd.has(KernelDescriptor.KCP_KERNARG_SEGMENT_PTR));
        assertFalse(kd.has(KernelDescriptor.KCP_QUEUE_PTR));
        assertFalse(kd.has(KernelDescriptor.KCP_FLAT_SCRATCH_INIT));
        assertTrue(kd.workgroupIdX(), "workgroup id x is on unless turned off");
        assertTrue(kd.workgroupIdY());
        assertTrue(kd.workgroupIdZ());
        assertFalse(kd.workgroupInfo());
        assertEquals(2, kd.workItemIdVgprs());
        assertTrue(kd.privateSegmentEnabled());
        assertEquals(2, kd.floatRoundMode32());
        assertEquals(3, kd.floatRoundMode16And64());
        assertEquals(1, kd.floatDenormMode32());
        assertEquals(2, kd.floatDenormMode16And64());
        assertFalse(kd.dx10Clamp());
        assertFalse(kd.ieeeMode());
        assertTrue(kd.fp16Overflow());
    }

    @Test
    void wave64_descriptor_clears_the_wave32_bit_and_counts_vgprs_in_granules_of_four() throws Exception {
        KernelDescriptor kd = descriptor(true);
        assertFalse(kd.wave32());
        assertEquals(64, kd.waveSize());
        assertEquals(12, kd.vgprCount(), "9 VGPRs round up to three granules of 4");
    }

    @Test
    void the_relocated_entry_offset_points_from_the_descriptor_to_the_kernel_code() throws Exception {
        Path o = Toolchain.assemble(dir, "kd", Kernels.DESCRIPTOR_ASM, false);
        LoadedCodeObject loaded = CodeObjectLoader.load(ElfFile.parse(Files.readAllBytes(o)), 0x7000_0000L);
        long kdAddress = loaded.symbolAddress("k.kd").orElseThrow();
        KernelDescriptor kd = KernelDescriptor.parse(loaded.bytesAt(kdAddress, 64), "k.kd");
        assertEquals(loaded.symbolAddress("k").orElseThrow(), kdAddress + kd.kernelCodeEntryByteOffset());
    }
}
