package org.replayfarm.model.testing;

/** Kernel sources several tests compile with the reference toolchain. */
public final class Kernels {
    private Kernels() {
    }

    /** A descriptor with every field set away from its default, written as .amdhsa_* directives. */
    public static final String DESCRIPTOR_ASM = """
            .amdhsa_code_object_version 5
            .text
            .p2align 8
            .globl k
            .type k,@function
            k:
              s_endpgm
            .rodata
            .p2align 6
            .amdhsa_kernel k
              .amdhsa_next_free_vgpr 9
              .amdhsa_next_free_sgpr 20
              .amdhsa_user_sgpr_private_segment_buffer 1
              .amdhsa_user_sgpr_dispatch_ptr 1
              .amdhsa_user_sgpr_kernarg_segment_ptr 1
              .amdhsa_user_sgpr_count 10
              .amdhsa_system_sgpr_workgroup_id_y 1
              .amdhsa_system_sgpr_workgroup_id_z 1
              .amdhsa_system_vgpr_workitem_id 2
              .amdhsa_float_round_mode_32 2
              .amdhsa_float_round_mode_16_64 3
              .amdhsa_float_denorm_mode_32 1
              .amdhsa_float_denorm_mode_16_64 2
              .amdhsa_dx10_clamp 0
              .amdhsa_ieee_mode 0
              .amdhsa_fp16_overflow 1
              .amdhsa_group_segment_fixed_size 512
              .amdhsa_private_segment_fixed_size 64
              .amdhsa_kernarg_size 32
              .amdhsa_system_sgpr_private_segment_wavefront_offset 1
            .end_amdhsa_kernel
            """;


    /** Two kernels, a constant table read PC-relative, a pointer constant (ABS64) and a helper function. */
    public static final String TABLES = """
            __constant int table[8] = {3, 1, 4, 1, 5, 9, 2, 6};
            __constant int *__constant tabptr = table;
            static int helper(int i) { return table[(i * 3) & 7]; }
            __kernel void lookup(__global int *out, int k) {
                int i = __builtin_amdgcn_workitem_id_x();
                out[i] = table[(i + k) & 7] + tabptr[i & 7] + helper(i);
            }
            __kernel void other(__global float *o, float s, long l, uint u) {
                o[__builtin_amdgcn_workitem_id_x()] = s * (float) l + (float) u;
            }
            """;

}
