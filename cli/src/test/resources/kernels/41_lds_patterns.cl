//! kernel lds_patterns
//! groups 2 size 256
//! arg buffer u32 512 rand 65
//! arg zeros 6144
// LDS with several waves per group: a ping-pong stencil over barriers, byte and short LDS stores and
// sign-extending loads, 64-bit and 128-bit LDS accesses, LDS atomics (compare-and-swap loop, 64-bit add,
// min/max, wrapping inc) and a ticket counter whose returned values mark slots.
__kernel void lds_patterns(__global const uint *a, __global uint *out) {
    __local uint buf[2][256];
    __local uchar bytes[256];
    __local short shorts[256];
    __local ulong wide[128];
    __local uint counters[8];
    __local ulong total;
    __local uint marks[256];
    __local int signed_max;
    uint l = __builtin_amdgcn_workitem_id_x();
    uint g = __builtin_amdgcn_workgroup_id_x();
    uint x = a[g * 256 + l];
    if (l < 8) counters[l] = l == 1 ? 0xffffffffu : 0;
    if (l == 0) total = 0;
    if (l == 1) signed_max = -2000000000;
    buf[0][l] = x;
    bytes[l] = (uchar) (x >> 5);
    shorts[l] = (short) (x >> 11);
    if (l < 128) wide[l] = (ulong) x * 0x100000001ul;
    __builtin_amdgcn_s_barrier();
    uint cur = 0;
    for (uint step = 1; step < 5; step++) {
        uint left = buf[cur][(l + 255) & 255], right = buf[cur][(l + step) & 255];
        buf[cur ^ 1][l] = left + (right >> step) ^ buf[cur][l];
        cur ^= 1;
        __builtin_amdgcn_s_barrier();
    }
    char sb = (char) bytes[(l * 13) & 255];
    short ss = shorts[(l * 7 + 3) & 255];
    ulong w = wide[(l >> 1) ^ 5];
    // LDS atomics
    uint seen = counters[0];
    while (seen < x && !__atomic_compare_exchange_n(&counters[0], &seen, x, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
    __atomic_fetch_min(&counters[1], x ^ 0x5555u, __ATOMIC_RELAXED);
    __atomic_fetch_max(&signed_max, (int) x, __ATOMIC_RELAXED);
    __builtin_amdgcn_atomic_inc32(&counters[3], 100u, __ATOMIC_RELAXED, "workgroup");
    __atomic_fetch_add(&total, w, __ATOMIC_RELAXED);
    uint ticket = __atomic_fetch_add(&counters[4], 1u, __ATOMIC_RELAXED);
    marks[ticket & 255] = ticket + 1;
    __builtin_amdgcn_s_barrier();
    __global uint *o = out + (g * 256 + l) * 3;
    o[0] = buf[cur][l];
    o[1] = (uint) (int) sb ^ (uint) (int) ss << 8 ^ (uint) (w >> 17) ^ marks[l];
    o[2] = l == 2 ? (uint) signed_max : l < 5 ? counters[l] : (l < 7 ? (uint) (total >> (32 * (l - 5))) : o[0] * 3);
}
