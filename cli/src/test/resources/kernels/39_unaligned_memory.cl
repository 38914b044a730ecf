//! kernel unaligned_memory
//! groups 1 size 64
//! arg buffer u8 1100 rand 60
//! arg buffer u8 1100 rand 61
//! arg zeros 1984
// Loads and stores at odd addresses: dwords, 64-bit values and float4 through packed structs (one byte
// aligned), char3/short3 vectors, signed and unsigned bytes and shorts, halves written into the high part
// of a register, and vload/vstore-style element-aligned vector accesses.
typedef char char3_t __attribute__((ext_vector_type(3)));
typedef short short3_t __attribute__((ext_vector_type(3)));
typedef float float4_t __attribute__((ext_vector_type(4)));
typedef uint uint2_t __attribute__((ext_vector_type(2)));
typedef struct __attribute__((packed)) { uchar pad; uint word; ulong wide; ushort half_word; } packed_t;
typedef struct __attribute__((packed)) { uchar pad[3]; float4_t v; } packed_vec;

__kernel void unaligned_memory(__global const uchar *in, __global const uchar *in2, __global uchar *out) {
    uint i = __builtin_amdgcn_workitem_id_x();
    __global const packed_t *p = (__global const packed_t *) (in + i * 15 + (i & 3));
    uint w = p->word;
    ulong q = p->wide;
    ushort h = p->half_word;
    __global const packed_vec *pv = (__global const packed_vec *) (in2 + i * 17);
    float4_t v = pv->v;
    char3_t c3 = *(__global const char3_t *) (in2 + (i & ~3u) * 4);
    short3_t s3 = *(__global const short3_t *) (in + 200 + i * 8);
    __global const uint *elems = (__global const uint *) (in + 600 + (i & ~3u) * 2);
    uint2_t pair;
    pair.x = elems[0] + elems[3];
    pair.y = elems[1] ^ elems[2];
    char sb = (char) in[i * 7 + 3];
    short ss = *(__global const short *) (in2 + 900 + i * 2);
    // stores: a packed struct at an odd offset, a char3 (4 bytes), bytes and shorts
    __global packed_t *po = (__global packed_t *) (out + i * 27 + 1);
    po->pad = (uchar) i;
    po->word = w * 3u + (uint) sb;
    po->wide = q ^ ((ulong) w << 17);
    po->half_word = (ushort) (h + (ushort) ss);
    __global uchar *tail = out + i * 27 + 16;
    int vi = (v.x == v.x ? 4 : 0) + (__builtin_isfinite(v.y) ? 1 : 0) + (v.z == v.w ? 2 : 0);
    char3_t r3;
    r3.x = c3.x + (char) vi; r3.y = c3.y ^ (char) s3.z; r3.z = (char) (c3.z >> 1);
    *(__global char3_t *) (out + 1728 + i * 4) = r3;
    out[1728 + i * 4 + 3] = (uchar) vi;    // a char3 store may write its fourth byte: give it a value
    tail[0] = (uchar) (s3.x >> 3);
    *(__global ushort *) (tail + 1) = (ushort) (s3.y + s3.x);
    *(__global uint2_t *) (tail + 3) = pair;
}
