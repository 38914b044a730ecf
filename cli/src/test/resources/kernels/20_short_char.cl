//! kernel short_char
//! groups 1 size 64
//! arg buffer i16 64 rand 30
//! arg buffer u8 64 rand 31
//! arg zeros 512
// 16-bit and 8-bit integer arithmetic with the usual promotions and truncations.
__kernel void short_char(__global const short *a, __global const uchar *b, __global short *out) {
    uint i = __builtin_amdgcn_workitem_id_x();
    short x = a[i];
    uchar c = b[i];
    __global short *o = out + i * 4;
    o[0] = (short) (x + c);
    o[1] = (short) (x * (short) c);
    o[2] = (short) ((ushort) x >> (c & 15));
    o[3] = (short) ((char) c - (x >> 3));
}
