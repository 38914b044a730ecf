//! kernel private_array
//! groups 2 size 32
//! arg buffer u32 64 rand 28
//! arg zeros 256
// A private array indexed at run time (scratch memory), per lane.
__kernel void private_array(__global const uint *a, __global uint *out) {
    uint i = __builtin_amdgcn_workgroup_id_x() * 32 + __builtin_amdgcn_workitem_id_x();
    uint p[40];
    uint x = a[i];
    for (uint k = 0; k < 40; k++) p[k] = x * (k + 1) ^ (k << 3);
    uint s = 0;
    for (uint k = 0; k < 40; k++) s += p[(x + k * 7) % 40] * (k & 3);
    out[i] = s ^ p[x % 40];
}
