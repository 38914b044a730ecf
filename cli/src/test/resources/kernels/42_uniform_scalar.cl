//! kernel uniform_scalar
//! groups 4 size 64
//! arg buffer u32 64 rand 66
//! arg i32 -12345
//! arg u64 0x0123456789abcdef
//! arg zeros 3072
// Values the same for every lane of a group (kernel arguments, the group id, loads at uniform addresses,
// __constant tables indexed by them) computed on the scalar unit: 32- and 64-bit arithmetic, bit counts,
// bit-field extracts, shifts, min/max/abs, compares feeding scalar selects and branches, multiplies (low
// and high halves), division by a uniform divisor; then combined with per-lane values.
__constant uint table[16] = {0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u, 0xa4093822u, 0x299f31d0u,
        0x082efa98u, 0xec4e6c89u, 0x452821e6u, 0x38d01377u, 0xbe5466cfu, 0x34e90c6cu, 0xc0ac29b7u,
        0xc97c50ddu, 0x3f84d5b5u, 0xb5470917u};
__constant short shorts[8] = {-1, 2, -300, 4000, -32768, 32767, 7, -8};

__kernel void uniform_scalar(__global const uint *a, int k, ulong q, __global uint *out) {
    uint g = __builtin_amdgcn_workgroup_id_x();
    uint l = __builtin_amdgcn_workitem_id_x();
    uint u = a[g * 5 + 1] ^ table[g * 3 & 15];
    int s = (int) u >> (g + 1);
    ulong uq = q ^ ((ulong) u << (g * 7));
    uint r[24];
    r[0] = (uint) __builtin_popcount(u) | (uint) __builtin_popcountl(uq) << 8;
    r[1] = (u ? (uint) __builtin_clz(u) : 99) | (uint) __builtin_ctzl(uq | 1ul << 63) << 8;
    r[2] = (u >> (g * 3 + 2)) & 0x3ff;
    r[3] = (uint) ((s << 5) >> 9);
    r[4] = (uint) (s < k ? s : k) ^ (uint) (s > k ? s : k) << 3;
    r[5] = (uint) (s < 0 ? -s : s) + (u > (uint) k ? u - (uint) k : (uint) k - u);
    r[6] = u * (uint) k;
    r[7] = (uint) (((ulong) u * (ulong) (uint) k) >> 32);
    r[8] = (uint) (((long) s * (long) k) >> 32);
    r[9] = u / (g + 3) + u % 7;
    r[10] = (uint) (uq >> (u & 63)) ^ (uint) (uq << (g + 30) >> 32);
    r[11] = (uint) ((long) uq >> 47);
    r[12] = (uint) (uq * 0x9e3779b97f4a7c15ul >> 32) + (uint) (uq / 1000003ul);
    r[13] = (uint) (int) (short) u + (uint) (int) (char) (u >> 8) + (uint) shorts[g * 2 + 1];
    r[14] = __builtin_bitreverse32(u) ^ __builtin_bswap32(u);
    r[15] = (u & 0xffff) << 16 | (u >> 16);
    r[16] = (u & (1u << (g + 3))) ? 0x111 : 0x222;
    r[17] = __builtin_bit_cast(uint, (float) s * 0.25f + (float) u);
    r[18] = __builtin_bit_cast(uint, __builtin_fmaxf((float) k, (float) (int) u));
    r[19] = (uint) (ulong) ((double) uq * 0.5);
    r[20] = (uint) ((uq + (ulong) k) >> 3) - (uint) (uq < (ulong) (long) k);
    r[21] = (u + 3u) * 5u + (u << 2) + (u << 3) + (u << 4);
    r[22] = (uint) __builtin_elementwise_add_sat(s, k) ^ __builtin_elementwise_sub_sat(u, (uint) k);
    uint acc = 0;
    for (uint n = 0; n < (u & 15) + 1; n++) acc = acc * 33u + table[(u + n) & 15];
    r[23] = acc;
    __global uint *o = out + g * 192;
    uint v = a[l];
    o[l] = r[l % 24] + (l >= 24 ? v * (l / 24) : 0);
    o[64 + l] = (v > u ? v - u : u - v) ^ table[(v + g) & 15];
    o[128 + l] = (l < 24) ? r[l] : (uint) shorts[(v ^ u) & 7];
}
