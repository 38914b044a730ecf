//! kernel double_math
//! groups 1 size 32
//! arg buffer f64 32 rand 17
//! arg buffer f64 32 pos 18
//! arg zeros 1536
// f64 add, mul, fma, min/max, compare.
__kernel void double_math(__global const double *a, __global const double *b, __global double *out) {
    uint i = __builtin_amdgcn_workitem_id_x();
    double x = a[i], y = b[i];
    __global double *o = out + i * 6;
    o[0] = x + y;
    o[1] = x * y - y;
    o[2] = __builtin_fma(x, y, 0.25);
    o[3] = __builtin_fmin(x, y);
    o[4] = __builtin_fmax(x, -y);
    o[5] = x < y ? x * 2.0 : y * 0.5;
}
