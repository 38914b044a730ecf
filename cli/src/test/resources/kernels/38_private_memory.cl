//! kernel private_memory
//! groups 2 size 32
//! arg buffer u32 64 rand 59
//! arg zeros 1024
// Private memory indexed at run time: a large int array, a byte array (sub-dword scratch stores and
// loads), an array of structs with a double member, and a short array, all per lane.
typedef struct { uint key; double weight; ushort tag; } entry;

__kernel void private_memory(__global const uint *a, __global uint *out) {
    uint i = __builtin_amdgcn_workgroup_id_x() * 32 + __builtin_amdgcn_workitem_id_x();
    uint x = a[i];
    uint big[72];
    uchar bytes[61];
    short shorts[27];
    entry e[9];
    for (uint k = 0; k < 72; k++) big[k] = x ^ (k * 0x9e3779b9u);
    for (uint k = 0; k < 61; k++) bytes[k] = (uchar) (x >> (k & 31)) + (uchar) k;
    for (uint k = 0; k < 27; k++) shorts[k] = (short) (x * (k + 1)) - (short) 1000;
    for (uint k = 0; k < 9; k++) {
        e[k].key = big[(x + k * 23) % 72];
        e[k].weight = (double) bytes[(k * 7 + x) % 61] * 0.25;
        e[k].tag = (ushort) shorts[(x >> k) % 27];
    }
    for (uint k = 0; k < 20; k++) {
        uint j = (x + k * 37) % 72;
        big[j] += bytes[(j * 3) % 61];
        bytes[(j + x) % 61] ^= (uchar) j;
        shorts[j % 27] += (short) big[(j * 11) % 72];
    }
    uint s = 0;
    double w = 0.0;
    for (uint k = 0; k < 9; k++) {
        uint m = (x >> (k * 3)) % 9;
        s += e[m].key ^ e[k].tag;
        w += e[m].weight * (double) (k + 1);
    }
    __global uint *o = out + i * 4;
    o[0] = s;
    o[1] = big[x % 72] + big[(x >> 8) % 72];
    o[2] = (uint) bytes[x % 61] | (uint) bytes[(x >> 5) % 61] << 8 | (uint) (ushort) shorts[(x >> 9) % 27] << 16;
    o[3] = (uint) (long) (w * 8.0);
}
