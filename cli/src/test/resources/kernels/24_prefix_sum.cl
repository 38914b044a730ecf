//! kernel prefix_sum
//! groups 2 size 128
//! arg buffer u32 256 small 37
//! arg zeros 1024
// Inclusive scan of 128 values per group (Hillis-Steele in LDS with double buffering).
__kernel void prefix_sum(__global const uint *in, __global uint *out) {
    __local uint buf[2][128];
    uint l = __builtin_amdgcn_workitem_id_x();
    uint g = __builtin_amdgcn_workgroup_id_x();
    uint cur = 0;
    buf[0][l] = in[g * 128 + l];
    __builtin_amdgcn_s_barrier();
    for (uint off = 1; off < 128; off <<= 1) {
        uint v = buf[cur][l];
        if (l >= off) v += buf[cur][l - off];
        buf[cur ^ 1][l] = v;
        cur ^= 1;
        __builtin_amdgcn_s_barrier();
    }
    out[g * 128 + l] = buf[cur][l];
}
