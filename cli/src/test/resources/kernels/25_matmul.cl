//! kernel matmul
//! groups 2,2 size 8,8
//! arg buffer f32 256 unit 38
//! arg buffer f32 256 unit 39
//! arg zeros 1024
// A 16x16 matrix product, one element per work-item, mul then add in order.
__kernel void matmul(__global const float *a, __global const float *b, __global float *c) {
    uint col = __builtin_amdgcn_workgroup_id_x() * 8 + __builtin_amdgcn_workitem_id_x();
    uint row = __builtin_amdgcn_workgroup_id_y() * 8 + __builtin_amdgcn_workitem_id_y();
    float acc = 0.0f;
    for (uint k = 0; k < 16; k++) acc = acc + a[row * 16 + k] * b[k * 16 + col];
    c[row * 16 + col] = acc;
}
