//! kernel atomics_global
//! groups 4 size 64
//! arg buffer u32 256 rand 26
//! arg zeros 64
// Global atomics whose final values do not depend on order: add, min, max, or, xor, and.
__kernel void atomics_global(__global const uint *a, __global uint *c) {
    uint i = __builtin_amdgcn_workgroup_id_x() * 64 + __builtin_amdgcn_workitem_id_x();
    uint g = __builtin_amdgcn_workgroup_id_x();
    uint x = a[i];
    __atomic_fetch_add(&c[g * 4 + 0], x & 0xffff, __ATOMIC_RELAXED);
    __atomic_fetch_max(&c[g * 4 + 1], x, __ATOMIC_RELAXED);
    __atomic_fetch_or(&c[g * 4 + 2], 1u << (x & 31), __ATOMIC_RELAXED);
    __atomic_fetch_xor(&c[g * 4 + 3], x, __ATOMIC_RELAXED);
}
