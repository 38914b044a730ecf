//! kernel long_math
//! groups 2 size 32
//! arg buffer i64 64 rand 7
//! arg buffer i64 64 rand 8
//! arg zeros 4096
// 64-bit integer arithmetic, shifts, compares and selects.
__kernel void long_math(__global const long *a, __global const long *b, __global long *out) {
    uint i = __builtin_amdgcn_workgroup_id_x() * 32 + __builtin_amdgcn_workitem_id_x();
    long x = a[i], y = b[i];
    ulong ux = (ulong) x, uy = (ulong) y;
    __global long *o = out + i * 8;
    o[0] = (long) (ux + uy);
    o[1] = (long) (ux - uy);
    o[2] = (long) (ux * uy);
    o[3] = (long) (ux >> (uy & 63)) ^ (x >> (y & 63));
    o[4] = (long) (ux << (uy & 63));
    o[5] = x < y ? x : y;
    o[6] = ux > uy ? (long) ux : (long) uy;
    o[7] = (x & 0xffff0000ffffL) | (~y & 0x0000ffff0000ffffL);
}
