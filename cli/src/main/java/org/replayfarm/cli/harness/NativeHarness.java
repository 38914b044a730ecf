package org.replayfarm.cli.harness;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.replayfarm.model.build.KernelArg;

/**
 * A C program that runs an OpenCL C kernel natively (clang-19 for x86-64): the independent execution the
 * host model is compared with. Buffers are read from files and written back after the run. With
 * {@code threaded}, each group's work-items run as threads together (so barriers work); otherwise they
 * run one after another on one thread (for timing; kernels without barriers only).
 */
public final class NativeHarness {
    private NativeHarness() {
    }

    /**
     * The clang-19 flags the native build needs to round as the device does: no contraction, no fast math,
     * and each half operation rounded to half (OpenCL C rounds every operation; C's default evaluates a
     * whole _Float16 expression in float and rounds once, which differs by an ulp on products and sums).
     */
    static final List<String> COMPILER_FLAGS = List.of("-O2", "-ffp-contract=off", "-fno-fast-math",
            "-Xclang", "-ffloat16-excess-precision=none", "-std=gnu11", "-w");

    /**
     * The clang-19 command that builds {@code work/harness.c} (with {@code work/prelude.h}, both written by the
     * caller) into {@code work/native}: {@link #COMPILER_FLAGS}, the device build's wave size for the
     * prelude's cross-lane operations and the dispatch's dimension count for {@code get_work_dim()}.
     */
    public static List<String> compileCommand(Path work, int waveSize, int dimensions) {
        return compileCommand(work, waveSize, dimensions, false, List.of());
    }

    /**
     * The same for a HIP kernel ({@code cpp}: the harness and the kernel compiled as C++17) and with the source
     * options both sides share ({@code -D}, {@code -I} with the source's own folder, {@code -include}).
     */
    public static List<String> compileCommand(Path work, int waveSize, int dimensions, boolean cpp, List<String> sourceFlags) {
        List<String> cc = new java.util.ArrayList<>(List.of("clang-19"));
        cc.addAll(COMPILER_FLAGS);
        if (cpp) {
            cc.set(cc.indexOf("-std=gnu11"), "-std=gnu++17");
        } else {
            cc.add("-fgnu89-inline"); // C99 inline helpers emitted, as the device build does (SourceBuild)
        }
        cc.add("-D__REPLAY_WAVE_SIZE=" + waveSize);
        cc.add("-D__REPLAY_DIMS=" + dimensions);
        cc.addAll(List.of("-include", work.resolve("prelude.h").toString()));
        // the harness's folder first (the kernel's copy lies there), then the source's own folder and the -I folders
        cc.addAll(List.of("-I", work.toString()));
        cc.addAll(sourceFlags);
        if (cpp) {
            cc.addAll(List.of("-x", "c++"));
        }
        cc.addAll(List.of(work.resolve("harness.c").toString(), "-o", work.resolve("native").toString(), "-lpthread", "-lm"));
        return cc;
    }

    /** The prelude mapping OpenCL C spellings and amdgcn builtins onto C11 and pthreads. */
    public static String prelude() {
        // then the OpenCL C built-in library over glibc's libm (native-opencl.h and the names, conversions and
        // reinterpretations generated here), then include/replay-cl.h, so a kernel that calls get_global_id,
        // barrier and their kin (built for the device with the device libraries or -include replay-cl.h) reads the
        // same values natively
        return resource("native-prelude.h") + "\n" + resource("native-opencl.h") + "\n" + resource("native-image.h") + "\n"
                + openClNames() + "\n"
                + resource("replay-cl.h");
    }

    /** The headers of include/hip/ a HIP source may include ({@code #include <hip/hip_runtime.h>}). */
    static final List<String> HIP_HEADERS = List.of("hip_runtime.h", "hip_runtime_api.h", "hip_fp16.h");

    /** Writes include/hip/'s headers into {@code dir}/hip/, so that {@code -I dir} finds them. */
    public static void writeHipHeaders(Path dir) throws IOException {
        java.nio.file.Files.createDirectories(dir.resolve("hip"));
        for (String h : HIP_HEADERS) {
            java.nio.file.Files.writeString(dir.resolve("hip").resolve(h), resource("hip/" + h));
        }
    }

    /** The prelude of a HIP kernel's native build (C++): the amdgcn builtins, then include/replay-hip.h. */
    public static String hipPrelude() {
        return resource("native-prelude.h") + "\n" + resource("replay-hip.h");
    }

