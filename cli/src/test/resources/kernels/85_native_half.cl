//! kernel native_half
//! library
//! groups 2 size 64
//! arg buffer f32 128 pos 85
//! arg buffer f32 128 unit 185
//! arg zeros 12288
//! tolerance f32 2
// native_* and half_* as kernels call them for speed: ocml maps them to the hardware's approximations
// (v_sqrt_f32, v_rsq_f32, v_rcp_f32, v_exp_f32, v_log_f32: 1 ulp each in the RDNA 2 ISA guide) or to its own
// functions; natively they are glibc's libm. Only the functions whose error is relative are here, on inputs where
// it stays so (x in [0.125, 10.125), u in [-1, 1)): native_sin/cos/tan have an absolute error near zero crossings,
// which no ulps limit describes. 2 ulps: the hardware's 1 against a correctly rounded reference; the composed ones
// (exp10 as exp2(x * log2(10)), measured: 2 of 128 words 2 ulps apart, none at 1 ulp beyond) add one.
kernel void native_half(global const float *in, global const float *unit, global float *out) {
    size_t i = get_global_id(0);
    float x = in[i];
    float u = unit[i];
    global float *o = out + i * 24;
    o[0] = native_sqrt(x);
    o[1] = native_rsqrt(x);
    o[2] = native_recip(x);
    o[3] = native_divide(u, x);
    o[4] = native_exp2(u * 4.0f);
    o[5] = native_log2(x);
    o[6] = native_exp(u);
    o[7] = native_log(x);
    o[8] = native_exp10(u);
    o[9] = native_log10(x);
    o[10] = native_powr(x, 0.5f);
    o[11] = half_sqrt(x);
    o[12] = half_rsqrt(x);
    o[13] = half_recip(x);
    o[14] = half_divide(u, x);
    o[15] = half_exp2(u * 4.0f);
    o[16] = half_log2(x);
    o[17] = half_exp(u);
    o[18] = half_log(x);
    o[19] = half_exp10(u);
    o[20] = half_log10(x);
    o[21] = half_powr(x, 0.5f);
    float4 v = (float4)(x, x + 1.0f, x + 2.0f, x + 3.0f);
    float4 r = native_sqrt(v) + half_recip(v);
    o[22] = r.x + r.y;
    o[23] = r.z - r.w;
}
