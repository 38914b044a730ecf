//! kernel long_div
//! groups 1 size 64
//! arg buffer u64 64 rand 9
//! arg buffer u64 64 rand 10
//! arg zeros 2048
// 64-bit division and remainder (a long software sequence on the device).
__kernel void long_div(__global const ulong *a, __global const ulong *b, __global ulong *out) {
    uint i = __builtin_amdgcn_workitem_id_x();
    ulong x = a[i];
    ulong y = (b[i] >> (i & 63)) | 1;
    long sx = (long) x >> 3, sy = (long) (y >> 1) - 1000;
    if (sy == 0) sy = 5;
    __global ulong *o = out + i * 4;
    o[0] = x / y;
    o[1] = x % y;
    o[2] = (ulong) (sx / sy);
    o[3] = (ulong) (sx % sy);
}
