//! kernel approx_math
//! groups 1 size 64
//! arg buffer f32 64 pos 45
//! arg zeros 1024
//! tolerance f32 4
// Square root, division, reciprocal square root: the device approximates some of these; compared within 4 ulps.
__kernel void approx_math(__global const float *a, __global float *out) {
    uint i = __builtin_amdgcn_workitem_id_x();
    float x = a[i];
    __global float *o = out + i * 4;
    o[0] = __builtin_sqrtf(x);
    o[1] = 1.0f / x;
    o[2] = x / (x + 3.0f);
    o[3] = 1.0f / __builtin_sqrtf(x + 1.0f);
}
