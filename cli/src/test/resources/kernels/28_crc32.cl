//! kernel crc32
//! groups 1 size 64
//! arg buffer u8 4096 rand 41
//! arg zeros 256
// Bitwise CRC-32 over 64 bytes per work-item (shifts, xors, conditionals in a loop).
__kernel void crc32(__global const uchar *data, __global uint *out) {
    uint i = __builtin_amdgcn_workitem_id_x();
    uint crc = 0xffffffffu;
    for (uint k = 0; k < 64; k++) {
        crc ^= data[i * 64 + k];
        for (uint b = 0; b < 8; b++) crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
    }
    out[i] = ~crc;
}
