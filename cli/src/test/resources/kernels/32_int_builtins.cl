//! kernel int_builtins
//! groups 2 size 64
//! arg buffer i32 128 rand 47
//! arg buffer i32 128 rand 48
//! arg zeros 8192
// OpenCL's integer builtins as clang spells them: saturating add and subtract, 24-bit multiplies, halving
// adds, absolute difference, rotates, upsample, bitselect, clz/ctz of zero, shift counts masked to the
// width, and the amdgcn bit-field, align and permute builtins.
__kernel void int_builtins(__global const int *a, __global const int *b, __global uint *out) {
    uint i = __builtin_amdgcn_workgroup_id_x() * 64 + __builtin_amdgcn_workitem_id_x();
    int x = a[i], y = b[i];
    uint ux = (uint) x, uy = (uint) y;
    if (i % 9 == 0) x = (int) 0x7fffffff - (int) (i & 3);
    if (i % 10 == 3) y = (int) 0x80000000 + (int) (i & 1);
    if (i % 16 == 5) ux = 0;
    __global uint *o = out + i * 16;
    o[0] = (uint) __builtin_elementwise_add_sat(x, y);
    o[1] = (uint) __builtin_elementwise_sub_sat(x, y);
    o[2] = __builtin_elementwise_add_sat(ux, uy) ^ __builtin_elementwise_sub_sat(ux, uy);
    int x24 = x << 8 >> 8, y24 = y << 8 >> 8;
    o[3] = (uint) (x24 * y24 + x);
    o[4] = (ux & 0xffffff) * (uy & 0xffffff);
    o[5] = (uint) (((long) x24 * (long) y24) >> 32) + (uint) ((((ulong) (ux & 0xffffff)) * (uy & 0xffffff)) >> 32);
    o[6] = (uint) ((x >> 1) + (y >> 1) + (x & y & 1)) ^ ((ux >> 1) + (uy >> 1) + ((ux | uy) & 1));
    o[7] = (x > y ? (uint) x - (uint) y : (uint) y - (uint) x);
    o[8] = __builtin_rotateleft32(ux, uy) ^ __builtin_rotateright32(uy, ux + 3);
    ulong up = (ulong) ux << 32 | uy;
    o[9] = (uint) (up >> (ux & 63)) + (uint) ((long) up >> 40);
    o[10] = (ux & ~uy) | (0x5a5aa5a5u & uy);
    o[11] = __builtin_clzg(ux, 32) | __builtin_ctzg(ux, 32) << 8 | __builtin_clzg((ushort) ux, 16) << 16 | __builtin_ctzg((uchar) ux, 8) << 24;
    o[12] = (ux << (uy & 31)) ^ (uint) (x >> (uy & 31)) ^ (uint) ((short) x >> (uy & 15)) ^ ((uchar) ux << (uy & 7));
    o[13] = __builtin_amdgcn_ubfe(ux, uy, uy >> 8) ^ (uint) __builtin_amdgcn_sbfe(x, uy >> 16, uy >> 24);
    o[14] = __builtin_amdgcn_alignbit(ux, uy, uy >> 3) + __builtin_amdgcn_alignbyte(uy, ux, ux >> 5);
    o[15] = __builtin_amdgcn_perm(ux, uy, (uint) (i * 0x0b0d0f03u) ^ uy) + (uint) __builtin_popcount(ux) + uy;
}
