//! kernel bit_tricks
//! groups 1 size 64
//! arg buffer u32 64 rand 29
//! arg zeros 2048
// popcount, leading/trailing zeros, bit reverse, rotates, byte swaps, bit-field extract.
__kernel void bit_tricks(__global const uint *a, __global uint *out) {
    uint i = __builtin_amdgcn_workitem_id_x();
    uint x = a[i] | (i == 5 ? 0 : 0);
    if (i == 3) x = 0;
    __global uint *o = out + i * 8;
    o[0] = __builtin_popcount(x);
    o[1] = x ? __builtin_clz(x) : 32;
    o[2] = x ? __builtin_ctz(x) : 32;
    o[3] = __builtin_bitreverse32(x);
    o[4] = (x << (i & 31)) | (x >> ((32 - (i & 31)) & 31));
    o[5] = __builtin_bswap32(x);
    o[6] = (x >> (i & 15)) & ((1u << 9) - 1);
    o[7] = (x & 0xff00ff00u) >> 8 | (x & 0x00ff00ffu) << 8;
}
