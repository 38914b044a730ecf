//! kernel partial_waves
//! groups 3,2 size 13,5
//! arg buffer u32 512 rand 77
//! arg zeros 6240
//! arg zeros 64
// Groups whose size is not a multiple of the wave size (13 x 5 = 65 work-items: the last wave has one
// lane): the initial EXEC, work-item ids in y for a partial wave, an LDS reduction over barriers, and
// atomics the compiler turns into per-wave scans (their counts come from EXEC).
__kernel void partial_waves(__global const uint *a, __global uint *out, __global uint *totals) {
    __local uint tile[65];
    __local uint count;
    uint lx = __builtin_amdgcn_workitem_id_x(), ly = __builtin_amdgcn_workitem_id_y();
    uint gx = __builtin_amdgcn_workgroup_id_x(), gy = __builtin_amdgcn_workgroup_id_y();
    uint flat = ly * 13 + lx;
    uint group = gy * 3 + gx;
    uint x = a[group * 65 + flat];
    if (flat == 0) count = 0;
    tile[flat] = x & 0xffff;
    __builtin_amdgcn_s_barrier();
    __atomic_fetch_add(&count, 1u, __ATOMIC_RELAXED);           // uniform value: popcount(EXEC) per wave
    __atomic_fetch_add(&totals[group], x >> 20, __ATOMIC_RELAXED);  // varying value: a wave scan
    __atomic_fetch_add(&totals[8 + (x & 3)], 3u, __ATOMIC_RELAXED);
    for (uint s = 64; s > 0; s >>= 1) {
        if (flat < s && flat + s < 65) tile[flat] += tile[flat + s];
        __builtin_amdgcn_s_barrier();
    }
    __global uint *o = out + (group * 65 + flat) * 4;
    o[0] = tile[0];
    o[1] = count;
    o[2] = flat | ly << 8 | lx << 16 | group << 24;
    o[3] = x % (flat + 1);
}
