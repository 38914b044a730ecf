package org.replayfarm.model.amber;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Malformed scripts name their line; valid AmberScript outside the supported subset is refused by name. */
@Tag("unit")
class AmberErrorsTest {
    private static final String HEAD = "#!amber\n"
            + "SHADER compute comp GLSL\n" // 2
            + "void main() {}\n" // 3
            + "END\n" // 4
            + "BUFFER buf DATA_TYPE uint32 SIZE 4 FILL 0\n"; // 5

    static AmberException error(String script) {
        return assertThrows(AmberException.class, () -> AmberScript.parse(script, "bad.amber"));
    }

    static void malformed(String script, int line, String text) {
        AmberException e = error(script);
        assertFalse(e.unsupported(), e.getMessage());
        assertEquals(line, e.line(), e.getMessage());
        assertTrue(e.getMessage().startsWith("bad.amber:line " + line + ": "), e.getMessage());
        assertTrue(e.getMessage().contains(text), e.getMessage());
    }

    static void unsupported(String script, int line, String feature) {
        AmberException e = error(script);
        assertTrue(e.unsupported(), e.getMessage());
        assertEquals(line, e.line(), e.getMessage());
        assertEquals(feature, e.feature());
        assertEquals("bad.amber:line " + line + ": unsupported: " + feature, e.getMessage());
    }

    @Test
    void unknown_command() {
        malformed(HEAD + "\nFROBNICATE buf\n", 7, "unknown command 'FROBNICATE'");
        malformed(HEAD + "PIPELINE compute p\nATTACH comp\nFROB\nEND\n", 8, "unknown command 'FROB' in pipeline p");
        malformed(HEAD + "REPEAT 2\nBUFFER x DATA_TYPE int32 SIZE 1 FILL 0\nEND\n", 7, "BUFFER is not allowed in REPEAT");
    }

    @Test
    void undefined_names() {
        malformed(HEAD + "PIPELINE compute p\nATTACH comp\nBIND BUFFER nope AS storage DESCRIPTOR_SET 0 BINDING 0\nEND\n",
                8, "unknown buffer 'nope' in BIND");
        malformed(HEAD + "PIPELINE compute p\nATTACH nope\nEND\n", 7, "unknown shader 'nope' in ATTACH");
        malformed(HEAD + "PIPELINE compute p\nATTACH comp\nBIND SAMPLER s DESCRIPTOR_SET 0 BINDING 0\nEND\n", 8,
                "unknown sampler 's' in BIND");
        malformed(HEAD + "EXPECT nope IDX 0 EQ 1\n", 6, "unknown buffer 'nope' in EXPECT");
        malformed(HEAD + "EXPECT buf EQ_BUFFER nope\n", 6, "unknown buffer 'nope' in EXPECT EQ_BUFFER");
        malformed(HEAD + "RUN nope 1 1 1\n", 6, "unknown pipeline 'nope' in RUN");
        malformed(HEAD + "COPY buf TO nope\n", 6, "unknown buffer 'nope' in COPY");
        malformed(HEAD + "DERIVE_PIPELINE d FROM nope\nEND\n", 6, "unknown pipeline 'nope' in DERIVE_PIPELINE");
    }

    @Test
    void malformed_numbers_name_their_line() {
        malformed(HEAD + "BUFFER b DATA_TYPE int32 DATA\n1 2\n3 4x\nEND\n", 8, "malformed integer '4x' for DATA");
        malformed(HEAD + "BUFFER b DATA_TYPE int32 DATA 1.5 END\n", 6, "malformed integer '1.5'");
        malformed(HEAD + "BUFFER b DATA_TYPE float DATA 1.0 inf END\n", 6, "malformed number 'inf'");
        malformed(HEAD + "BUFFER b DATA_TYPE float DATA nan END\n", 6, "malformed number 'nan'");
        malformed(HEAD + "BUFFER b DATA_TYPE uint8 DATA 256 END\n", 6, "value 256 in DATA does not fit 8 bits");
        malformed(HEAD + "BUFFER b DATA_TYPE int8 DATA -129 END\n", 6, "does not fit 8 bits");
        malformed(HEAD + "BUFFER b DATA_TYPE uint32 SIZE 4x FILL 0\n", 6, "malformed integer '4x' for SIZE");
        malformed(HEAD + "EXPECT buf IDX 0 EQ 1 0x1G\n", 6, "malformed integer '0x1G' for EXPECT");
        malformed(HEAD + "EXPECT buf IDX -4 EQ 1\n", 6, "IDX -4 is out of range");
        malformed(HEAD + "BUFFER b DATA_TYPE uint64 DATA 18446744073709551616 END\n", 6, "out of range");
    }

