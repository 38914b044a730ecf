//! kernel histogram
//! groups 4 size 64
//! arg buffer u8 1024 rand 40
//! arg zeros 64
// A 16-bin histogram: LDS atomics per group, then global atomic adds.
__kernel void histogram(__global const uchar *data, __global uint *bins) {
    __local uint h[16];
    uint l = __builtin_amdgcn_workitem_id_x();
    uint g = __builtin_amdgcn_workgroup_id_x();
    if (l < 16) h[l] = 0;
    __builtin_amdgcn_s_barrier();
    for (uint k = 0; k < 4; k++) {
        uchar v = data[(g * 64 + l) * 4 + k];
        __atomic_fetch_add(&h[v >> 4], 1u, __ATOMIC_RELAXED);
    }
    __builtin_amdgcn_s_barrier();
    if (l < 16) __atomic_fetch_add(&bins[l], h[l], __ATOMIC_RELAXED);
}
