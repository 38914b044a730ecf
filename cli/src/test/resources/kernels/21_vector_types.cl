//! kernel vector_types
//! groups 1 size 32
//! arg buffer f32 128 rand 32
//! arg buffer i32 128 small 33
//! arg zeros 1024
// float4 and int4 arithmetic, swizzles and component access.
__kernel void vector_types(__global const float4 *a, __global const int4 *b, __global float4 *out) {
    uint i = __builtin_amdgcn_workitem_id_x();
    float4 v = a[i];
    int4 k = b[i];
    float4 w = v * (float4) (2.0f, 0.5f, -1.0f, 4.0f) + (float4) ((float) k.x, (float) k.y, (float) k.z, (float) k.w);
    out[i * 2] = w.wzyx;
    out[i * 2 + 1] = (float4) (w.x + w.y, w.z * w.w, v.x - (float) k.w, (float) (k.x ^ k.z));
}