    /** The OpenCL C functions native-opencl.h defines as __ocl_NAME, each name a macro for its definition. */
    static final List<String> OPENCL_FUNCTIONS = List.of(("acos acosh asin asinh atan atanh cbrt ceil cos cosh erf erfc "
            + "exp exp2 expm1 fabs floor lgamma log log2 log10 log1p logb rint round sin sinh sqrt tan tanh tgamma trunc atan2 "
            + "copysign fdim fmod hypot nextafter pow remainder fmax fmin fma mad exp10 rsqrt sinpi cospi tanpi acospi "
            + "asinpi atanpi atan2pi powr maxmag minmag pown rootn ldexp ilogb frexp modf fract sincos remquo lgamma_r nan "
            + "clamp degrees radians mix step smoothstep sign abs abs_diff add_sat sub_sat hadd rhadd clz ctz mul_hi mad_hi "
            + "mad_sat max min rotate popcount mad24 mul24 upsample dot cross length distance normalize fast_length "
            + "fast_distance fast_normalize isnan isinf isfinite isnormal signbit isequal isnotequal isgreater "
            + "isgreaterequal isless islessequal islessgreater isordered isunordered any all select bitselect").split(" "));
    private static final List<String> SCALARS = List.of("char", "uchar", "short", "ushort", "int", "uint", "long", "ulong",
            "float", "double", "half");
    private static final List<String> SIZES = List.of("", "2", "3", "4", "8", "16");

    /**
     * The generated part of the native OpenCL C library: each function name (and native_/half_ variants) a
     * function-like macro for its {@code __ocl_} definition; {@code convert_T[N][_sat][_rte|_rtz|_rtp|_rtn]} for
     * every destination; {@code as_T[N]} as bit casts.
     */
    static String openClNames() {
        StringBuilder b = new StringBuilder("/* generated by NativeHarness.openClNames() */\n");
        List<String> names = new java.util.ArrayList<>(OPENCL_FUNCTIONS);
        for (String f : "cos exp exp2 exp10 log log2 log10 rsqrt sin sqrt tan recip divide powr".split(" ")) {
            names.add("native_" + f);
            names.add("half_" + f);
        }
        for (String n : names) {
            b.append("#define ").append(n).append("(...) __ocl_").append(n).append("(__VA_ARGS__)\n");
        }
        String[] modes = {"", "_rte", "_rtz", "_rtp", "_rtn"};
        for (String d : SCALARS) {
            for (String n : SIZES) {
                for (String sat : new String[] {"", "_sat"}) {
                    for (int m = 0; m < modes.length; m++) {
                        String call = n.isEmpty() ? "__ocl_cvt_" + d + "((x), " + (sat.isEmpty() ? 0 : 1) + ", " + m + ")"
                                : "__OCL_CVTV(" + d + ", " + n + ", " + (sat.isEmpty() ? 0 : 1) + ", " + m + ", x)";
                        b.append("#define convert_").append(d).append(n).append(sat).append(modes[m]).append("(x) ")
                                .append(call).append('\n');
                    }
                }
                // through a copy: clang-19 bit-casts a vector component (v.w) from the vector's first bytes
                b.append("#define as_").append(d).append(n).append("(x) ({ __typeof__(x) __as = (x); __builtin_bit_cast(")
                        .append(d).append(n).append(", __as); })\n");
            }
        }
        return b.toString();
    }

    /** {@code (T)(} with T an OpenCL C vector type: a vector literal's start. */
    private static final Pattern VECTOR_LITERAL = Pattern.compile(
            "\\(\\s*(char|uchar|short|ushort|int|uint|long|ulong|float|double|half)(2|3|4|8|16)\\s*\\)\\s*\\(");

