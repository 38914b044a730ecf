//! kernel atomics_more
//! groups 4 size 64
//! arg buffer u32 256 rand 62
//! arg buffer u32 1024 rand 63
//! arg zeros 1408
//! arg buffer u64 10 rand 64
// More global atomics. Shared by every group, only order-free ones: signed min/max, sub, 64-bit add, and,
// or, xor, min and max. Shared within a group: a compare-and-swap loop (a max), wrapping increment and
// decrement, and a ticket counter whose returned values mark slots (each slot marked once, whatever the
// order). Per lane (its own word): exchange, compare-and-swap that succeeds or fails, inc/dec returning
// the old value. Acquire/release orderings and an atomic load and store.
__kernel void atomics_more(__global const uint *a, __global uint *own, __global uint *marks, __global ulong *shared) {
    uint l = __builtin_amdgcn_workitem_id_x();
    uint g = __builtin_amdgcn_workgroup_id_x();
    uint i = g * 64 + l;
    uint x = a[i];
    // every group: order-free, at device scope (system-scope min/max become compare-and-swap loops)
    __global int *s32 = (__global int *) (shared + 8);
    __scoped_atomic_fetch_min(&s32[0], (int) x, __ATOMIC_RELAXED, __MEMORY_SCOPE_DEVICE);
    __scoped_atomic_fetch_max(&s32[1], (int) x >> 3, __ATOMIC_RELAXED, __MEMORY_SCOPE_DEVICE);
    __atomic_fetch_sub(&s32[2], (int) (x & 0xfff), __ATOMIC_RELAXED);
    ulong wide = (ulong) x << 32 | a[(i * 7 + 3) & 255];
    __atomic_fetch_add(&shared[0], wide, __ATOMIC_RELAXED);
    __atomic_fetch_and(&shared[1], ~(1ul << (x & 63)), __ATOMIC_RELAXED);
    __atomic_fetch_or(&shared[2], 1ul << (x >> 26), __ATOMIC_RELAXED);
    __atomic_fetch_xor(&shared[3], wide * 0x9e3779b97f4a7c15ul, __ATOMIC_RELEASE);
    __scoped_atomic_fetch_min(&shared[4], wide, __ATOMIC_ACQUIRE, __MEMORY_SCOPE_DEVICE);
    __scoped_atomic_fetch_max(&shared[5], wide ^ 0x8000000000000000ul, __ATOMIC_ACQ_REL, __MEMORY_SCOPE_DEVICE);
    __scoped_atomic_fetch_min((__global long *) &shared[6], (long) wide, __ATOMIC_RELAXED, __MEMORY_SCOPE_DEVICE);
    __scoped_atomic_fetch_max((__global long *) &shared[7], (long) (wide >> 1) - (long) 0x4000000000000000,
            __ATOMIC_RELAXED, __MEMORY_SCOPE_DEVICE);
    // within the group
    __global uint *grp = marks + 256 + g * 4;
    uint seen = __atomic_load_n(&grp[0], __ATOMIC_RELAXED);
    while (seen < x && !__atomic_compare_exchange_n(&grp[0], &seen, x, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
    __builtin_amdgcn_atomic_inc32(&grp[1], 9u, __ATOMIC_RELAXED, "agent");
    __builtin_amdgcn_atomic_dec32(&grp[2], 5u, __ATOMIC_RELAXED, "agent");
    uint ticket = __atomic_fetch_add(&grp[3], 1u, __ATOMIC_RELAXED);
    __global int *gs = (__global int *) (marks + 320 + g * 2);
    __atomic_fetch_min(&gs[0], (int) x, __ATOMIC_RELAXED);          // system scope: a compare-and-swap loop
    __atomic_fetch_max((__global long *) (marks + 336) + g, (long) wide, __ATOMIC_RELAXED);
    marks[g * 64 + (ticket & 63)] = 1u + (ticket >> 6);
    // per lane
    __global uint *mine = own + i * 4;
    uint old = __atomic_exchange_n(&mine[0], x, __ATOMIC_RELAXED);
    uint expected = (l & 1) ? old : old + 1u;     // odd lanes succeed
    int ok = __atomic_compare_exchange_n(&mine[0], &expected, x ^ 0xffffu, 0, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED);
    mine[1] = expected ^ (uint) ok << 31;
    uint o2 = __builtin_amdgcn_atomic_inc32(&mine[2], x & 3u, __ATOMIC_RELAXED, "agent");
    uint o3 = __builtin_amdgcn_atomic_dec32(&mine[3], (x >> 4) & 3u, __ATOMIC_RELAXED, "agent");
    __atomic_store_n(&mine[2], __atomic_load_n(&mine[2], __ATOMIC_ACQUIRE) + (o2 + o3) * 16, __ATOMIC_RELEASE);
}
