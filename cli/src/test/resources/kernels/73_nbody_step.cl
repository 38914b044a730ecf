//! kernel nbody_step
//! library
//! groups 2 size 64
//! arg buffer f32 512 unit 81
//! arg zeros 2048
//! arg f32 0.01
// One n-body step as the SDK sample writes it: float4 positions (w the mass), each body sums the pull of every
// other through a __local tile, with rsqrt of the softened distance. rsqrt on the device is ocml's (v_rsq_f32 and a
// refinement); 64 bodies' contributions summed: compared within 64 ulps.
//! tolerance f32 64
kernel void nbody_step(global const float4 *pos, global float4 *out, float dt) {
    local float4 tile[64];
    size_t i = get_global_id(0), l = get_local_id(0);
    float4 p = pos[i];
    float3 acc = (float3)(0.0f, 0.0f, 0.0f);
    for (size_t base = 0; base < get_global_size(0); base += 64) {
        tile[l] = pos[base + l];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int j = 0; j < 64; j++) {
            float4 q = tile[j];
            float3 d = q.xyz - p.xyz;
            float r2 = dot(d, d) + 0.01f;
            float inv = rsqrt(r2);
            acc += d * (fabs(q.w) * inv * inv * inv);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    out[i] = (float4)(p.xyz + acc * dt, p.w);
}
