package org.replayfarm.gpunode.translate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.replayfarm.model.build.Llvm;
import org.replayfarm.model.isa.Decoder;
import org.replayfarm.model.isa.Instruction;

/**
 * Every operand form of the image unit (DMASK, D16, TFE, A16, NSA, R128 BVH descriptors, every DIM,
 * formatted MUBUF and MTBUF with IDXEN/OFFEN/SOFFSET/OFFSET, D16_HI), assembled by llvm-mc-19, decoded by
 * the project's decoder and emitted by ImageEmitter: the C compiles with g++ (wave32 and wave64) and with
 * nvcc for sm_90; instructions the host model does not execute are refused naming PC, mnemonic and reason.
 */
@Tag("corpus")
class ImageEmitterFormsTest {
    private static final Pattern ENC = Pattern.compile("^\\s*(\\S.*?)\\s*; encoding: \\[(.*)]$");

    private record Form(String text, Instruction insn) {
    }

    private static List<Form> forms() throws Exception {
        String src;
        try (var in = ImageEmitterFormsTest.class.getResourceAsStream("/org/replayfarm/gpunode/translate/image/forms.s")) {
            src = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        Path s = Files.createTempFile("forms", ".s");
        Files.writeString(s, src);
        String out = Llvm.run(List.of(Llvm.mc(), "-arch=amdgcn", "-mcpu=gfx1030", "-show-encoding", s.toString()));
        Files.delete(s);
        List<Form> forms = new ArrayList<>();
        for (String line : out.split("\n")) {
            Matcher m = ENC.matcher(line);
            if (!m.matches()) {
                continue;
            }
            String[] bytes = m.group(2).split(",");
            ByteBuffer b = ByteBuffer.allocate(bytes.length + 8).order(ByteOrder.LITTLE_ENDIAN);
            for (String x : bytes) {
                b.put((byte) Integer.parseInt(x.trim().substring(2), 16));
            }
            b.flip();
            forms.add(new Form(m.group(1), Decoder.gfx1030().decode(b, 0, 0x100L * forms.size())));
        }
        assertEquals(src.strip().split("\n").length, forms.size(), "every form assembles");
        return forms;
    }

    private static String emit(Instruction insn, int wave) throws Refusal {
        InsnContext cx = new InsnContext(insn, wave, 40, 0, "image", pc -> null, new TreeSet<>());
        new ImageEmitter().emit(cx);
        assertTrue(cx.vgprFault() == null, cx.vgprFault());
        return String.join("\n        ", cx.lines());
    }

    private static Path source(List<Form> forms, int wave) throws Exception {
        StringBuilder c = new StringBuilder();
        c.append("#define RT_WAVE ").append(wave).append("\n#define RT_NVGPR 40\n#include \"replay_rt.h\"\n")
                .append("#include \"rt_image.h\"\n");
        int k = 0;
        for (Form f : forms) {
            if (f.text().startsWith("image_gather4")) {
                continue;
            }
            c.append("/* ").append(f.text()).append(" */\nRT_WAVE_FUNCTION(form_").append(k++).append(") {\n")
                    .append("    RT_PROLOGUE();\n    {\n        ").append(emit(f.insn(), wave)).append("\n    }\n")
                    .append("    RT_END();\n    RT_EPILOGUE();\n}\n");
        }
        c.append("RT_WAVE_FUNCTION(rt_program_wave) { RT_PROLOGUE(); RT_END(); RT_EPILOGUE(); }\n");
        Path dir = Files.createDirectories(Path.of("target", "image-forms").toAbsolutePath());
        for (String h : List.of("replay_rt.h", "rt_base.h", "rt_atomic.h", "rt_image.h")) {
            try (var in = ImageEmitterFormsTest.class.getResourceAsStream("/org/replayfarm/gpunode/translate/rt/" + h)) {
                Files.write(dir.resolve(h), in.readAllBytes());
            }
        }
        Path file = dir.resolve("forms" + wave + ".cu");
        Files.writeString(file, c);
        return file;
    }

    private static void compile(List<String> cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), String.join(" ", cmd) + "\n" + out);
    }

    @Test
    void every_form_compiles_with_gpp_for_both_wave_sizes() throws Exception {
        List<Form> forms = forms();
        for (int wave : new int[] {32, 64}) {
            Path file = source(forms, wave);
            compile(List.of("g++", "-std=c++17", "-O1", "-ffp-contract=off", "-fno-strict-aliasing", "-frounding-math",
                    "-Wall", "-Wno-unused-label", "-Wno-unused-variable", "-Werror", "-x", "c++", "-c", file.toString(),
                    "-o", file + ".o"));
        }
    }

    @Test
    void every_form_compiles_with_nvcc_for_sm_90() throws Exception {
        Path nvcc = Path.of("/usr/local/cuda/bin/nvcc");
        Assumptions.assumeTrue(Files.isExecutable(nvcc), "nvcc is not installed at /usr/local/cuda");
        Path file = source(forms(), 64);
        compile(List.of(nvcc.toString(), "-gencode", "arch=compute_90,code=[sm_90,compute_90]", "--fmad=false",
                "-prec-div=true", "-prec-sqrt=true", "-c", file.toString(), "-o", file + ".nv.o"));
    }

    @Test
    void forms_the_host_model_does_not_execute_are_refused_naming_pc_and_mnemonic() throws Exception {
        Form gather = forms().stream().filter(f -> f.text().startsWith("image_gather4")).findFirst().orElseThrow();
        Refusal r = assertThrows(Refusal.class, () -> emit(gather.insn(), 32));
        assertEquals("image_gather4", r.mnemonic());
        assertEquals(gather.insn().pc(), r.pc());
        assertTrue(r.getMessage().contains("does not execute image_gather4"), r.getMessage());
    }
}
