//! kernel int_arith
//! groups 2 size 64
//! arg buffer i32 128 rand 3
//! arg buffer i32 128 rand 4
//! arg zeros 4096
// 32-bit integer arithmetic and logic, signed and unsigned, with wrap-around.
__kernel void int_arith(__global const int *a, __global const int *b, __global int *out) {
    uint i = __builtin_amdgcn_workgroup_id_x() * 64 + __builtin_amdgcn_workitem_id_x();
    int x = a[i], y = b[i];
    uint ux = (uint) x, uy = (uint) y;
    __global int *o = out + i * 8;
    o[0] = (int) (ux + uy);
    o[1] = (int) (ux - uy * 3u);
    o[2] = (int) (ux * uy);
    o[3] = x ^ (y | 0x0f0f0f0f) & ~(x >> 7);
    o[4] = (int) (ux >> (uy & 31)) + (x >> (y & 31));
    o[5] = (int) (ux << (uy & 31));
    o[6] = (int) ((ulong) ux * (ulong) uy >> 32);
    o[7] = (int) (((long) x * (long) y) >> 32);
}
