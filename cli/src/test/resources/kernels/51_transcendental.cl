//! kernel transcendental
//! groups 1 size 64
//! arg buffer f32 128 rand 79
//! arg zeros 2048
//! tolerance f32 4
// f32 exp2, exp, exp10, log2, log, log10, reciprocal, division and reciprocal square root, including
// their range-reduction and denormal-scaling paths: arguments from the subnormal range to overflow, zeros,
// infinities, negative values. The device builds them from v_exp_f32 / v_log_f32 / v_rcp_f32 /
// v_rsq_f32, which the ISA guide gives as 1-ulp approximations (the model rounds the exact value), so
// results are compared within 4 ulps; infinities, zeros and NaN must match exactly.
static float arg(uint i, float x) {
    switch (i % 16) {
    case 0: return 0.0f;
    case 1: return -0.0f;
    case 2: return __builtin_inff();
    case 3: return -__builtin_inff();
    case 4: return 0x1p-140f * (1.0f + x * x);
    case 5: return x * 1.0e36f;
    case 6: return -x * x;
    case 7: return 88.0f + x * 0.01f;
    case 8: return -87.0f - x * 0.05f;
    case 9: return 1.0f + x * 1.0e-7f;
    default: return x * (float) (i % 7);
    }
}

__kernel void transcendental(__global const float *a, __global float *out) {
    uint i = __builtin_amdgcn_workitem_id_x();
    float x = arg(i, a[i]), y = arg(i / 16 + i * 3, a[i + 64]);
    __global float *o = out + i * 8;
    o[0] = __builtin_exp2f(x * 0.25f);
    o[1] = __builtin_expf(x);
    o[2] = __builtin_log2f(x);
    o[3] = __builtin_logf(__builtin_fabsf(y));
    o[4] = __builtin_log10f(x) + __builtin_exp10f(y * 0.01f);
    o[5] = 1.0f / x;
    o[6] = x / y;
    o[7] = 1.0f / __builtin_sqrtf(__builtin_fabsf(x));
}
