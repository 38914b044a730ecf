package org.replayfarm.model.amber;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Shaders, compute and graphics pipelines, DERIVE_PIPELINE, bindings, REPEAT and the other commands. */
@Tag("unit")
class PipelineCommandTest {
    private static final String SCRIPT = String.join("\n",
            "#!amber", // 1
            "# a compute test", // 2
            "DEVICE_FEATURE shaderInt64", // 3
            "DEVICE_EXTENSION VK_KHR_8bit_storage", // 4
            "INSTANCE_EXTENSION VK_KHR_get_physical_device_properties2", // 5
            "SET ENGINE_DATA fence_timeout_ms 5000", // 6
            "SHADER compute comp GLSL TARGET_ENV spv1.3", // 7
            "#version 450", // 8
            "  void main() {}   # not an Amber comment", // 9
            "END", // 10
            "SHADER vertex vert PASSTHROUGH", // 11
            "SHADER fragment frag SPIRV-ASM", // 12
            "OpCapability Shader", // 13
            "END # shader", // 14
            "BUFFER in DATA_TYPE uint32 DATA 1 2 3 4 END", // 15
            "BUFFER out DATA_TYPE uint32 SIZE 4 FILL 0", // 16
            "BUFFER pc DATA_TYPE uint32 DATA 7 END", // 17
            "BUFFER dyn DATA_TYPE vec4<float> SIZE 64 FILL 0", // 18
            "IMAGE tex FORMAT R8G8B8A8_UNORM DIM_2D WIDTH 4 HEIGHT 4", // 19
            "SAMPLER smp", // 20
            "PIPELINE compute pipe", // 21
            "  ATTACH comp ENTRY_POINT go", // 22
            "  SHADER_OPTIMIZATION comp", // 23
            "    --eliminate-dead-code-aggressive", // 24
            "  END", // 25
            "  BIND BUFFER in AS storage DESCRIPTOR_SET 0 BINDING 0", // 26
            "  BIND BUFFER out AS uniform DESCRIPTOR_SET 0 BINDING 1 DESCRIPTOR_OFFSET 16 DESCRIPTOR_RANGE 32", // 27
            "  BIND BUFFER dyn AS storage_dynamic DESCRIPTOR_SET 1 BINDING 0 OFFSET 256", // 28
            "  BIND BUFFER tex AS combined_image_sampler SAMPLER smp DESCRIPTOR_SET 1 BINDING 1", // 29
            "  BIND SAMPLER smp DESCRIPTOR_SET 1 BINDING 2", // 30
            "  BIND BUFFER tex AS storage_image DESCRIPTOR_SET 2 BINDING 0 BASE_MIP_LEVEL 0", // 31
            "  BIND BUFFER pc AS push_constant", // 32
            "END", // 33
            "DERIVE_PIPELINE pipe2 FROM pipe", // 34
            "  BIND BUFFER out AS storage DESCRIPTOR_SET 0 BINDING 0", // 35
            "END", // 36
            "PIPELINE graphics gfx", // 37
            "  ATTACH vert", // 38
            "  ATTACH frag", // 39
            "  FRAMEBUFFER_SIZE 32 32", // 40
            "  DEPTH", // 41
            "    TEST on", // 42
            "  END", // 43
            "  BIND BUFFER tex AS color LOCATION 0", // 44
            "END", // 45
            "RUN pipe 4 1 1", // 46
            "REPEAT 3", // 47
            "  RUN pipe2 2 2 1", // 48
            "  COPY out TO in", // 49
            "END", // 50
            "CLEAR_COLOR gfx 255 0 0 255", // 51
            "CLEAR gfx", // 52
            "RUN gfx DRAW_RECT POS 0 0 SIZE 32 32", // 53
            "EXPECT out IDX 0 EQ 0 0 0 0", // 54
            "");

