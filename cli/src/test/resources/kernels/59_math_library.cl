//! kernel math_library
//! library
//! groups 2 size 64
//! arg buffer f32 128 pos 59
//! arg zeros 8192
//! tolerance f32 16
// The OpenCL C math library as kernels call it, from ROCm's device libraries (ocml) on the device and glibc's libm
// natively. The widest limit among these is pow's: 16 ulps (OpenCL C 2.0, section 7.4, which ocml meets).
kernel void math_library(global const float *in, global float *out) {
    size_t i = get_global_id(0);
    float x = in[i];
    global float *o = out + i * 16;
    o[0] = sqrt(x);
    o[1] = rsqrt(x);
    o[2] = exp(x * 0.5f);
    o[3] = exp2(x);
    o[4] = log(x);
    o[5] = log2(x);
    o[6] = log10(x);
    o[7] = pow(x, 1.5f);
    o[8] = sin(x);
    o[9] = cos(x);
    o[10] = tan(x * 0.1f);
    o[11] = atan2(x, 3.0f);
    o[12] = tanh(x * 0.2f);
    o[13] = cbrt(x);
    o[14] = hypot(x, 2.0f);
    o[15] = fma(x, x, -1.0f);
}
