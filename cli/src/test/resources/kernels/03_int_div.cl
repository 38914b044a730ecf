//! kernel int_div
//! groups 2 size 64
//! arg buffer i32 128 rand 5
//! arg buffer i32 128 small 6
//! arg zeros 2048
// Signed and unsigned division and remainder (the compiler's reciprocal-and-correct sequence).
__kernel void int_div(__global const int *a, __global const int *b, __global int *out) {
    uint i = __builtin_amdgcn_workgroup_id_x() * 64 + __builtin_amdgcn_workitem_id_x();
    int x = a[i];
    int y = b[i] == 0 ? 7 : b[i];
    uint ux = (uint) x, uy = (uint) (y < 0 ? -y : y) + 1u;
    if (x == (int) 0x80000000 && y == -1) y = 3;
    __global int *o = out + i * 4;
    o[0] = x / y;
    o[1] = x % y;
    o[2] = (int) (ux / uy);
    o[3] = (int) (ux % uy);
}
