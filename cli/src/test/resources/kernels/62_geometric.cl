//! kernel geometric
//! library
//! groups 2 size 64
//! arg buffer f32 512 unit 64
//! arg buffer f32 512 unit 65
//! arg zeros 8192
//! tolerance f32 8
// Geometric functions on float4 and float3 (stored as float4 rows): dot, cross, length, distance, normalize.
// ocml computes them with fused multiply-adds and scaling; the comparison allows 8 ulps (length and normalize
// are a square root of a sum, OpenCL's limit for them is implementation-defined, ocml documents 3 ulps + sqrt's).
kernel void geometric(global const float4 *a, global const float4 *b, global float *out) {
    size_t i = get_global_id(0);
    float4 p = a[i], q = b[i];
    float3 u = p.xyz, w = q.xyz;
    global float *o = out + i * 16;
    o[0] = dot(p, q) + 4.0f;
    o[1] = dot(u, w) + 4.0f;
    float3 c = cross(u, w) + (float3)(2.0f);
    o[2] = c.x;
    o[3] = c.y;
    o[4] = c.z;
    o[5] = length(p);
    o[6] = length(u);
    o[7] = distance(p, q);
    float4 n = normalize(p);
    o[8] = n.x + 2.0f;
    o[9] = n.y + 2.0f;
    o[10] = n.z + 2.0f;
    o[11] = n.w + 2.0f;
    float2 h = (float2)(p.x, q.y);
    o[12] = length(h);
    o[13] = dot(h, h) + 1.0f;
    o[14] = fast_length(u);
    o[15] = distance(u.x, w.x);
}