    @Test
    void header_requirements_and_shaders() throws AmberException {
        AmberScript s = AmberScript.parse(SCRIPT, "p.amber");
        assertEquals(List.of("shaderInt64"), s.deviceFeatures());
        assertEquals(List.of("VK_KHR_8bit_storage"), s.deviceExtensions());
        assertEquals(List.of("VK_KHR_get_physical_device_properties2"), s.instanceExtensions());
        Shader comp = s.shaders().get("comp");
        assertEquals(new Shader("comp", "compute", "GLSL", "spv1.3",
                "#version 450\n  void main() {}   # not an Amber comment\n", 8), comp);
        assertTrue(comp.compute());
        Shader vert = s.shaders().get("vert");
        assertEquals("vertex", vert.stage());
        assertEquals("PASSTHROUGH", vert.language());
        assertNull(vert.source());
        assertEquals("OpCapability Shader\n", s.shaders().get("frag").source());
        assertEquals(13, s.shaders().get("frag").line());
        assertEquals("fragment", s.shaders().get("frag").stage());
    }

    @Test
    void compute_pipeline_bindings() throws AmberException {
        Pipeline p = AmberScript.parse(SCRIPT, "p.amber").pipelines().get("pipe");
        assertTrue(p.compute());
        assertEquals("comp", p.shaderName());
        assertEquals("go", p.entryPoint());
        assertEquals(21, p.line());
        assertEquals(Optional.of("pc"), p.pushConstantBuffer());
        assertEquals(List.of("--eliminate-dead-code-aggressive"), p.shaderOptimizations().get("comp"));
        assertEquals(List.of(
                new Binding("in", Binding.Kind.STORAGE, 0, 0, 0, 0, -1, 0, null, 26),
                new Binding("out", Binding.Kind.UNIFORM, 0, 1, 0, 16, 32, 0, null, 27),
                new Binding("dyn", Binding.Kind.STORAGE_DYNAMIC, 1, 0, 256, 0, -1, 0, null, 28),
                new Binding("tex", Binding.Kind.COMBINED_IMAGE_SAMPLER, 1, 1, 0, 0, -1, 0, "smp", 29),
                new Binding("smp", Binding.Kind.SAMPLER, 1, 2, 0, 0, -1, 0, null, 30),
                new Binding("tex", Binding.Kind.STORAGE_IMAGE, 2, 0, 0, 0, -1, 0, null, 31)), p.bindings());
        assertEquals(7, Binding.Kind.STORAGE.vkDescriptorType()); // VK_DESCRIPTOR_TYPE_STORAGE_BUFFER
        assertEquals(1, Binding.Kind.COMBINED_IMAGE_SAMPLER.vkDescriptorType());
        assertNull(p.derivedFrom());
    }

    @Test
    void buffer_and_sampler_arrays_bind_one_element_per_name_and_a_later_bind_replaces_the_array()
            throws AmberException {
        String script = "#!amber\nSHADER compute comp GLSL\nvoid main() {}\nEND\n"
                + "BUFFER a DATA_TYPE uint32 SIZE 4 FILL 0\nBUFFER b DATA_TYPE uint32 SIZE 4 FILL 1\n"
                + "SAMPLER s0\nSAMPLER s1 MAG_FILTER linear\n"
                + "PIPELINE compute p\nATTACH comp\n"
                + "BIND BUFFER_ARRAY a b a AS storage DESCRIPTOR_SET 0 BINDING 1\n" // 11
                + "BIND SAMPLER_ARRAY s1 s0 DESCRIPTOR_SET 1 BINDING 0\n" // 12
                + "BIND BUFFER_ARRAY b AS uniform DESCRIPTOR_SET 2 BINDING 3\n" // 13
                + "BIND BUFFER a AS uniform DESCRIPTOR_SET 2 BINDING 3\n" // 14
                + "END\n";
        Pipeline p = AmberScript.parse(script, "arrays.amber").pipelines().get("p");
        assertEquals(List.of(
                new Binding("a", Binding.Kind.STORAGE, 0, 1, 0, 0, -1, 0, null, 11, 0),
                new Binding("b", Binding.Kind.STORAGE, 0, 1, 0, 0, -1, 0, null, 11, 1),
                new Binding("a", Binding.Kind.STORAGE, 0, 1, 0, 0, -1, 0, null, 11, 2),
                new Binding("s1", Binding.Kind.SAMPLER, 1, 0, 0, 0, -1, 0, null, 12, 0),
                new Binding("s0", Binding.Kind.SAMPLER, 1, 0, 0, 0, -1, 0, null, 12, 1),
                new Binding("a", Binding.Kind.UNIFORM, 2, 3, 0, 0, -1, 0, null, 14)), p.bindings());
    }

