//! kernel saxpy
//! groups 4 size 64
//! arg f32 2.5
//! arg buffer f32 250 rand 1
//! arg buffer f32 256 rand 2
//! arg u32 250
// y = a*x + y with a partly idle last group; mul then add (no contraction).
__kernel void saxpy(float a, __global const float *x, __global float *y, uint n) {
    uint i = __builtin_amdgcn_workgroup_id_x() * __builtin_amdgcn_workgroup_size_x() + __builtin_amdgcn_workitem_id_x();
    if (i < n) y[i] = a * x[i] + y[i];
}
