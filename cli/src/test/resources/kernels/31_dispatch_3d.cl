//! kernel dispatch_3d
//! groups 2,3,2 size 8,4,2
//! arg buffer u32 64 rand 46
//! arg zeros 12288
// A 3-D dispatch: work-item and group ids in y and z, group sizes and grid sizes in all three dimensions,
// the linear index built from them, and a uniform branch on the group's z.
__kernel void dispatch_3d(__global const uint *a, __global uint *out) {
    uint lx = __builtin_amdgcn_workitem_id_x(), ly = __builtin_amdgcn_workitem_id_y(), lz = __builtin_amdgcn_workitem_id_z();
    uint gx = __builtin_amdgcn_workgroup_id_x(), gy = __builtin_amdgcn_workgroup_id_y(), gz = __builtin_amdgcn_workgroup_id_z();
    uint sx = __builtin_amdgcn_workgroup_size_x(), sy = __builtin_amdgcn_workgroup_size_y(), sz = __builtin_amdgcn_workgroup_size_z();
    uint nx = __builtin_amdgcn_grid_size_x(), ny = __builtin_amdgcn_grid_size_y(), nz = __builtin_amdgcn_grid_size_z();
    uint x = gx * sx + lx, y = gy * sy + ly, z = gz * sz + lz;
    uint linear = (z * ny + y) * nx + x;
    uint flat = (lz * sy + ly) * sx + lx;
    __global uint *o = out + linear * 4;
    o[0] = x | y << 8 | z << 16 | flat << 24;
    o[1] = nx | ny << 8 | nz << 16 | (nx / sx) << 24;
    uint v = a[flat] ^ (gx * 0x01000193u + gy * 0x9e3779b9u);
    if (gz == 1) v = v >> (ly + lz) | gy;
    else v = v * (lx + 1) + ny / sy;
    o[2] = v;
    o[3] = (ly ^ lz) ? a[(flat * 7 + gz) & 63] : sz * 100 + sy * 10 + sx;
}
