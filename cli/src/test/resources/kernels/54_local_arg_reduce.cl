//! kernel local_arg_reduce
//! groups 4 size 128
//! arg buffer f32 512 unit 81
//! arg local 512
//! arg zeros 32
// A tree reduction in dynamically sized LDS: the __local float * argument (local:512, 128 floats per group,
// its address in the kernarg slot) is the only LDS the kernel uses. One sum and one maximum per group.
__kernel void local_arg_reduce(__global const float *in, __local float *scratch, __global float *out) {
    uint l = __builtin_amdgcn_workitem_id_x();
    uint g = __builtin_amdgcn_workgroup_id_x();
    float v = in[g * 128 + l];
    scratch[l] = v;
    __builtin_amdgcn_s_barrier();
    for (uint s = 64; s > 0; s >>= 1) {
        if (l < s) scratch[l] += scratch[l + s];
        __builtin_amdgcn_s_barrier();
    }
    float sum = scratch[0];
    __builtin_amdgcn_s_barrier();
    scratch[l] = v;
    __builtin_amdgcn_s_barrier();
    for (uint s = 64; s > 0; s >>= 1) {
        if (l < s) scratch[l] = scratch[l] > scratch[l + s] ? scratch[l] : scratch[l + s];
        __builtin_amdgcn_s_barrier();
    }
    if (l == 0) {
        out[2 * g] = sum;
        out[2 * g + 1] = scratch[0];
    }
}
