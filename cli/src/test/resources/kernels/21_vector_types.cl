//! kernel vector_types
//! groups 1 size 32
//! arg buffer f32 128 rand 32
//! arg buffer i32 128 small 33
//! arg zeros 1024
// float4 and int4 arithmetic, swizzles and component access. Vectors are built component by component
// (OpenCL's (float4)(a, b, c, d) literal means something else in C, where the native build runs).
__kernel void vector_types(__global const float4 *a, __global const int4 *b, __global float4 *out) {
    uint i = __builtin_amdgcn_workitem_id_x();
    float4 v = a[i];
    int4 k = b[i];
    float4 scale, kf, w, r;
    scale.x = 2.0f; scale.y = 0.5f; scale.z = -1.0f; scale.w = 4.0f;
    kf.x = (float) k.x; kf.y = (float) k.y; kf.z = (float) k.z; kf.w = (float) k.w;
    w = v * scale + kf;
    out[i * 2] = w.wzyx;
    r.x = w.x + w.y; r.y = w.z * w.w; r.z = v.x - (float) k.w; r.w = (float) (k.x ^ k.z);
    out[i * 2 + 1] = r;
}
