//! kernel bitonic_sort
//! groups 2 size 64
//! arg buffer u32 128 rand 36
//! arg zeros 512
// Bitonic sort of 64 keys per group in LDS.
__kernel void bitonic_sort(__global const uint *in, __global uint *out) {
    __local uint k[64];
    uint l = __builtin_amdgcn_workitem_id_x();
    uint g = __builtin_amdgcn_workgroup_id_x();
    k[l] = in[g * 64 + l];
    __builtin_amdgcn_s_barrier();
    for (uint size = 2; size <= 64; size <<= 1) {
        for (uint stride = size >> 1; stride > 0; stride >>= 1) {
            uint p = l ^ stride;
            uint a = k[l], b = k[p];
            __builtin_amdgcn_s_barrier();
            if (p > l) {
                int up = (l & size) == 0;
                if ((a > b) == up) { k[l] = b; k[p] = a; }
            }
            __builtin_amdgcn_s_barrier();
        }
    }
    out[g * 64 + l] = k[l];
}
