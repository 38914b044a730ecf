//! kernel denormals
//! groups 1 size 64
//! arg buffer f32 64 unit 51
//! arg buffer f64 64 unit 52
//! arg zeros 3072
// Subnormal f32 and f64 operands and results (the code object asks for denormals kept, MODE.FP_DENORM 3):
// products and quotients that underflow, sums of subnormals, fma into the subnormal range, conversions
// between float, double and int, comparisons, and sqrt of a subnormal.
__kernel void denormals(__global const float *a, __global const double *b, __global uint *out) {
    uint i = __builtin_amdgcn_workitem_id_x();
    float x = a[i], t = a[(i + 17) & 63];
    double d = b[i];
    float tiny = x * 0x1p-126f;            // subnormal for |x| < 1
    float tiny2 = t * 0x1p-140f;
    double dtiny = d * 0x1p-1022;
    __global uint *o = out + i * 12;
    o[0] = __builtin_bit_cast(uint, tiny);
    o[1] = __builtin_bit_cast(uint, tiny + tiny2);
    o[2] = __builtin_bit_cast(uint, tiny * 0x1p20f);
    o[3] = __builtin_bit_cast(uint, __builtin_fmaf(tiny, t, tiny2));
    o[4] = __builtin_bit_cast(uint, (x * 1.0e-20f) * (t * 1.0e-20f));
    o[5] = (tiny < tiny2) | (tiny == 0.0f) << 1 | (tiny2 != 0.0f) << 2 | __builtin_isnormal(tiny) << 3;
    o[6] = __builtin_bit_cast(uint, (float) dtiny) ^ __builtin_bit_cast(uint, (float) (d * 1.0e-300));
    double back = (double) tiny;
    o[7] = (uint) __builtin_bit_cast(ulong, back);
    o[8] = (uint) (__builtin_bit_cast(ulong, back) >> 32);
    double prod = dtiny * 0x1p-30;
    o[9] = (uint) __builtin_bit_cast(ulong, prod) ^ (uint) (__builtin_bit_cast(ulong, prod) >> 32);
    o[10] = (uint) (int) (tiny * 0x1p126f * 0x1p20f) ^ __builtin_bit_cast(uint, __builtin_fabsf(tiny) - 0x1p-149f);
    o[11] = __builtin_bit_cast(uint, __builtin_sqrtf(__builtin_fabsf(tiny)));
}
