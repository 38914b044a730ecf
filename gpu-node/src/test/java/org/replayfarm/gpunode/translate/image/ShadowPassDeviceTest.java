package org.replayfarm.gpunode.translate.image;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.gpunode.translate.Translation;
import org.replayfarm.model.capture.CaptureFile;

/**
 * The shadow-pass example (examples/shadow-pass: clang-19 -O2 wave64 OpenCL, a wave-coherent BVH walk with
 * image_bvh_intersect_ray in its NSA form, image_load of depth and normals, image_store of the mask) through the
 * translation and the CPU runner: every group of the committed 480x270 capture, the final mask image and every
 * range equal to the host model's byte for byte, no group faulting on either side.
 */
@Tag("corpus")
class ShadowPassDeviceTest {
    @TempDir
    Path dir;

    @Test
    void the_shadow_pass_runs_through_cuda_cpu_equal_to_the_host_model() throws Exception {
        CaptureFile capture = CaptureFile.open(Path.of("..", "examples", "shadow-pass", "shadow.capture"));
        Translation t = new org.replayfarm.gpunode.translate.Translator().translate(
                org.replayfarm.gpunode.translate.ProgramInfo.of(capture));
        // the image unit translates all of its instructions (image_load, image_store, the BVH intersection)
        assertEquals(4, t.coverage().get("image").translated(), t.coverageReport());
        assertEquals(0, t.coverage().get("image").refused(), t.coverageReport());
        // and every other unit the rest (its float divisions: v_div_scale / v_div_fmas / v_div_fixup_f32)
        assertTrue(t.ok(), "refused:\n" + t.coverageReport());
        ImageRig.Side host = ImageRig.host(capture);
        ImageRig.Side device = ImageRig.device(capture, dir);
        var d = capture.metadata().getDispatch();
        List<String> diff = ImageRig.differences(host, device, d.getGroupSizeX() * d.getGroupSizeY() * d.getGroupSizeZ(),
                64, Set.of(), 0f, new long[1]);
        assertTrue(diff.isEmpty(), String.join("\n", diff));
        assertTrue(host.faults().stream().allMatch(String::isEmpty), "no group faults: " + host.faults());
        assertEquals(30 * 17, device.faults().size());
        byte[] mask = device.images().get(2);
        int shadowed = 0;
        for (byte b : mask) {
            shadowed += b != 0 ? 1 : 0;
        }
        assertTrue(shadowed > 100 && shadowed < mask.length - 100, "the mask has light and shadow: " + shadowed);
    }

    /** Every program this class ran through cuda-cpu also compiles with nvcc for sm_90 (ImageRig.nvccCheck). */
    @org.junit.jupiter.api.AfterAll
    static void its_programs_compile_with_nvcc_for_sm_90(@TempDir Path nvcc) throws Exception {
        int n = ImageRig.nvccCheck(nvcc);
        org.junit.jupiter.api.Assertions.assertTrue(n > 0, "no program was run, none compiled");
        System.out.println("[image nvcc] ShadowPassDeviceTest: " + n + " translations compiled for sm_90");
    }
}
