//! kernel minmax_int
//! groups 1 size 64
//! arg buffer i32 64 rand 34
//! arg buffer i32 64 rand 35
//! arg zeros 1024
// Integer min, max, clamp, abs, absolute difference, median of three.
__kernel void minmax_int(__global const int *a, __global const int *b, __global int *out) {
    uint i = __builtin_amdgcn_workitem_id_x();
    int x = a[i] >> 4, y = b[i] >> 4;
    __global int *o = out + i * 4;
    o[0] = x < y ? x : y;
    o[1] = (uint) x > (uint) y ? x : y;
    int lo = -1000, hi = 5000000;
    o[2] = x < lo ? lo : x > hi ? hi : x;
    int d = x > y ? x - y : y - x;
    o[3] = d + (x < 0 ? -x : x);
}
