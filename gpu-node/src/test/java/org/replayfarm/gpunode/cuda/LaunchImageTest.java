package org.replayfarm.gpunode.cuda;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.gpunode.translate.CpuBuild;
import org.replayfarm.gpunode.translate.LaunchBundle;
import org.replayfarm.gpunode.translate.Translator;
import org.replayfarm.model.capture.CaptureFile;
import org.replayfarm.proto.MemoryRange;

/**
 * The GPU path's kernel parameter: every rt_launch_t offset against what g++ says (offsetof, sizeof) over
 * the runtime header itself, and the bundle read back against the capture it was written from.
 */
@Tag("unit")
class LaunchImageTest {
    @Test
    void rtLaunchTLayoutIsTheCompilersLayout(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("rt_base.h"), Translator.resource("rt_base.h"));
        Files.writeString(dir.resolve("replay_rt.h"), Translator.resource("replay_rt.h"));
        Files.writeString(dir.resolve("layout.cpp"), """
                #define RT_WAVE 64
                #define RT_NVGPR 8
                #include "replay_rt.h"
                #include <stddef.h>
                #include <stdio.h>
                RT_WAVE_FUNCTION(rt_program_wave) { (void)C; }
                #define F(f) printf(#f " %zu\\n", offsetof(rt_launch_t, f));
                int main() {
                    F(group_count) F(group_size) F(waves_per_group) F(mode) F(budget) F(flat_scratch)
                    F(scratch_per_lane) F(lds_bytes) F(nuser) F(nsys) F(nwi) F(user_index) F(user_value)
                    F(sys_index) F(sys_kind) F(wi_index) F(wi_dim) F(nranges) F(ranges) F(scratch) F(images)
                    F(images_bytes) F(faults) F(counts) F(abort)
                    printf("SIZE %zu\\nRANGE_SIZE %zu\\nFAULT_SIZE %zu\\n", sizeof(rt_launch_t), sizeof(rt_range_t),
                           sizeof(rt_fault_t));
                    printf("range.base %zu\\nrange.flags %zu\\nrange.index %zu\\nfault.pc %zu\\nfault.addr %zu\\n",
                           offsetof(rt_range_t, base), offsetof(rt_range_t, flags), offsetof(rt_range_t, index),
                           offsetof(rt_fault_t, pc), offsetof(rt_fault_t, addr));
                }
                """);
        CpuBuild.run(List.of("g++", "-std=c++17", "-w", "-I.", "layout.cpp", "-o", "layout"), dir, 120);
        String out = CpuBuild.run(List.of(dir.resolve("layout").toString()), dir, 60);
        Map<String, Integer> expected = new java.util.LinkedHashMap<>();
        for (String l : out.strip().split("\n")) {
            String[] p = l.split(" ");
            expected.put(p[0], Integer.parseInt(p[1]));
        }
        Map<String, Integer> ours = Map.ofEntries(Map.entry("group_count", LaunchImage.GROUP_COUNT),
                Map.entry("group_size", LaunchImage.GROUP_SIZE), Map.entry("waves_per_group", LaunchImage.WAVES_PER_GROUP),
                Map.entry("mode", LaunchImage.MODE), Map.entry("budget", LaunchImage.BUDGET),
                Map.entry("flat_scratch", LaunchImage.FLAT_SCRATCH),
                Map.entry("scratch_per_lane", LaunchImage.SCRATCH_PER_LANE), Map.entry("lds_bytes", LaunchImage.LDS_BYTES),
                Map.entry("nuser", LaunchImage.NUSER), Map.entry("nsys", LaunchImage.NSYS), Map.entry("nwi", LaunchImage.NWI),
                Map.entry("user_index", LaunchImage.USER_INDEX), Map.entry("user_value", LaunchImage.USER_VALUE),
                Map.entry("sys_index", LaunchImage.SYS_INDEX), Map.entry("sys_kind", LaunchImage.SYS_KIND),
                Map.entry("wi_index", LaunchImage.WI_INDEX), Map.entry("wi_dim", LaunchImage.WI_DIM),
                Map.entry("nranges", LaunchImage.NRANGES), Map.entry("ranges", LaunchImage.RANGES),
                Map.entry("scratch", LaunchImage.SCRATCH), Map.entry("images", LaunchImage.IMAGES),
                Map.entry("images_bytes", LaunchImage.IMAGES_BYTES), Map.entry("faults", LaunchImage.FAULTS),
                Map.entry("counts", LaunchImage.COUNTS), Map.entry("abort", LaunchImage.ABORT),
                Map.entry("SIZE", LaunchImage.SIZE), Map.entry("RANGE_SIZE", LaunchImage.RANGE_SIZE),
                Map.entry("FAULT_SIZE", LaunchImage.FAULT_SIZE), Map.entry("range.base", 16),
                Map.entry("range.flags", 24), Map.entry("range.index", 28), Map.entry("fault.pc", 16),
                Map.entry("fault.addr", 24));
        assertEquals(ours.size(), expected.size());
        for (Map.Entry<String, Integer> e : expected.entrySet()) {
            assertEquals(e.getValue(), ours.get(e.getKey()), e.getKey());
        }
    }

    @Test
    void theBundleReadsBackAsTheCaptureWroteIt() throws Exception {
        CaptureFile c = CaptureFile.open(Path.of("../examples/saxpy/saxpy.capture"));
        LaunchImage image = LaunchImage.of(LaunchBundle.write(c, 1234, new byte[] {1, 2, 3}));
        var d = c.metadata().getDispatch();
        assertEquals(d.getGroupCountX(), image.groupCount(0));
        assertEquals((long) d.getGroupCountX() * d.getGroupCountY() * d.getGroupCountZ(), image.groups());
        assertEquals(c.metadata().getRangesCount(), image.ranges().size());
        for (int i = 0; i < image.ranges().size(); i++) {
            MemoryRange m = c.metadata().getRanges(i);
            LaunchImage.Range r = image.ranges().get(i);
            assertEquals(m.getIndex(), r.index());
            assertEquals(m.getGuestAddress(), r.guestAddress());
            assertEquals(m.getSize(), r.size());
            ByteBuffer blob = c.blob(m.getInitial());
            byte[] want = new byte[blob.remaining()];
            blob.duplicate().get(want);
            byte[] got = java.util.Arrays.copyOfRange(image.bundle(), r.offset(), r.offset() + (int) r.size());
            assertArrayEquals(want, got, "range " + m.getIndex());
        }
        assertEquals(3, image.imagesBytes());
        ByteBuffer p = ByteBuffer.wrap(image.params(new LaunchImage.Pointers(0x1000, 0x2000, 0x3000, 0x4000, 0x5000,
                0x6000))).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(1234, p.getLong(LaunchImage.BUDGET));
        assertEquals(0x1000, p.getLong(LaunchImage.RANGES));
        assertEquals(0x6000, p.getLong(LaunchImage.ABORT));
        assertEquals(c.metadata().getRangesCount(), p.getInt(LaunchImage.NRANGES));
        assertEquals(c.metadata().getRegisters().getUserSgprsCount(), p.getInt(LaunchImage.NUSER));
        assertThrows(IllegalArgumentException.class, () -> LaunchImage.of(new byte[12]));
    }
}
