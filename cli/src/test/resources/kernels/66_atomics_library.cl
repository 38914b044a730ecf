//! kernel atomics_library
//! library
//! groups 4 size 64
//! arg buffer u32 256 rand 72
//! arg zeros 64
//! arg zeros 256
// OpenCL 1.x atomics as histogram and reduction kernels write them: atomic_inc, atomic_add, atomic_max,
// atomic_min, atomic_or, atomic_xor on global counters shared by every group (commutative, so the order of groups
// does not matter), and atomic_cmpxchg, atomic_xchg, atom_add on a __local tile, per group. Exact.
kernel void atomics_library(global const uint *in, global uint *counters, global uint *per_group) {
    local uint tile[4];
    size_t l = get_local_id(0);
    uint x = in[get_global_id(0)];
    if (l < 4) tile[l] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    atomic_inc(&counters[0]);
    atomic_add(&counters[1], x & 0xffff);
    atomic_max(&counters[2], x);
    atomic_min(&counters[3], x);
    atomic_or(&counters[4], 1u << (x & 31));
    atomic_xor(&counters[5], x);
    atomic_max((volatile global int *) &counters[6], (int) x);
    atomic_min((volatile global int *) &counters[7], (int) x);
    atom_add(&counters[8], 3u);
    atomic_dec(&counters[9]);
    atomic_sub(&counters[10], x & 7);
    atomic_add(&tile[0], 1u);
    atomic_max(&tile[1], x >> 8);
    uint seen = atomic_cmpxchg(&tile[2], 0u, (uint) l + 1);
    atomic_xchg(&tile[3], seen == 0 ? 7u : 7u);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l < 4) per_group[get_group_id(0) * 4 + l] = l == 2 ? (tile[2] != 0) : tile[l];
}