    @Test
    void structural_errors() {
        malformed(HEAD + "BUFFER b DATA_TYPE vec2<int32> DATA 1 2 3 END\n", 6, "not a multiple of the 2 per element");
        malformed(HEAD + "BUFFER b DATA_TYPE vec5<int32> DATA 1 END\n", 6, "invalid data type 'vec5<int32>'");
        malformed(HEAD + "BUFFER buf DATA_TYPE int32 DATA 1 END\n", 6, "buffer 'buf' is already declared");
        malformed(HEAD + "BUFFER b DATA_TYPE vec2<float> SIZE 2 SERIES_FROM 0 INC_BY 1\n", 6, "SERIES_FROM needs a "
                + "one-component type");
        malformed(HEAD + "BUFFER b DATA_TYPE int32 DATA 1\n2\n", 6, "DATA has no END");
        malformed(HEAD + "SHADER compute c2 GLSL\nvoid main() {}\n", 6, "SHADER c2 has no END");
        malformed(HEAD + "PIPELINE compute p\nATTACH comp\n", 6, "PIPELINE p has no END");
        malformed(HEAD + "EXPECT buf IDX 2 EQ 1\n", 6, "EXPECT IDX 2 is not a multiple of the element size 4");
        malformed(HEAD + "EXPECT buf IDX 0 TOLERANCE 1 LT 1\n", 6, "TOLERANCE is only available with EQ");
        malformed(HEAD + "EXPECT buf IDX 0 0 EQ 1\n", 6, "takes one IDX");
        malformed(HEAD + "EXPECT buf IDX 0 EQ\n", 6, "EXPECT has no values");
        malformed(HEAD + "EXPECT buf IDX 0 EQ_RGB 1 2 3\n", 6, "unexpected 'EQ_RGB' in EXPECT");
        malformed(HEAD + "PIPELINE compute p\nATTACH comp\nFRAMEBUFFER_SIZE 8 8\nEND\n", 8,
                "FRAMEBUFFER_SIZE is only valid in a graphics pipeline");
        malformed(HEAD + "PIPELINE compute p\nATTACH comp\nBIND BUFFER buf AS color LOCATION 0\nEND\n", 8,
                "only valid in a graphics pipeline");
        malformed(HEAD + "PIPELINE compute p\nATTACH comp\nBIND BUFFER buf AS uniform_dynamic DESCRIPTOR_SET 0 "
                + "BINDING 0\nEND\n", 8, "needs an OFFSET");
        malformed(HEAD + "PIPELINE graphics g\nEND\nRUN g 1 1 1\n", 8, "RUN x y z needs a compute pipeline");
        malformed(HEAD + "PIPELINE compute p\nATTACH comp\nEND\nRUN p DRAW_RECT POS 0 0 SIZE 1 1\n", 9,
                "needs a graphics pipeline");
        malformed(HEAD + "PIPELINE compute p\nATTACH comp\nEND\nCLEAR p\n", 9, "CLEAR needs a graphics pipeline");
        malformed(HEAD + "IMAGE i FORMAT R8_UNORM DIM_2D WIDTH 4\n", 6, "needs a HEIGHT");
        malformed(HEAD + "BUFFER b DATA_TYPE float SIZE 1 FILL 0\nEXPECT buf RMSE_BUFFER b TOLERANCE 1\n", 7,
                "cannot compare buffers of differing format (uint32 and float)");
        malformed(HEAD + "BUFFER b DATA_TYPE uint32 SIZE 4 FILL 0\nEXPECT buf EQ_HISTOGRAM_EMD_BUFFER b TOLERANCE 1\n",
                7, "only compares four 8-bit unsigned channels");
        malformed(HEAD + "SET ENGINE_DATA fence_timeout_ms 10 20\n", 6, "extra parameters after SET");
    }

