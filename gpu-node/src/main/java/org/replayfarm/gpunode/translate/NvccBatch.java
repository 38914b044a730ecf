package org.replayfarm.gpunode.translate;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Several translations as one CUDA translation unit, for a compile check that pays nvcc's fixed cost (the driver,
 * the preprocessor, the CUDA headers, cicc's start, ptxas's start) once per batch instead of once per translation.
 *
 * <p>Each translation goes into a namespace of its own, {@code rt_b<n>}, with its headers expanded in place as its
 * kernel.cu includes them ({@code #pragma once} honoured per translation, system headers included once at the top,
 * before every namespace), so each one is compiled against its own {@code RT_WAVE}, {@code RT_NVGPR} and
 * {@code RT_NRESUME}; after it, every macro it or its headers define is undefined again. Its CUDA entry
 * ({@code extern "C"}, so not separated by the namespace) is renamed {@code replay_kernel_b<n>}. Nothing else
 * changes: the device code of each translation is the code {@code nvcc kernel.cu} compiles.
 */
public final class NvccBatch {
    private static final Pattern LOCAL_INCLUDE = Pattern.compile("^\\s*#\\s*include\\s+\"([^\"]+)\"\\s*$");
    private static final Pattern SYSTEM_INCLUDE = Pattern.compile("^\\s*#\\s*include\\s+<([^>]+)>\\s*$");
    private static final Pattern ONCE = Pattern.compile("^\\s*#\\s*pragma\\s+once\\s*$");
    private static final Pattern DEFINE = Pattern.compile("^\\s*#\\s*define\\s+(\\w+)", Pattern.MULTILINE);

    private NvccBatch() {
    }

    /** The entry point translation {@code n} of a batch has in the batch's PTX. */
    public static String entry(int n) {
        return "replay_kernel_b" + n;
    }

    /** The batch's source: every translation in its namespace, in list order (translation n is {@code rt_b<n>}). */
    public static String source(List<Translation> translations) {
        Set<String> system = new TreeSet<>();
        StringBuilder body = new StringBuilder();
        for (int n = 0; n < translations.size(); n++) {
            Translation t = translations.get(n);
            String text = expand(t.source(), t.headers(), new HashSet<>(), system, "kernel.cu");
            Set<String> macros = new TreeSet<>();
            Matcher m = DEFINE.matcher(text);
            while (m.find()) {
                macros.add(m.group(1));
            }
            body.append("\n/* ---- translation ").append(n).append(" ---- */\nnamespace rt_b").append(n).append(" {\n")
                    .append("#define replay_kernel ").append(entry(n)).append('\n')
                    .append(text).append("\n} /* namespace rt_b").append(n).append(" */\n#undef replay_kernel\n");
            for (String macro : macros) {
                body.append("#undef ").append(macro).append('\n');
            }
        }
        StringBuilder src = new StringBuilder("// batch of ").append(translations.size())
                .append(" translations for the nvcc compile check (NvccBatch)\n");
        for (String s : system) {
            src.append("#include <").append(s).append(">\n");
        }
        return src.append(body).toString();
    }

    private static String expand(String text, Map<String, String> headers, Set<String> seen, Set<String> system,
                                 String from) {
        StringBuilder out = new StringBuilder();
        for (String line : text.split("\n", -1)) {
            if (ONCE.matcher(line).matches()) {
                continue;
            }
            Matcher local = LOCAL_INCLUDE.matcher(line);
            if (local.matches()) {
                String name = local.group(1);
                String h = headers.get(name);
                if (h == null) {
                    throw new IllegalArgumentException(from + " includes " + name + ", which the translation lacks");
                }
                if (seen.add(name)) {
                    out.append(expand(h, headers, seen, system, name)).append('\n');
                }
                continue;
            }
            Matcher sys = SYSTEM_INCLUDE.matcher(line);
            if (sys.matches()) {
                system.add(sys.group(1));
                continue;
            }
            out.append(line).append('\n');
        }
        return out.toString();
    }

    /**
     * Compiles a batch for sm_90 as the corpus check does: nvcc to compute_90 PTX ({@link CpuBuild#NVCC_CHECK_FLAGS}),
     * then ptxas to an sm_90 object ({@link CpuBuild#PTXAS_CHECK_FLAGS}), in {@code dir}. Returns the PTX, after
     * checking that it targets sm_90, holds every translation's entry, and that ptxas wrote an object.
     *
     * @throws IOException when nvcc or ptxas fails (the message carries its output) or a check fails
     */
    public static String compile(Path nvcc, Path ptxas, List<Translation> translations, Path dir, long timeoutSeconds)
            throws IOException {
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("batch.cu"), source(translations));
        List<String> cmd = new ArrayList<>(List.of(nvcc.toString()));
        cmd.addAll(CpuBuild.NVCC_CHECK_FLAGS);
        cmd.addAll(List.of("batch.cu", "-o", "batch.ptx"));
        CpuBuild.run(cmd, dir, timeoutSeconds);
        List<String> as = new ArrayList<>(List.of(ptxas.toString()));
        as.addAll(CpuBuild.PTXAS_CHECK_FLAGS);
        as.addAll(List.of("batch.ptx", "-o", "batch.o"));
        CpuBuild.run(as, dir, timeoutSeconds);
        String ptx = Files.readString(dir.resolve("batch.ptx"));
        if (!ptx.contains(".target sm_90")) {
            throw new IOException("nvcc's PTX is not for sm_90");
        }
        for (int n = 0; n < translations.size(); n++) {
            if (!Pattern.compile("\\.entry " + entry(n) + "\\(").matcher(ptx).find()) {
                throw new IOException("nvcc's PTX lacks translation " + n + "'s entry " + entry(n));
            }
        }
        if (!Files.exists(dir.resolve("batch.o")) || Files.size(dir.resolve("batch.o")) == 0) {
            throw new IOException("ptxas wrote no object");
        }
        return ptx;
    }
}