    /**
     * OpenCL C vector literals with several components, {@code (float4)(a, b, c, d)} or {@code (float4)(v.xy, 0, 1)},
     * as {@code __OCL_VEC(float, 4, COUNT, ...)} (C would read the parentheses as a comma expression and splat its
     * last value). One component ({@code (float4)(x)}) stays: C's cast splats a scalar as OpenCL does. Lines stay.
     */
    static String vectorLiterals(String source) {
        StringBuilder out = new StringBuilder();
        int done = 0;
        Matcher m = VECTOR_LITERAL.matcher(source);
        while (m.find(done)) {
            int open = m.end() - 1;
            int depth = 0;
            int commas = 0;
            int end = open;
            for (; end < source.length(); end++) {
                char c = source.charAt(end);
                if (c == '(' || c == '[' || c == '{') {
                    depth++;
                } else if (c == ')' || c == ']' || c == '}') {
                    if (--depth == 0) {
                        break;
                    }
                } else if (c == ',' && depth == 1) {
                    commas++;
                }
            }
            out.append(source, done, m.start());
            if (commas == 0 || end >= source.length()) {
                out.append(source, m.start(), m.end());
                done = m.end();
                continue;
            }
            out.append("__OCL_VEC(").append(m.group(1)).append(", ").append(m.group(2)).append(", ").append(commas + 1)
                    .append(", ");
            // the components are rewritten too: a literal may nest another
            out.append(vectorLiterals(source.substring(open + 1, end))).append(')');
            done = end + 1;
        }
        out.append(source.substring(done));
        return out.toString();
    }

    /** Where the harness's headers lie on the class path, whatever package this class is in. */
    private static final String RESOURCES = "/org/replayfarm/cli/";

