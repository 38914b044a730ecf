//! kernel vload_vstore
//! library
//! groups 2 size 64
//! arg buffer f32 1024 unit 68
//! arg buffer f16 1024 unit 69
//! arg zeros 8192
//! arg zeros 2048
// vload/vstore at element offsets (unaligned for their vector size), vload3, and the half loads and stores that
// convert: vload_half, vload_half4, vstore_half (round to nearest even), vstore_half_rtz. Exact.
kernel void vload_vstore(global const float *a, global const half *h, global float *out, global half *hout) {
    size_t i = get_global_id(0);
    float4 x = vload4(0, a + i * 3 + 1);
    float3 y = vload3(i, a + 512);
    float2 z = vload2(i * 2 + 1, a);
    vstore4(x * 2.0f, 0, out + i * 16 + 1);
    vstore3(y + 1.0f, 0, out + i * 16 + 5);
    vstore2(z, 4, out + i * 16);
    float hf = vload_half(i, h);
    float4 h4 = vload_half4(i, h + 256);
    out[i * 16 + 13] = hf;
    out[i * 16 + 14] = h4.x + h4.y;
    out[i * 16 + 15] = h4.z * h4.w;
    vstore_half(x.x * 3.0f, i * 4, hout);
    vstore_half_rtz(x.y * 3.0f, i * 4 + 1, hout);
    vstore_half4(h4 * 0.5f, i, hout + 512);
}
