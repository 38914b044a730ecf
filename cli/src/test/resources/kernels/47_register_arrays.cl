//! kernel register_arrays
//! groups 2 size 64
//! arg buffer f32 512 unit 73
//! arg buffer u32 128 rand 74
//! arg zeros 5632
// Small private arrays indexed at run time that the compiler keeps in registers (v_movrels/v_movreld
// with M0 for uniform indices, select chains for divergent ones), 12-byte xyz loads and stores
// (dwordx3), and LDS tiles read and written in pairs at offsets (ds_read2/ds_write2, 128-bit accesses).
typedef struct { float x, y, z; } xyz_t;   // vload3/vstore3's layout: 12 bytes, 4-byte aligned
typedef float float4_t __attribute__((ext_vector_type(4)));

__kernel void register_arrays(__global const float *f, __global const uint *a, __global float *out) {
    __local float tile[64 * 5];
    __local float4_t quads[64];
    uint l = __builtin_amdgcn_workitem_id_x();
    uint g = __builtin_amdgcn_workgroup_id_x();
    uint i = g * 64 + l;
    uint x = a[i];
    uint r[8];
    float v[6];
    for (uint k = 0; k < 8; k++) r[k] = x ^ (k * 0x01010101u);
    for (uint k = 0; k < 6; k++) v[k] = f[i * 4 + (k & 3)] * (float) (k + 1);
    uint u = a[g * 3 + 1];                            // uniform: v_movrels/v_movreld with M0
    uint w[16];
    for (uint k = 0; k < 16; k++) w[k] = x ^ (k * 0x00102030u);
    w[u & 15] += 0x1000;
    w[(u >> 5) & 15] ^= w[(u >> 10) & 15];
    r[x & 7] += 0x1000;
    r[(x >> 3) & 7] ^= r[(x >> 6) & 7];
    v[(x >> 9) % 6] = v[(x >> 12) % 6] + 1.0f;
    xyz_t p = *(__global const xyz_t *) (f + (i * 3) % 500);
    xyz_t q;
    q.x = p.y * v[x % 6]; q.y = p.z - v[(x >> 4) % 6]; q.z = p.x + (float) r[(x >> 20) & 7];
    *(__global xyz_t *) (out + 1024 + i * 3) = q;
    for (uint k = 0; k < 5; k++) tile[l * 5 + k] = v[k] + (float) k;
    quads[l].x = p.x; quads[l].y = p.y; quads[l].z = p.z; quads[l].w = v[5];
    __builtin_amdgcn_s_barrier();
    uint n = (l + 1) & 63, m = (l + 32) & 63;
    float s = tile[n * 5] + tile[n * 5 + 1] * tile[m * 5 + 4] - tile[l * 5 + 2] + tile[(l ^ 1) * 5 + 3];
    float4_t qq = quads[n];
    __global float *o = out + i * 4;
    o[0] = s;
    o[1] = qq.x * qq.w - qq.y;
    o[2] = __builtin_bit_cast(float, r[x % 8] + r[(x >> 24) & 7] + w[(u >> 15) & 15] * 3u + w[(x >> 20) & 15]);
    o[3] = v[(x >> 16) % 6] * qq.z;
}