    @Test
    void unsupported_features_are_named() {
        unsupported("BUFFER b DATA_TYPE int32 DATA 1 END\n", 1,
                "a script without '#!amber' on its first line (VkScript)");
        unsupported(HEAD + "STRUCT s\nEND\n", 6, "STRUCT");
        unsupported(HEAD + "SHADER compute h HLSL\nEND\n", 6, "SHADER format HLSL");
        unsupported(HEAD + "SHADER compute h GLSL VIRTUAL_FILE a.comp\n", 6, "SHADER source from VIRTUAL_FILE");
        unsupported(HEAD + "IMAGE d FORMAT D32_SFLOAT DIM_2D WIDTH 1 HEIGHT 1\n", 6, "depth format D32_SFLOAT");
        unsupported(HEAD + "BUFFER b FORMAT R9G9B9E5_UFLOAT\n", 6, "format R9G9B9E5_UFLOAT");
        unsupported(HEAD + "BUFFER b FORMAT R8G8B8A8_UNORM SAMPLES 4\n", 6, "SAMPLES 4 (multisampled images) on a BUFFER; declare an IMAGE");
        unsupported(HEAD + "BUFFER b DATA_TYPE R32_SFLOAT DATA 1 END\n", 6,
                "DATA_TYPE R32_SFLOAT (a format or struct name)");
        unsupported(HEAD + "BUFFER b DATA_TYPE int32 SIZE 4 FILE BINARY x.bin\n", 6, "... SIZE n FILE");
        unsupported(HEAD + "BUFFER b DATA_TYPE float DATA 0x3f800000 END\n", 6,
                "hex value 0x3f800000 for a float component in DATA");
        unsupported(HEAD + "PIPELINE compute p\nATTACH comp SPECIALIZE 1 AS uint32 4\nEND\n", 7,
                "ATTACH ... SPECIALIZE (specialization constants)");
        unsupported(HEAD + "PIPELINE compute p\nATTACH comp\nBIND BUFFER_ARRAY buf buf AS storage_dynamic DESCRIPTOR_SET 0 "
                + "BINDING 0 OFFSET 0 0\nEND\n", 8, "BIND BUFFER_ARRAY ... AS storage_dynamic");
        unsupported(HEAD + "PIPELINE compute p\nATTACH comp\nBIND BUFFER_ARRAY buf buf AS storage DESCRIPTOR_SET 0 "
                + "BINDING 0 DESCRIPTOR_OFFSET 0 0\nEND\n", 8, "BIND BUFFER_ARRAY ... DESCRIPTOR_OFFSET");
        unsupported(HEAD + "PIPELINE compute p\nATTACH comp\nBIND ACCELERATION_STRUCTURE tlas DESCRIPTOR_SET 0 "
                + "BINDING 0\nEND\n", 8, "BIND ACCELERATION_STRUCTURE");
        unsupported(HEAD + "PIPELINE compute p\nATTACH comp\nBIND BUFFER buf KERNEL ARG_NAME x\nEND\n", 8,
                "BIND ... KERNEL (OpenCL-C)");
        unsupported(HEAD + "PIPELINE compute p\nATTACH comp\nSUBGROUP comp\nEND\nEND\n", 8,
                "SUBGROUP (subgroup size control)");
        unsupported(HEAD + "PIPELINE ray_tracing rt\nEND\n", 6, "PIPELINE ray_tracing");
        unsupported(HEAD + "SET KERNEL ARG_NAME x AS int32 1\n", 6, "SET KERNEL");
        unsupported(HEAD + "SAMPLER s COMPARE on\n", 6, "SAMPLER COMPARE");
        unsupported(HEAD + "EXPECT buf IDX 0 0 SIZE 1 1 EQ_RGB 0 0 0\n", 6, "EXPECT ... EQ_RGB on DATA_TYPE buffer buf");
    }

    @Test
    void no_source_name_leaves_the_line_first() {
        AmberException e = assertThrows(AmberException.class, () -> AmberScript.parse("#!amber\nNOPE\n", null));
        assertEquals("line 2: unknown command 'NOPE'", e.getMessage());
    }
}
