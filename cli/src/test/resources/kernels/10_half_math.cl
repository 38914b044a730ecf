//! kernel half_math
//! groups 1 size 64
//! arg buffer f16 64 unit 19
//! arg buffer f16 64 pos 20
//! arg zeros 512
// 16-bit float arithmetic.
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
__kernel void half_math(__global const half *a, __global const half *b, __global half *out) {
    uint i = __builtin_amdgcn_workitem_id_x();
    half x = a[i], y = b[i];
    __global half *o = out + i * 4;
    o[0] = x + y;
    o[1] = x * y;
    o[2] = x - y * (half) 2.0f;
    o[3] = x < y ? x : y;
}
