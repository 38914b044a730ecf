package org.replayfarm.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;

/**
 * A C program that runs an OpenCL C kernel natively (clang-19 for x86-64): the independent execution the
 * host model is compared with. Buffers are read from files and written back after the run. With
 * {@code threaded}, each group's work-items run as threads together (so barriers work); otherwise they
 * run one after another on one thread (for timing; kernels without barriers only).
 */
final class NativeHarness {
    private NativeHarness() {
    }

    /**
     * The clang-19 flags the native build needs to round as the device does: no contraction, no fast math,
     * and each half operation rounded to half (OpenCL C rounds every operation; C's default evaluates a
     * whole _Float16 expression in float and rounds once, which differs by an ulp on products and sums).
     */
    static final List<String> COMPILER_FLAGS = List.of("-O2", "-ffp-contract=off", "-fno-fast-math",
            "-Xclang", "-ffloat16-excess-precision=none", "-std=gnu11", "-w");

    /** The prelude mapping OpenCL C spellings and amdgcn builtins onto C11 and pthreads. */
    static String prelude() {
        try (InputStream in = NativeHarness.class.getResourceAsStream("native-prelude.h")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The harness source: includes {@code kernel.cl}, calls {@code kernel(callArgs)} for every work-item
     * of every group. Command line: for each buffer, its input file then its output file. Prints the
     * nanoseconds the groups took.
     */
    static String source(String kernel, int[] groups, int[] size, int buffers, String callArgs, boolean threaded) {
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
                #include "kernel.cl"
                __thread unsigned __replay_lid[3];
                unsigned __replay_gid[3], __replay_gsize[3] = {%d, %d, %d}, __replay_groups[3] = {%d, %d, %d};
                pthread_barrier_t __replay_barrier;
                static void *__replay_buf[%d + 1];
                static float __replay_f32(unsigned b) { float f; memcpy(&f, &b, 4); return f; }
                typedef struct { unsigned x, y, z; } item;
                static void *run_item(void *p) {
                    item *it = p;
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
                        __replay_buf[i] = malloc(sizes[i] + 16);
                        if (fread(__replay_buf[i], 1, sizes[i], f) != sizes[i]) return 3;
                        fclose(f);
                    }
                    unsigned n = __replay_gsize[0] * __replay_gsize[1] * __replay_gsize[2];
                    item *items = malloc(n * sizeof(item));
                    pthread_t *threads = malloc(n * sizeof(pthread_t));
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
                """, size[0], size[1], size[2], groups[0], groups[1], groups[2], buffers, kernel, callArgs, buffers,
                buffers, loop, buffers);
    }
}
