//! kernel local_arg_layout
//! groups 3 size 64
//! arg buffer u32 192 rand 82
//! arg local 67
//! arg zeros 3072
//! arg local 2048
//! arg i32 5
// Two __local arguments around a global one, after the kernel's static __local arrays: a 67-byte uchar
// allocation (pointee alignment 1) then a double4 one (pointee alignment 32, so it starts on a 32-byte
// boundary after padding). Every work-item fills all four areas, then reads its neighbours' entries back:
// an allocation overlapping another, or the static LDS, shows in the output, and so does a misaligned one
// (the low address bits are part of the output; the native buffers are 128-byte aligned).
__kernel void local_arg_layout(__global const uint *in, __local uchar *bytes, __global uint *out,
                               __local double4 *wide, int shift) {
    __local uint st[5];
    __local ushort st2[3];
    uint l = __builtin_amdgcn_workitem_id_x();
    uint g = __builtin_amdgcn_workgroup_id_x();
    uint v = in[g * 64 + l];
    if (l < 5) st[l] = v ^ 0xdeadbeefu;
    if (l < 3) {
        st2[l] = (ushort) (v >> 3);
        bytes[64 + l] = (uchar) (v >> 8);
    }
    bytes[l] = (uchar) v;
    double4 d; // built component by component: (double4)(a, b, c, d) means something else in C
    d.x = (double) v;
    d.y = (double) (v >> shift);
    d.z = -(double) l;
    d.w = 0.5 * (double) v;
    wide[l] = d;
    __builtin_amdgcn_s_barrier();
    uint r = (l + 1) % 64;
    double4 w = wide[r];
    __global uint *o = out + (g * 64 + l) * 4;
    o[0] = bytes[r] | (uint) bytes[(l * 7) % 67] << 8 | (uint) st2[l % 3] << 16;
    o[1] = st[l % 5] ^ ((uint) (size_t) wide & 31u) ^ ((uint) (size_t) st & 3u) << 5;
    o[2] = (uint) (long) (w.x + w.y);
    o[3] = (uint) (long) (w.z * 4.0 + w.w * 2.0);
}
