//! kernel lds_transpose
//! groups 2,2 size 16,16
//! arg buffer u32 1024 index 25
//! arg zeros 4096
// A 32x32 matrix transposed through a 16x16 LDS tile (2-D groups and work-items).
__kernel void lds_transpose(__global const uint *in, __global uint *out) {
    __local uint tile[16][17];
    uint lx = __builtin_amdgcn_workitem_id_x(), ly = __builtin_amdgcn_workitem_id_y();
    uint gx = __builtin_amdgcn_workgroup_id_x(), gy = __builtin_amdgcn_workgroup_id_y();
    tile[ly][lx] = in[(gy * 16 + ly) * 32 + gx * 16 + lx];
    __builtin_amdgcn_s_barrier();
    out[(gx * 16 + ly) * 32 + gy * 16 + lx] = tile[lx][ly];
}
