//! kernel hip_math
//! groups 2 size 64
//! arg buffer f32 128 pos 92
//! arg zeros 4096
//! tolerance f32 16
// HIP's C math on the device: sqrtf, rsqrtf, expf, logf, powf, sinf, cosf, atan2f, tanhf, fminf, fmaxf, floorf, the
// double sqrt and exp, the C++ float overloads (sqrt(float)) and __expf; ocml on the device, glibc natively. The
// widest limit is powf's: 16 ulps (HIP documents ocml's limits, the OpenCL ones).
__global__ void hip_math(const float *in, float *out) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    float x = in[i];
    float *o = out + i * 8;
    o[0] = sqrtf(x) + rsqrtf(x);
    o[1] = expf(x * 0.5f) + logf(x);
    o[2] = powf(x, 0.75f);
    o[3] = sinf(x) + 2.0f * cosf(x) + 4.0f;
    o[4] = atan2f(x, 2.0f) + tanhf(x * 0.3f);
    o[5] = fminf(x, 3.0f) + fmaxf(x, 5.0f) + floorf(x * 4.0f);
    o[6] = (float) (sqrt((double) x) * exp((double) x * 0.1));
    o[7] = sqrt(x) + __expf(x * 0.25f);
}
