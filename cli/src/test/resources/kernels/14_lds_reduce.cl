//! kernel lds_reduce
//! groups 4 size 128
//! arg buffer u32 512 rand 24
//! arg zeros 16
// Tree reduction in LDS with barriers: one sum per group.
__kernel void lds_reduce(__global const uint *a, __global uint *sums) {
    __local uint tile[128];
    uint l = __builtin_amdgcn_workitem_id_x();
    uint g = __builtin_amdgcn_workgroup_id_x();
    tile[l] = a[g * 128 + l];
    __builtin_amdgcn_s_barrier();
    for (uint s = 64; s > 0; s >>= 1) {
        if (l < s) tile[l] += tile[l + s];
        __builtin_amdgcn_s_barrier();
    }
    if (l == 0) sums[g] = tile[0];
}
