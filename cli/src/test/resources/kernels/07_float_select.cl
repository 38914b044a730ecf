//! kernel float_select
//! groups 1 size 64
//! arg buffer f32 64 rand 13
//! arg buffer f32 64 rand 14
//! arg zeros 1024
// Compares, selects and NaN/infinity handling.
__kernel void float_select(__global const float *a, __global const float *b, __global int *out) {
    uint i = __builtin_amdgcn_workitem_id_x();
    float x = a[i], y = b[i];
    if (i % 7 == 0) x = __builtin_nanf("");
    if (i % 11 == 0) y = __builtin_inff();
    if (i % 13 == 0) y = -0.0f;
    __global int *o = out + i * 4;
    o[0] = (x < y) | (x <= y) << 1 | (x > y) << 2 | (x >= y) << 3 | (x == y) << 4 | (x != y) << 5;
    o[1] = (x != x) | __builtin_isinf(y) << 1 | __builtin_isfinite(x) << 2 | __builtin_signbit(y) << 3;
    float m = x < y ? x : y;
    o[2] = __builtin_bit_cast(int, m);
    o[3] = __builtin_bit_cast(int, x == x ? x : 1.5f);
}
