//! kernel cross_lane
//! groups 2 size 128
//! arg buffer u32 256 rand 71
//! arg zeros 12288
// Cross-lane operations, every lane of every wave active (the results depend on the wave size, and the
// native build is told it): readfirstlane, readlane, ballot, mbcnt, ds_bpermute, ds_swizzle (bitmask and
// quad modes), DPP moves (quad_perm, row shifts and rotates with and without bound_ctrl, row mirrors,
// row_share, row_xmask), permlane16/permlanex16, and a wave reduction built from them.
__kernel void cross_lane(__global const uint *a, __global uint *out) {
    uint l = __builtin_amdgcn_workitem_id_x();
    uint g = __builtin_amdgcn_workgroup_id_x();
    uint x = a[g * 128 + l];
    uint lane = l % __AMDGCN_WAVEFRONT_SIZE;
    uint u = a[g * 7 + 3];                               // uniform: lane and permlane selects must be
    __global uint *o = out + (g * 128 + l) * 12;
    o[0] = __builtin_amdgcn_readfirstlane(x) ^ __builtin_amdgcn_readlane(x, 5) ^ __builtin_amdgcn_readlane(x, u % __AMDGCN_WAVEFRONT_SIZE);
#if __AMDGCN_WAVEFRONT_SIZE == 64
    ulong mask = __builtin_amdgcn_ballot_w64((x & 3) == 1);
#else
    ulong mask = __builtin_amdgcn_ballot_w32((x & 3) == 1);
#endif
    o[1] = (uint) mask ^ (uint) (mask >> 32) * 3u;
    o[2] = __builtin_amdgcn_mbcnt_hi((uint) (mask >> 32), __builtin_amdgcn_mbcnt_lo((uint) mask, l));
    o[3] = (uint) __builtin_amdgcn_ds_bpermute((int) ((x % __AMDGCN_WAVEFRONT_SIZE) * 4), (int) (x * 7u)) + (uint) __builtin_amdgcn_ds_bpermute((int) ((lane ^ 1) << 2), (int) l);
    o[4] = (uint) __builtin_amdgcn_ds_swizzle((int) x, 0x041f) ^ (uint) __builtin_amdgcn_ds_swizzle((int) x, 0x00e7) * 5u
            ^ (uint) __builtin_amdgcn_ds_swizzle((int) x, 0x801b) * 9u;
    o[5] = (uint) __builtin_amdgcn_mov_dpp((int) x, 0x1b, 0xf, 0xf, false) + (uint) __builtin_amdgcn_update_dpp((int) l, (int) x, 0x111, 0xf, 0xf, false) * 3u;
    o[6] = (uint) __builtin_amdgcn_update_dpp((int) l, (int) x, 0x103, 0xf, 0xf, true) ^ (uint) __builtin_amdgcn_update_dpp((int) l, (int) x, 0x125, 0xf, 0xf, false) * 7u;
    o[7] = (uint) __builtin_amdgcn_mov_dpp((int) x, 0x140, 0xf, 0xf, false) + (uint) __builtin_amdgcn_mov_dpp((int) x, 0x141, 0xf, 0xf, false) * 11u;
    o[8] = (uint) __builtin_amdgcn_mov_dpp((int) x, 0x153, 0xf, 0xf, false) ^ (uint) __builtin_amdgcn_mov_dpp((int) x, 0x16a, 0xf, 0xf, false) * 13u;
    o[9] = __builtin_amdgcn_permlane16(l, x, 0x76543210u ^ u, 0xfedcba98u, false, false) + __builtin_amdgcn_permlanex16(l, x, 0x01234567u, 0x89abcdefu ^ (u & 0x0f0f0f0f), false, false) * 3u;
    uint s = x;                                          // a wave sum: xmask butterflies, then across rows
    s += (uint) __builtin_amdgcn_mov_dpp((int) s, 0x161, 0xf, 0xf, false);
    s += (uint) __builtin_amdgcn_mov_dpp((int) s, 0x162, 0xf, 0xf, false);
    s += (uint) __builtin_amdgcn_mov_dpp((int) s, 0x164, 0xf, 0xf, false);
    s += (uint) __builtin_amdgcn_mov_dpp((int) s, 0x168, 0xf, 0xf, false);
    s += __builtin_amdgcn_permlanex16(s, s, 0u, 0u, false, false);
    o[10] = s;
    o[11] = __builtin_amdgcn_readlane(s, 0) + __builtin_amdgcn_readlane(s, __AMDGCN_WAVEFRONT_SIZE - 1);
}
