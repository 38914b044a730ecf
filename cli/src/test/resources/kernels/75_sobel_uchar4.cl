//! kernel sobel_uchar4
//! library
//! groups 4,4 size 8,8
//! arg buffer u8 4096 rand 84
//! arg zeros 4096
// A Sobel filter over a 32x32 RGBA image (uchar4 pixels): convert_int4 of the neighbours, the two gradients as
// int4, abs, add_sat, and convert_uchar4_sat back; clamped borders. Exact.
kernel void sobel_uchar4(global const uchar4 *img, global uchar4 *out) {
    int x = get_global_id(0), y = get_global_id(1), w = get_global_size(0), h = get_global_size(1);
#define P(dx, dy) convert_int4(img[clamp(y + (dy), 0, h - 1) * w + clamp(x + (dx), 0, w - 1)])
    int4 gx = -P(-1, -1) - 2 * P(-1, 0) - P(-1, 1) + P(1, -1) + 2 * P(1, 0) + P(1, 1);
    int4 gy = -P(-1, -1) - 2 * P(0, -1) - P(1, -1) + P(-1, 1) + 2 * P(0, 1) + P(1, 1);
#undef P
    uint4 m = add_sat(abs(gx) >> 1, abs(gy) >> 1); // abs of an int4 is a uint4
    out[y * w + x] = convert_uchar4_sat(m);
}