    @Test
    void derived_pipeline_copies_then_replaces_a_binding() throws AmberException {
        AmberScript s = AmberScript.parse(SCRIPT, "p.amber");
        Pipeline d = s.pipelines().get("pipe2");
        assertEquals("pipe", d.derivedFrom());
        assertEquals("comp", d.shaderName());
        assertEquals("go", d.entryPoint());
        assertEquals(Optional.of("pc"), d.pushConstantBuffer());
        assertEquals(6, d.bindings().size());
        assertEquals(1, d.bindings().stream().filter(b -> b.set() == 0 && b.binding() == 0).count());
        Binding replaced = d.bindings().stream().filter(b -> b.set() == 0 && b.binding() == 0).findFirst().get();
        assertEquals(new Binding("out", Binding.Kind.STORAGE, 0, 0, 0, 0, -1, 0, null, 35), replaced);
        // the parent is unchanged
        assertEquals("in", s.pipelines().get("pipe").bindings().get(0).what());
    }

    @Test
    void graphics_pipeline_is_kept_loosely() throws AmberException {
        Pipeline g = AmberScript.parse(SCRIPT, "p.amber").pipelines().get("gfx");
        assertFalse(g.compute());
        assertEquals(List.of("vert", "frag"), g.attached().stream().map(Pipeline.Attach::shader).toList());
        assertEquals(List.of("ATTACH vert", "ATTACH frag", "FRAMEBUFFER_SIZE 32 32", "DEPTH", "TEST on", "END",
                "BIND BUFFER tex AS color LOCATION 0"), g.bodyLines());
    }

    @Test
    void commands_in_order_with_repeat_unrolled() throws AmberException {
        List<Command> c = AmberScript.parse(SCRIPT, "p.amber").commands();
        assertEquals(11, c.size());
        assertEquals(new Command.Run("pipe", 4, 1, 1, 46), c.get(0));
        for (int i = 0; i < 3; i++) {
            assertEquals(new Command.Run("pipe2", 2, 2, 1, 48), c.get(1 + 2 * i));
            assertEquals(new Command.Copy("out", "in", 49), c.get(2 + 2 * i));
        }
        assertEquals(new Command.Clear("gfx", 51, "CLEAR_COLOR gfx 255 0 0 255"), c.get(7));
        assertEquals(new Command.Clear("gfx", 52, "CLEAR gfx"), c.get(8));
        assertEquals(new Command.GraphicsRun("gfx", 53, "RUN gfx DRAW_RECT POS 0 0 SIZE 32 32"), c.get(9));
        Expect.Values e = assertInstanceOf(Expect.Values.class, c.get(10));
        assertEquals("out", e.buffer());
        assertEquals(54, e.line());
        assertEquals(4, e.values().size());
    }

    @Test
    void initial_contents_are_copies() throws AmberException {
        AmberScript s = AmberScript.parse(SCRIPT, "p.amber");
        byte[] in = s.initialContents().get("in");
        in[0] = 99;
        assertEquals(1, s.buffers().get("in").initialBytes()[0]);
        assertEquals(64, s.initialContents().get("tex").length);
    }
}
