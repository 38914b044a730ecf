//! kernel float_arith
//! groups 2 size 64
//! arg buffer f32 128 rand 11
//! arg buffer f32 128 unit 12
//! arg zeros 4096
// f32 add, sub, mul, fma (fused on both sides), min, max, abs, copysign.
__kernel void float_arith(__global const float *a, __global const float *b, __global float *out) {
    uint i = __builtin_amdgcn_workgroup_id_x() * 64 + __builtin_amdgcn_workitem_id_x();
    float x = a[i], y = b[i];
    __global float *o = out + i * 8;
    o[0] = x + y;
    o[1] = x - y * 3.0f;
    o[2] = x * y;
    o[3] = __builtin_fmaf(x, y, -x);
    o[4] = __builtin_fminf(x, y);
    o[5] = __builtin_fmaxf(x, -y);
    o[6] = __builtin_fabsf(x) * 0.5f;
    o[7] = __builtin_copysignf(y, x) + 1.0f;
}
