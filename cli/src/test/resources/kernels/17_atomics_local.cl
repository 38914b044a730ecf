//! kernel atomics_local
//! groups 2 size 64
//! arg buffer u32 128 rand 27
//! arg zeros 64
// LDS atomics within a group, then one lane writes the totals.
__kernel void atomics_local(__global const uint *a, __global uint *out) {
    __local uint acc[4];
    uint l = __builtin_amdgcn_workitem_id_x();
    uint g = __builtin_amdgcn_workgroup_id_x();
    if (l < 4) acc[l] = l == 2 ? 0xffffffffu : 0;
    __builtin_amdgcn_s_barrier();
    uint x = a[g * 64 + l];
    __atomic_fetch_add(&acc[0], x >> 8, __ATOMIC_RELAXED);
    __atomic_fetch_max(&acc[1], x, __ATOMIC_RELAXED);
    __atomic_fetch_min(&acc[2], x, __ATOMIC_RELAXED);
    __atomic_fetch_xor(&acc[3], x * 3u, __ATOMIC_RELAXED);
    __builtin_amdgcn_s_barrier();
    if (l < 4) out[g * 4 + l] = acc[l];
}
