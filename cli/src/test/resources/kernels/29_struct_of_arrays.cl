//! kernel soa_update
//! groups 2 size 64
//! arg buffer f32 128 rand 42
//! arg buffer f32 128 rand 43
//! arg buffer i32 128 small 44
//! arg f32 0.125
// Particle update over three arrays with a per-particle branch and a clamp.
__kernel void soa_update(__global float *pos, __global float *vel, __global const int *kind, float dt) {
    uint i = __builtin_amdgcn_workgroup_id_x() * 64 + __builtin_amdgcn_workitem_id_x();
    float v = vel[i];
    if (kind[i] > 0) v = v * 0.99f - 9.8f * dt; else v = -v * 0.5f;
    float p = pos[i] + v * dt;
    if (p < -50.0f) { p = -50.0f; v = -v; }
    if (p > 50.0f) { p = 50.0f; v = -v; }
    pos[i] = p;
    vel[i] = v;
}
