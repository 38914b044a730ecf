//! kernel float_rounding
//! groups 2 size 64
//! arg buffer f32 128 rand 49
//! arg buffer i32 128 small 50
//! arg zeros 6144
// Rounding to integral values (floor, ceil, rint, trunc, round half away from zero), fract and modf
// spelled as OpenCL defines them, frexp and ldexp (into and out of the subnormal range), copysign, and
// fmin/fmax with a quiet NaN operand, over ordinary values, ties, large values and special values.
// A result that may be NaN is written as a flag: the NaN's bits are the device's business.
static float special(uint i, float x) {
    switch (i % 16) {
    case 0: return 0.5f;
    case 1: return -2.5f;
    case 2: return 1.5f;
    case 3: return -0.0f;
    case 4: return 8388607.5f;
    case 5: return -8388609.0f;
    case 6: return 3.0e9f;
    case 7: return __builtin_inff();
    case 8: return -__builtin_inff();
    case 9: return __builtin_nanf("");
    case 10: return 1.0e-40f;
    case 11: return -0.49999997f;
    case 12: return x * 1.0e-30f;
    default: return x;
    }
}

__kernel void float_rounding(__global const float *a, __global const int *n, __global uint *out) {
    uint i = __builtin_amdgcn_workgroup_id_x() * 64 + __builtin_amdgcn_workitem_id_x();
    float x = special(i, a[i]);
    float y = a[(i * 5 + 1) & 127];
    int e = n[i] * 3;
    __global uint *o = out + i * 12;
    int nan = x != x;
    o[0] = nan ? 1 : __builtin_bit_cast(uint, __builtin_floorf(x));
    o[1] = nan ? 1 : __builtin_bit_cast(uint, __builtin_ceilf(x));
    o[2] = nan ? 1 : __builtin_bit_cast(uint, __builtin_rintf(x));
    o[3] = nan ? 1 : __builtin_bit_cast(uint, __builtin_truncf(x));
    o[4] = nan ? 1 : __builtin_bit_cast(uint, __builtin_roundf(x));
    float fl = __builtin_floorf(x);
    float fr = __builtin_fminf(x - fl, 0x1.fffffep-1f);
    o[5] = (fr != fr) ? 1 : __builtin_bit_cast(uint, fr);
    float whole = __builtin_truncf(x);
    o[6] = nan || __builtin_isinf(x) ? 2 : __builtin_bit_cast(uint, __builtin_copysignf(x - whole, x));
    int ex = 0;
    float mant = __builtin_frexpf(x, &ex);
    o[7] = (mant != mant) ? 1 : __builtin_bit_cast(uint, mant);
    o[8] = __builtin_isfinite(x) ? (uint) ex : 0xdead;
    float ld = __builtin_ldexpf(x, e);
    o[9] = (ld != ld) ? 1 : __builtin_bit_cast(uint, ld);
    o[10] = __builtin_bit_cast(uint, __builtin_copysignf(y, x)) ^ __builtin_bit_cast(uint, __builtin_copysignf(1.0f, y));
    float mn = __builtin_fminf(x, y), mx = __builtin_fmaxf(y, x);
    o[11] = __builtin_bit_cast(uint, mn) ^ __builtin_bit_cast(uint, mx) * 3u;
}
