//! kernel conversions
//! groups 1 size 64
//! arg buffer i32 64 rand 15
//! arg buffer f32 64 rand 16
//! arg zeros 2048
// int <-> float <-> double conversions (rounding, truncation, in-range values).
__kernel void conversions(__global const int *a, __global const float *b, __global int *out) {
    uint i = __builtin_amdgcn_workitem_id_x();
    int x = a[i];
    float f = b[i];
    __global int *o = out + i * 8;
    o[0] = __builtin_bit_cast(int, (float) x);
    o[1] = __builtin_bit_cast(int, (float) (uint) x);
    o[2] = (int) f;
    o[3] = (int) (uint) __builtin_fabsf(f);
    double d = (double) f * 3.0;
    o[4] = (int) d;
    o[5] = __builtin_bit_cast(int, (float) d);
    o[6] = __builtin_bit_cast(int, (float) (long) x * 1.5f);
    o[7] = (int) (long) (d * 1000.0);
}
