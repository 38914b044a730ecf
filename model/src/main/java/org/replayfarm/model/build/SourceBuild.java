package org.replayfarm.model.build;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The project's one compile line for a kernel source, OpenCL C ({@code .cl}) or HIP ({@code .hip}), for gfx1030:
 * what {@code replay capture build --source} runs and what the documented flow says to run.
 *
 * <ul>
 *   <li>OpenCL C: {@code clang-19 -cl-std=CL2.0 -target amdgcn-amd-amdhsa -mcpu=gfx1030
 *       --rocm-device-lib-path=DIR}: the OpenCL C built-in library is AMD's device libraries (opencl.bc, ocml.bc,
 *       ockl.bc and the oclc control libraries), linked by clang as ROCm's own OpenCL compiler links them.</li>
 *   <li>HIP: {@code clang-19 -x hip --offload-arch=gfx1030 --cuda-device-only -nogpuinc --rocm-device-lib-path=DIR
 *       -include replay-hip.h} (our prelude: {@code threadIdx} and kin, {@code __syncthreads}, atomics, shuffles,
 *       math over ocml); clang writes an offload bundle, which the builder unpacks.</li>
 *   <li>OpenCL C also gets {@code -fgnu89-inline}: C99 {@code inline} helpers (not {@code static}) are otherwise
 *       not emitted at -O0 and stay undefined symbols.</li>
 *   <li>Both: {@code -ffp-contract=off} (no {@code a*b+c} turned into an FMA: the native reference, x86-64 with
 *       glibc's libm, is built with the same setting, so both sides round each operation), {@code -O LEVEL}
 *       (default 2), {@code -mwavefrontsize64} for wave64, then the user's {@code -D}, {@code -I}, {@code -include}
 *       and {@code --cflag}s, the source's own folder searched for includes.</li>
 * </ul>
 */
public record SourceBuild(Language language, boolean wave64, String optLevel, List<String> defines,
                          List<Path> includeDirs, List<Path> includeFiles, List<String> cflags) {
    /** Where Debian's rocm-device-libs puts the bitcode (override: REPLAY_ROCM_DEVICE_LIBS). */
    public static final String DEBIAN_DEVICE_LIBS = "/usr/lib/x86_64-linux-gnu/amdgcn/bitcode";

    public enum Language {
        OPENCL, HIP;

        /** From the file name: {@code .cl} OpenCL C, {@code .hip} HIP; anything else is an error naming the file. */
        public static Language of(Path source) {
            String name = source.getFileName().toString().toLowerCase(Locale.ROOT);
            if (name.endsWith(".cl")) {
                return OPENCL;
            }
            if (name.endsWith(".hip")) {
                return HIP;
            }
            throw new IllegalArgumentException(source + ": a kernel source is FILE.cl (OpenCL C) or FILE.hip (HIP)");
        }
    }

    public SourceBuild {
        if (!optLevel.matches("[0-3sz]|fast")) {
            throw new IllegalArgumentException("-O " + optLevel + ": the level is 0, 1, 2, 3, s or z");
        }
        for (String d : defines) {
            if (!d.matches("[A-Za-z_][A-Za-z0-9_]*(=.*)?")) {
                throw new IllegalArgumentException("-D " + d + ": a macro is NAME or NAME=VALUE");
            }
        }
        defines = List.copyOf(defines);
        includeDirs = List.copyOf(includeDirs);
        includeFiles = List.copyOf(includeFiles);
        cflags = List.copyOf(cflags);
    }

    /** The device libraries' folder: REPLAY_ROCM_DEVICE_LIBS, else Debian's; a missing one is an error saying how to get it. */
    public static Path deviceLibs() {
        String override = System.getenv("REPLAY_ROCM_DEVICE_LIBS");
        Path dir = Path.of(override != null && !override.isBlank() ? override : DEBIAN_DEVICE_LIBS);
        if (!Files.isRegularFile(dir.resolve("ocml.bc")) || !Files.isRegularFile(dir.resolve("opencl.bc"))) {
            throw new IllegalStateException("no ROCm device libraries (ocml.bc, opencl.bc) in " + dir
                    + ": apt-get install rocm-device-libs (or set REPLAY_ROCM_DEVICE_LIBS to their folder)");
        }
        return dir;
    }

    /**
     * The clang-19 command compiling {@code source} into {@code out}; {@code hipPrelude} is where replay-hip.h
     * lies (HIP only).
     */
    public List<String> deviceCommand(Path source, Path out, Path hipPrelude) {
        List<String> cmd = new ArrayList<>(List.of("clang-19"));
        if (language == Language.OPENCL) {
            // -fgnu89-inline: a plain C99 `inline` function (OpenCL C's semantics) is an inline definition only, which
            // clang does not emit at -O0, leaving an undefined symbol; with GNU inline semantics it is emitted
            cmd.addAll(List.of("-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa", "-mcpu=gfx1030", "-fgnu89-inline"));
        } else {
            // -fuse-cuid=none: no compilation-unit id hashed from the file's path, so one source gives one object anywhere
            cmd.addAll(List.of("-x", "hip", "--offload-arch=gfx1030", "--cuda-device-only", "-nogpuinc", "-std=c++17",
                    "-fuse-cuid=none"));
        }
        cmd.add("--rocm-device-lib-path=" + deviceLibs());
        cmd.add("-O" + optLevel);
        cmd.add("-ffp-contract=off");
        if (wave64) {
            cmd.add("-mwavefrontsize64");
        }
        if (language == Language.HIP) {
            // the prelude's folder holds hip/hip_runtime.h and kin (include/hip/), which HIP sources include
            cmd.addAll(List.of("-include", hipPrelude.toString(), "-I", hipPrelude.toAbsolutePath().getParent().toString()));
        }
        cmd.addAll(commonFlags(source));
        cmd.addAll(cflags);
        cmd.addAll(List.of("-c", source.toString(), "-o", out.toString()));
        return cmd;
    }

    /** The flags both sides share: -D, the source's folder and -I folders, -include files (absolute paths). */
    public List<String> commonFlags(Path source) {
        List<String> flags = new ArrayList<>();
        for (String d : defines) {
            flags.add("-D" + d);
        }
        Path folder = source.toAbsolutePath().getParent();
        flags.addAll(List.of("-I", folder.toString()));
        for (Path i : includeDirs) {
            flags.addAll(List.of("-I", i.toAbsolutePath().toString()));
        }
        for (Path f : includeFiles) {
            flags.addAll(List.of("-include", f.toAbsolutePath().toString()));
        }
        return flags;
    }

    /** The options as {@code capture build} records them in the provenance (file names only). */
    public List<String> describe() {
        List<String> out = new ArrayList<>();
        if (wave64) {
            out.add("--wave64");
        }
        out.addAll(List.of("-O", optLevel));
        defines.forEach(d -> out.addAll(List.of("-D", d)));
        includeDirs.forEach(i -> out.addAll(List.of("-I", String.valueOf(i.getFileName()))));
        includeFiles.forEach(i -> out.addAll(List.of("-include", String.valueOf(i.getFileName()))));
        cflags.forEach(c -> out.addAll(List.of("--cflag", c)));
        return out;
    }
}