    /** A resource of the distribution under {@code org/replayfarm/cli/} (the headers, include/'s among them). */
    public static String resource(String name) {
        try (InputStream in = NativeHarness.class.getResourceAsStream(RESOURCES + name)) {
            if (in == null) {
                throw new IllegalStateException("the distribution lacks its resource " + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The file {@link #source(String, int[], int[], int, int[], String, boolean)} includes: {@link #nativeSource}'s output. */
    static final String NATIVE_KERNEL = "kernel.native.cl";

    /** Where a kernel function's parameter list starts: {@code kernel} (or {@code __kernel}) ... {@code void NAME(}. */
    private static final Pattern KERNEL_HEAD = Pattern.compile("\\b(?:__kernel|kernel)\\b[^;{}]*?\\bvoid\\s+\\w+\\s*\\(");
    private static final Pattern LOCAL_QUALIFIER = Pattern.compile("\\b(?:__local|local)\\b");

    /**
     * The kernel source as the native build compiles it: {@code __local}/{@code local} removed from kernel
     * parameter lists (the prelude makes them {@code static}, which a parameter cannot be; the harness passes
     * a per-group buffer instead), replaced by spaces so lines and columns stay. Everything else is unchanged.
     */
    static String nativeSource(String source) {
        source = vectorLiterals(source);
        StringBuilder out = new StringBuilder(source);
        Matcher head = KERNEL_HEAD.matcher(source);
        while (head.find()) {
            int depth = 1;
            int end = head.end();
            while (end < source.length() && depth > 0) {
                char c = source.charAt(end++);
                depth += c == '(' ? 1 : c == ')' ? -1 : 0;
            }
            Matcher local = LOCAL_QUALIFIER.matcher(source).region(head.end(), end);
            while (local.find()) {
                for (int i = local.start(); i < local.end(); i++) {
                    out.setCharAt(i, ' ');
                }
            }
        }
        return out.toString();
    }

    /** OpenCL C 2.0 functions the device side runs but the native harness does not implement. */
    private static final Pattern NOT_NATIVE = Pattern.compile(
            "\\b(work_group_(?!barrier\\b)\\w+|sub_group_\\w+|get_(?:max_)?sub_group_\\w+|get_num_sub_groups|"
                    + "get_enqueued_num_sub_groups|async_work_group_\\w*copy|wait_group_events|prefetch)\\s*\\(");
    private static final Pattern KERNEL_NAME = Pattern.compile(
            "(?:\\b__kernel|\\bkernel|__global__)\\s+(?:__attribute__\\s*\\(\\(.*?\\)\\)\\s*)?void\\s+(\\w+)\\s*\\(");

    /**
     * Why the native build cannot run {@code kernel} of {@code source}, in one line naming the function and the line,
     * or null: a kernel the source does not define (the kernels it does are listed), or an OpenCL C 2.0 work-group,
     * sub-group or asynchronous-copy function the harness does not implement.
     */
    public static String unsupported(Path source, String kernel) throws IOException {
        List<String> lines = Files.readAllLines(source);
        List<String> kernels = new java.util.ArrayList<>();
        Matcher k = KERNEL_NAME.matcher(String.join("\n", lines));
        while (k.find()) {
            kernels.add(k.group(1));
        }
        if (kernel != null && !kernels.isEmpty() && !kernels.contains(kernel)) {
            return source.getFileName() + " defines no kernel '" + kernel + "'; it defines " + String.join(", ", kernels);
        }
        for (int i = 0; i < lines.size(); i++) {
            String code = lines.get(i).replaceAll("//.*", "");
            Matcher m = NOT_NATIVE.matcher(code);
            if (m.find()) {
                return source.getFileName() + ":" + (i + 1) + ": " + m.group(1) + " is not in the native reference (the "
                        + "host model and the device side run it; capture native-run implements the OpenCL C 1.2 "
                        + "built-ins and work_group_barrier): compare with a device run instead";
            }
        }
        return null;
    }

    /**
     * The first error of a failed native build, with the harness's copy of the kernel named as the user's source and
     * the other generated files not named at all.
     */
    public static String firstError(String output, Path work, Path source) {
        String first = null;
        for (String line : output.split("\n")) {
            if (line.contains("error")) {
                first = line;
                break;
            }
        }
        if (first == null) {
            first = output.lines().skip(1).findFirst().orElse(output);
        }
        String kernelCopy = work.resolve(NATIVE_KERNEL).toString();
        first = first.replace(kernelCopy, source.toString());
        first = first.replaceAll(java.util.regex.Pattern.quote(work.toString()) + "/[^:]*:\\d+:\\d+: ", "(the generated harness) ");
        return first.strip();
    }

    /** Writes {@link #nativeSource} of {@code source} as {@link #NATIVE_KERNEL} in {@code dir}. */
    public static void writeNativeKernel(Path dir, Path source) throws IOException {
        String text = Files.readString(source);
        boolean hip = source.getFileName().toString().endsWith(".hip");
        Files.writeString(dir.resolve(NATIVE_KERNEL), hip ? text : nativeSource(text));
    }

    /**
     * The C expression the native build passes for a by-value argument: its exact bytes as a value of its
     * OpenCL C type ({@code char} ... {@code double}, vectors {@code TYPEn}; a {@code bytes:} struct needs
     * its {@code type=}).
     */
    public static String byValue(KernelArg.Value v) {
        String type = v.kind().equals("bytes") ? v.cType() : cType(v.elementKind()) + (v.count() > 1 ? v.count() : "");
        if (type.isEmpty()) {
            throw new IllegalArgumentException("argument '" + v.describe() + "': the native build needs the struct's C type: "
                    + "bytes:HEX,type=C-TYPE");
        }
        StringBuilder b = new StringBuilder();
        for (byte x : v.bytes()) {
            b.append(b.length() == 0 ? "" : ",").append(String.format(Locale.ROOT, "0x%02x", x & 0xFF));
        }
        return "__builtin_bit_cast(" + type + ", (struct { unsigned char b[" + v.bytes().length + "]; }) {{" + b + "}})";
    }

    /** The OpenCL C type of a by-value element kind. */
    public static String cType(String kind) {
        return switch (kind) {
            case "i8" -> "char";
            case "u8" -> "uchar";
            case "i16" -> "short";
            case "u16" -> "ushort";
            case "f16" -> "half";
            case "i32" -> "int";
            case "u32" -> "uint";
            case "f32" -> "float";
            case "i64" -> "long";
            case "u64" -> "ulong";
            case "f64" -> "double";
            default -> throw new IllegalArgumentException("no C type for " + kind);
        };
    }

    /** The harness for a kernel without {@code __local} parameters, including {@code kernel.cl} as it is. */
    public static String source(String kernel, int[] groups, int[] size, int buffers, String callArgs, boolean threaded) {
        return source(kernel, groups, size, buffers, new int[0], callArgs, threaded, "kernel.cl");
    }

    /**
     * The harness source: includes {@link #NATIVE_KERNEL}, calls {@code kernel(callArgs)} for every work-item
     * of every group. {@code locals[k]} is the size of the per-group buffer {@code __replay_local[k]} (a
     * {@code local:} argument: one buffer the group's threads share, 128-byte aligned). Command line: for
     * each buffer, its input file then its output file. Prints the nanoseconds the groups took.
     */
    public static String source(String kernel, int[] groups, int[] size, int buffers, int[] locals, String callArgs,
                         boolean threaded) {
        return source(kernel, groups, size, buffers, locals, callArgs, threaded, NATIVE_KERNEL);
    }

    private static String source(String kernel, int[] groups, int[] size, int buffers, int[] locals, String callArgs,
                                 boolean threaded, String include) {
        // a pointer argument, (void *) X in C, converts to the parameter's pointer type in C++ too
        callArgs = callArgs.replaceAll("\\(void \\*\\) (__replay_(?:buf\\[\\d+\\]|local\\d+))", "__REPLAY_PTR($1)");
        StringBuilder localDecls = new StringBuilder();
        for (int k = 0; k < locals.length; k++) {
            localDecls.append(String.format(Locale.ROOT, "static __attribute__((aligned(128))) unsigned char __replay_local%d[%d];%n",
                    k, locals[k]));
        }
        String loop = threaded ? """
                        pthread_barrier_init(&__replay_barrier, 0, n);
                        for (unsigned i = 0; i < n; i++)
                            if (pthread_create(&threads[i], &attr, run_item, &items[i])) return 4;
                        for (unsigned i = 0; i < n; i++) pthread_join(threads[i], 0);
                        pthread_barrier_destroy(&__replay_barrier);
                """ : """
                        for (unsigned i = 0; i < n; i++) run_item(&items[i]);
                """;
        return String.format(Locale.ROOT, """
                #include <stdio.h>
                #include <stdlib.h>
                #include <string.h>
                #include <time.h>
                #ifdef __cplusplus
                struct __replay_any_ptr { void *p; template <class T> operator T *() const { return (T *) p; } };
                #define __REPLAY_PTR(x) (__replay_any_ptr{(void *) (x)})
                #else
                #define __REPLAY_PTR(x) ((void *) (x))
                #endif
                #include "%s"
                %s__thread unsigned __replay_lid[3];
                unsigned __replay_gid[3], __replay_gsize[3] = {%d, %d, %d}, __replay_groups[3] = {%d, %d, %d};
                pthread_barrier_t __replay_barrier;
                static void *__replay_buf[%d + 1];
                static float __replay_f32(unsigned b) { float f; memcpy(&f, &b, 4); return f; }
                typedef struct { unsigned x, y, z; } item;
                static void *run_item(void *p) {
                    item *it = (item *) p;
                    __replay_lid[0] = it->x; __replay_lid[1] = it->y; __replay_lid[2] = it->z;
                    %s(%s);
                    return 0;
                }
                int main(int argc, char **argv) {
                    size_t sizes[%d + 1];
                    for (int i = 0; i < %d; i++) {
                        FILE *f = fopen(argv[1 + 2 * i], "rb");
                        if (!f) return 2;
                        fseek(f, 0, SEEK_END); sizes[i] = ftell(f); fseek(f, 0, SEEK_SET);
                        __replay_buf[i] = (void *) malloc(sizes[i] + 16);
                        if (fread(__replay_buf[i], 1, sizes[i], f) != sizes[i]) return 3;
                        fclose(f);
                    }
                    unsigned n = __replay_gsize[0] * __replay_gsize[1] * __replay_gsize[2];
                    item *items = (item *) malloc(n * sizeof(item));
                    pthread_t *threads = (pthread_t *) malloc(n * sizeof(pthread_t));
                    pthread_attr_t attr;
                    pthread_attr_init(&attr);
                    pthread_attr_setstacksize(&attr, 1 << 20);
                    for (unsigned i = 0; i < n; i++) {
                        items[i].x = i %% __replay_gsize[0];
                        items[i].y = i / __replay_gsize[0] %% __replay_gsize[1];
                        items[i].z = i / (__replay_gsize[0] * __replay_gsize[1]);
                    }
                    struct timespec t0, t1;
                    clock_gettime(CLOCK_MONOTONIC, &t0);
                    for (unsigned gz = 0; gz < __replay_groups[2]; gz++)
                    for (unsigned gy = 0; gy < __replay_groups[1]; gy++)
                    for (unsigned gx = 0; gx < __replay_groups[0]; gx++) {
                        __replay_gid[0] = gx; __replay_gid[1] = gy; __replay_gid[2] = gz;
                %s    }
                    clock_gettime(CLOCK_MONOTONIC, &t1);
                    printf("%%lld\\n", (long long) (t1.tv_sec - t0.tv_sec) * 1000000000LL + (t1.tv_nsec - t0.tv_nsec));
                    for (int i = 0; i < %d; i++) {
                        FILE *f = fopen(argv[2 + 2 * i], "wb");
                        fwrite(__replay_buf[i], 1, sizes[i], f);
                        fclose(f);
                    }
                    return 0;
                }
                """, include, localDecls, size[0], size[1], size[2], groups[0], groups[1], groups[2], buffers, kernel, callArgs, buffers,
                buffers, loop, buffers);
    }
}
