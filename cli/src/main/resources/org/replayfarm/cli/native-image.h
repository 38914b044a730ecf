/* OpenCL C images and samplers for the native reference, written from the OpenCL C 2.0 specification (section
 * 6.13.14, image read and write functions, and the OpenCL 2.0 API specification's section 4.2 "Image Addressing
 * and Filtering"): addressing modes, nearest and linear filtering, normalized coordinates, the channel data types
 * and orders below, reads, writes and queries. Independent of the device: no T#, no S#, no 8-bit sub-texel
 * fraction (linear weights are computed in float, as the specification writes them).
 *
 * An image is a pointer to a struct holding __replay_image (one struct type per dimension; the coordinate's type
 * picks the dimension of a read or write); a sampler is its CLK_* bits. Texels are stored as the format lays them out, rows packed. */

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define read_only
#define write_only
#define read_write
#define __read_only
#define __write_only
#define __read_write

#define CLK_ADDRESS_NONE 0
#define CLK_ADDRESS_CLAMP_TO_EDGE 2
#define CLK_ADDRESS_CLAMP 4
#define CLK_ADDRESS_REPEAT 6
#define CLK_ADDRESS_MIRRORED_REPEAT 8
#define CLK_NORMALIZED_COORDS_FALSE 0
#define CLK_NORMALIZED_COORDS_TRUE 1
#define CLK_FILTER_NEAREST 0x10
#define CLK_FILTER_LINEAR 0x20

#define CLK_SNORM_INT8 0x10D0
#define CLK_SNORM_INT16 0x10D1
#define CLK_UNORM_INT8 0x10D2
#define CLK_UNORM_INT16 0x10D3
#define CLK_SIGNED_INT8 0x10D7
#define CLK_SIGNED_INT16 0x10D8
#define CLK_SIGNED_INT32 0x10D9
#define CLK_UNSIGNED_INT8 0x10DA
#define CLK_UNSIGNED_INT16 0x10DB
#define CLK_UNSIGNED_INT32 0x10DC
#define CLK_HALF_FLOAT 0x10DD
#define CLK_FLOAT 0x10DE
#define CLK_R 0x10B0
#define CLK_A 0x10B1
#define CLK_RG 0x10B2
#define CLK_RA 0x10B3
#define CLK_RGB 0x10B4
#define CLK_RGBA 0x10B5
#define CLK_BGRA 0x10B6

typedef struct __replay_image {
    unsigned char *texels;
    int width, height, depth;
    int channel_type; /* CLK_* data type */
    int channel_order; /* CLK_R, CLK_RG, CLK_RGBA or CLK_BGRA */
} __replay_image;
/* one struct per dimension, so get_image_dim can answer int2 or int4 as the parameter's type says */
typedef struct __replay_image1d { __replay_image base; } *image1d_t;
typedef struct __replay_image2d { __replay_image base; } *image2d_t;
typedef struct __replay_image3d { __replay_image base; } *image3d_t;
typedef unsigned int sampler_t;

static void *__replay_image_make(void *texels, int w, int h, int d, int type, int order) {
    __replay_image *im = (__replay_image *) malloc(sizeof(__replay_image));
    im->texels = (unsigned char *) texels;
    im->width = w; im->height = h; im->depth = d;
    im->channel_type = type; im->channel_order = order;
    return im;
}

static int __replay_img_channels(const __replay_image *im) {
    return im->channel_order == CLK_R ? 1 : im->channel_order == CLK_RG ? 2 : 4;
}

static int __replay_img_channel_bytes(const __replay_image *im) {
    switch (im->channel_type) {
    case CLK_SNORM_INT8: case CLK_UNORM_INT8: case CLK_SIGNED_INT8: case CLK_UNSIGNED_INT8: return 1;
    case CLK_SNORM_INT16: case CLK_UNORM_INT16: case CLK_SIGNED_INT16: case CLK_UNSIGNED_INT16: case CLK_HALF_FLOAT: return 2;
    default: return 4;
    }
}

static unsigned char *__replay_img_texel(const __replay_image *im, int x, int y, int z) {
    size_t bpt = (size_t) __replay_img_channels(im) * __replay_img_channel_bytes(im);
    return im->texels + (((size_t) z * im->height + y) * im->width + x) * bpt;
}

/* The stored channels in storage order, as raw integers (sign-extended for signed types). */
static void __replay_img_raw(const __replay_image *im, const unsigned char *p, long long raw[4]) {
    int n = __replay_img_channels(im), b = __replay_img_channel_bytes(im);
    int sgn = im->channel_type == CLK_SNORM_INT8 || im->channel_type == CLK_SNORM_INT16
            || im->channel_type == CLK_SIGNED_INT8 || im->channel_type == CLK_SIGNED_INT16 || im->channel_type == CLK_SIGNED_INT32;
    for (int c = 0; c < n; c++) {
        unsigned long long v = 0;
        for (int k = 0; k < b; k++) v |= (unsigned long long) p[c * b + k] << (8 * k);
        if (sgn && (v >> (8 * b - 1)) & 1) v |= ~0ULL << (8 * b);
        raw[c] = (long long) v;
    }
}

/* Storage order to (r, g, b, a); missing channels are 0 (r, g, b) and 1 (a): OpenCL C 2.0, 6.13.14.7. */
#define __REPLAY_IMG_ARRANGE(T, one, im, s, out) do { \
        if ((im)->channel_order == CLK_R) { (out)[0] = (s)[0]; (out)[1] = 0; (out)[2] = 0; (out)[3] = one; } \
        else if ((im)->channel_order == CLK_RG) { (out)[0] = (s)[0]; (out)[1] = (s)[1]; (out)[2] = 0; (out)[3] = one; } \
        else if ((im)->channel_order == CLK_BGRA) { (out)[0] = (s)[2]; (out)[1] = (s)[1]; (out)[2] = (s)[0]; (out)[3] = (s)[3]; } \
        else { (out)[0] = (s)[0]; (out)[1] = (s)[1]; (out)[2] = (s)[2]; (out)[3] = (s)[3]; } \
    } while (0)

/* A texel as floats (UNORM x / max, SNORM max(x / max, -1), half, float): 8.3.1. */
static void __replay_img_loadf(const __replay_image *im, int x, int y, int z, float out[4]) {
    long long raw[4];
    float s[4];
    const unsigned char *p = __replay_img_texel(im, x, y, z);
    __replay_img_raw(im, p, raw);
    int n = __replay_img_channels(im);
    for (int c = 0; c < n; c++) {
        switch (im->channel_type) {
        case CLK_UNORM_INT8: s[c] = (float) raw[c] / 255.0f; break;
        case CLK_UNORM_INT16: s[c] = (float) raw[c] / 65535.0f; break;
        case CLK_SNORM_INT8: s[c] = fmaxf((float) raw[c] / 127.0f, -1.0f); break;
        case CLK_SNORM_INT16: s[c] = fmaxf((float) raw[c] / 32767.0f, -1.0f); break;
        case CLK_HALF_FLOAT: { unsigned short h = (unsigned short) raw[c]; _Float16 f; memcpy(&f, &h, 2); s[c] = (float) f; break; }
        case CLK_FLOAT: { unsigned int u = (unsigned int) raw[c]; memcpy(&s[c], &u, 4); break; }
        default: s[c] = (float) raw[c]; break;
        }
    }
    __REPLAY_IMG_ARRANGE(float, 1.0f, im, s, out);
}

static void __replay_img_loadi(const __replay_image *im, int x, int y, int z, int out[4]) {
    long long raw[4];
    int s[4];
    __replay_img_raw(im, __replay_img_texel(im, x, y, z), raw);
    for (int c = 0; c < __replay_img_channels(im); c++) s[c] = (int) raw[c];
    __REPLAY_IMG_ARRANGE(int, 1, im, s, out);
}

static int __replay_img_size(const __replay_image *im, int axis) {
    return axis == 0 ? im->width : axis == 1 ? im->height : im->depth;
}

/* The border colour of CLK_ADDRESS_CLAMP: (0, 0, 0, 0) with an alpha channel, (0, 0, 0, 1) without. */
static float __replay_img_border_alpha(const __replay_image *im) {
    return __replay_img_channels(im) == 4 ? 0.0f : 1.0f;
}

/* Nearest: the texel index on one axis (8.2.1 of the API specification); -1 or size means the border. */
static int __replay_img_nearest(float s, int size, sampler_t smp) {
    int addr = smp & 0xE, norm = smp & 1;
    float u;
    if (norm && addr == CLK_ADDRESS_REPEAT) {
        u = (s - floorf(s)) * size;
        int i = (int) floorf(u);
        return i > size - 1 ? i - size : i;
    }
    if (norm && addr == CLK_ADDRESS_MIRRORED_REPEAT) {
        float sp = fabsf(s - 2.0f * rintf(0.5f * s));
        int i = (int) floorf(sp * size);
        return i < size - 1 ? i : size - 1;
    }
    u = norm ? s * size : s;
    float i = floorf(u);
    if (addr == CLK_ADDRESS_CLAMP) return i < -1 ? -1 : i > size ? size : (int) i;
    return i < 0 ? 0 : i > size - 1 ? size - 1 : (int) i;
}

/* Linear: the two taps and the weight of the upper one on one axis. */
static void __replay_img_linear(float s, int size, sampler_t smp, int *i0, int *i1, float *a) {
    int addr = smp & 0xE, norm = smp & 1;
    float u;
    if (norm && addr == CLK_ADDRESS_REPEAT) {
        u = (s - floorf(s)) * size;
        float f = floorf(u - 0.5f);
        *i0 = (int) f; *i1 = *i0 + 1; *a = (u - 0.5f) - f;
        if (*i0 < 0) *i0 += size;
        if (*i1 > size - 1) *i1 -= size;
        return;
    }
    if (norm && addr == CLK_ADDRESS_MIRRORED_REPEAT) {
        float sp = fabsf(s - 2.0f * rintf(0.5f * s));
        u = sp * size;
        float f = floorf(u - 0.5f);
        *i0 = (int) f; *i1 = *i0 + 1; *a = (u - 0.5f) - f;
        if (*i0 < 0) *i0 = 0;
        if (*i1 > size - 1) *i1 = size - 1;
        return;
    }
    u = norm ? s * size : s;
    float f = floorf(u - 0.5f);
    *a = (u - 0.5f) - f;
    int lo = addr == CLK_ADDRESS_CLAMP ? -1 : 0, hi = addr == CLK_ADDRESS_CLAMP ? size : size - 1;
    *i0 = f < lo ? lo : f > hi ? hi : (int) f;
    *i1 = f + 1 < lo ? lo : f + 1 > hi ? hi : (int) f + 1;
}

static void __replay_img_tapf(const __replay_image *im, int x, int y, int z, float out[4]) {
    if (x < 0 || y < 0 || z < 0 || x >= im->width || y >= im->height || z >= im->depth) {
        out[0] = out[1] = out[2] = 0.0f;
        out[3] = __replay_img_border_alpha(im);
        return;
    }
    __replay_img_loadf(im, x, y, z, out);
}

/* read_imagef with a sampler, dims 1..3: coordinates c[0..dims-1]. */
static float4 __replay_img_sample(const __replay_image *im, sampler_t smp, const float *c, int dims) {
    float out[4] = {0, 0, 0, 0};
    if ((smp & 0x30) != CLK_FILTER_LINEAR) {
        int i[3] = {0, 0, 0};
        for (int k = 0; k < dims; k++) i[k] = __replay_img_nearest(c[k], __replay_img_size(im, k), smp);
        __replay_img_tapf(im, i[0], i[1], i[2], out);
        return (float4) {out[0], out[1], out[2], out[3]};
    }
    int lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
    float w[3] = {0, 0, 0};
    for (int k = 0; k < dims; k++) __replay_img_linear(c[k], __replay_img_size(im, k), smp, &lo[k], &hi[k], &w[k]);
    for (int corner = 0; corner < (1 << dims); corner++) {
        float t[4], weight = 1.0f;
        int at[3] = {0, 0, 0};
        for (int k = 0; k < dims; k++) {
            int upper = corner >> k & 1;
            at[k] = upper ? hi[k] : lo[k];
            weight *= upper ? w[k] : 1.0f - w[k];
        }
        __replay_img_tapf(im, at[0], at[1], at[2], t);
        for (int ch = 0; ch < 4; ch++) out[ch] += weight * t[ch];
    }
    return (float4) {out[0], out[1], out[2], out[3]};
}

/* read_imagei / read_imageui with a sampler (nearest filtering only, as 6.13.14.2 requires). */
static int4 __replay_img_sample_int(const __replay_image *im, sampler_t smp, const float *c, int dims) {
    int i[3] = {0, 0, 0}, out[4];
    for (int k = 0; k < dims; k++) i[k] = __replay_img_nearest(c[k], __replay_img_size(im, k), smp);
    if (i[0] < 0 || i[1] < 0 || i[2] < 0 || i[0] >= im->width || i[1] >= im->height || i[2] >= im->depth) {
        return (int4) {0, 0, 0, __replay_img_channels(im) == 4 ? 0 : 1};
    }
    __replay_img_loadi(im, i[0], i[1], i[2], out);
    return (int4) {out[0], out[1], out[2], out[3]};
}

static float4 __replay_img_fetch(const __replay_image *im, int x, int y, int z) {
    float out[4];
    if (x < 0 || y < 0 || z < 0 || x >= im->width || y >= im->height || z >= im->depth) return (float4) {0, 0, 0, 0};
    __replay_img_loadf(im, x, y, z, out);
    return (float4) {out[0], out[1], out[2], out[3]};
}

static int4 __replay_img_fetch_int(const __replay_image *im, int x, int y, int z) {
    int out[4];
    if (x < 0 || y < 0 || z < 0 || x >= im->width || y >= im->height || z >= im->depth) return (int4) {0, 0, 0, 0};
    __replay_img_loadi(im, x, y, z, out);
    return (int4) {out[0], out[1], out[2], out[3]};
}

/* write_image*: (r, g, b, a) to storage order, converted as 8.3.1.1 says (round to nearest even, saturated). */
static void __replay_img_store(__replay_image *im, int x, int y, int z, const float *f, const int *iv) {
    if (x < 0 || y < 0 || z < 0 || x >= im->width || y >= im->height || z >= im->depth) return;
    int n = __replay_img_channels(im), b = __replay_img_channel_bytes(im);
    int from[4] = {0, 1, 2, 3};
    if (im->channel_order == CLK_BGRA) { from[0] = 2; from[2] = 0; }
    unsigned char *p = __replay_img_texel(im, x, y, z);
    for (int c = 0; c < n; c++) {
        unsigned long long v;
        float x0 = f ? f[from[c]] : 0.0f;
        long long i0 = iv ? iv[from[c]] : 0;
        switch (im->channel_type) {
        case CLK_UNORM_INT8: v = (unsigned long long) rintf(fminf(fmaxf(x0, 0.0f), 1.0f) * 255.0f); break;
        case CLK_UNORM_INT16: v = (unsigned long long) rintf(fminf(fmaxf(x0, 0.0f), 1.0f) * 65535.0f); break;
        case CLK_SNORM_INT8: v = (unsigned long long) (long long) rintf(fminf(fmaxf(x0, -1.0f), 1.0f) * 127.0f); break;
        case CLK_SNORM_INT16: v = (unsigned long long) (long long) rintf(fminf(fmaxf(x0, -1.0f), 1.0f) * 32767.0f); break;
        case CLK_HALF_FLOAT: { _Float16 h = (_Float16) x0; unsigned short u; memcpy(&u, &h, 2); v = u; break; }
        case CLK_FLOAT: { unsigned int u; memcpy(&u, &x0, 4); v = u; break; }
        case CLK_UNSIGNED_INT8: v = (unsigned) i0 > 255u ? 255u : (unsigned) i0; break;
        case CLK_UNSIGNED_INT16: v = (unsigned) i0 > 65535u ? 65535u : (unsigned) i0; break;
        case CLK_SIGNED_INT8: v = (unsigned long long) (i0 < -128 ? -128 : i0 > 127 ? 127 : i0); break;
        case CLK_SIGNED_INT16: v = (unsigned long long) (i0 < -32768 ? -32768 : i0 > 32767 ? 32767 : i0); break;
        default: v = (unsigned long long) i0; break;
        }
        for (int k = 0; k < b; k++) p[c * b + k] = (unsigned char) (v >> (8 * k));
    }
}

#define __REPLAY_OVL static inline __attribute__((overloadable))
/* read_imagef */
__REPLAY_OVL float4 __replay_read_imagef(__replay_image *im, sampler_t s, float c) { float v[1] = {c}; return __replay_img_sample(im, s, v, 1); }
__REPLAY_OVL float4 __replay_read_imagef(__replay_image *im, sampler_t s, float2 c) { float v[2] = {c.x, c.y}; return __replay_img_sample(im, s, v, 2); }
__REPLAY_OVL float4 __replay_read_imagef(__replay_image *im, sampler_t s, float4 c) { float v[3] = {c.x, c.y, c.z}; return __replay_img_sample(im, s, v, 3); }
__REPLAY_OVL float4 __replay_read_imagef(__replay_image *im, sampler_t s, int c) { float v[1] = {(float) c}; return __replay_img_sample(im, s, v, 1); }
__REPLAY_OVL float4 __replay_read_imagef(__replay_image *im, sampler_t s, int2 c) { float v[2] = {(float) c.x, (float) c.y}; return __replay_img_sample(im, s, v, 2); }
__REPLAY_OVL float4 __replay_read_imagef(__replay_image *im, sampler_t s, int4 c) { float v[3] = {(float) c.x, (float) c.y, (float) c.z}; return __replay_img_sample(im, s, v, 3); }
__REPLAY_OVL float4 __replay_read_imagef(__replay_image *im, int c) { return __replay_img_fetch(im, c, 0, 0); }
__REPLAY_OVL float4 __replay_read_imagef(__replay_image *im, int2 c) { return __replay_img_fetch(im, c.x, c.y, 0); }
__REPLAY_OVL float4 __replay_read_imagef(__replay_image *im, int4 c) { return __replay_img_fetch(im, c.x, c.y, c.z); }
/* read_imagei, read_imageui */
__REPLAY_OVL int4 __replay_read_imagei(__replay_image *im, sampler_t s, float c) { float v[1] = {c}; return __replay_img_sample_int(im, s, v, 1); }
__REPLAY_OVL int4 __replay_read_imagei(__replay_image *im, sampler_t s, float2 c) { float v[2] = {c.x, c.y}; return __replay_img_sample_int(im, s, v, 2); }
__REPLAY_OVL int4 __replay_read_imagei(__replay_image *im, sampler_t s, float4 c) { float v[3] = {c.x, c.y, c.z}; return __replay_img_sample_int(im, s, v, 3); }
__REPLAY_OVL int4 __replay_read_imagei(__replay_image *im, sampler_t s, int c) { float v[1] = {(float) c}; return __replay_img_sample_int(im, s, v, 1); }
__REPLAY_OVL int4 __replay_read_imagei(__replay_image *im, sampler_t s, int2 c) { float v[2] = {(float) c.x, (float) c.y}; return __replay_img_sample_int(im, s, v, 2); }
__REPLAY_OVL int4 __replay_read_imagei(__replay_image *im, sampler_t s, int4 c) { float v[3] = {(float) c.x, (float) c.y, (float) c.z}; return __replay_img_sample_int(im, s, v, 3); }
__REPLAY_OVL int4 __replay_read_imagei(__replay_image *im, int c) { return __replay_img_fetch_int(im, c, 0, 0); }
__REPLAY_OVL int4 __replay_read_imagei(__replay_image *im, int2 c) { return __replay_img_fetch_int(im, c.x, c.y, 0); }
__REPLAY_OVL int4 __replay_read_imagei(__replay_image *im, int4 c) { return __replay_img_fetch_int(im, c.x, c.y, c.z); }
#define read_imagef(im, ...) __replay_read_imagef(&(im)->base, __VA_ARGS__)
#define read_imagei(im, ...) __replay_read_imagei(&(im)->base, __VA_ARGS__)
#define read_imageui(im, ...) __builtin_convertvector(__replay_read_imagei(&(im)->base, __VA_ARGS__), uint4)
/* write_imagef, write_imagei, write_imageui */
__REPLAY_OVL void __replay_write_imagef(__replay_image *im, int c, float4 v) { float f[4] = {v.x, v.y, v.z, v.w}; __replay_img_store(im, c, 0, 0, f, 0); }
__REPLAY_OVL void __replay_write_imagef(__replay_image *im, int2 c, float4 v) { float f[4] = {v.x, v.y, v.z, v.w}; __replay_img_store(im, c.x, c.y, 0, f, 0); }
__REPLAY_OVL void __replay_write_imagef(__replay_image *im, int4 c, float4 v) { float f[4] = {v.x, v.y, v.z, v.w}; __replay_img_store(im, c.x, c.y, c.z, f, 0); }
__REPLAY_OVL void __replay_write_imagei(__replay_image *im, int c, int4 v) { int i[4] = {v.x, v.y, v.z, v.w}; __replay_img_store(im, c, 0, 0, 0, i); }
__REPLAY_OVL void __replay_write_imagei(__replay_image *im, int2 c, int4 v) { int i[4] = {v.x, v.y, v.z, v.w}; __replay_img_store(im, c.x, c.y, 0, 0, i); }
__REPLAY_OVL void __replay_write_imagei(__replay_image *im, int4 c, int4 v) { int i[4] = {v.x, v.y, v.z, v.w}; __replay_img_store(im, c.x, c.y, c.z, 0, i); }
#define write_imagef(im, c, v) __replay_write_imagef(&(im)->base, c, v)
#define write_imagei(im, c, v) __replay_write_imagei(&(im)->base, c, v)
#define write_imageui(im, c, v) __replay_write_imagei(&(im)->base, c, __builtin_convertvector((v), int4))
/* queries */
#define get_image_width(im) ((im)->base.width)
#define get_image_height(im) ((im)->base.height)
#define get_image_depth(im) ((im)->base.depth)
#define get_image_channel_data_type(im) ((im)->base.channel_type)
#define get_image_channel_order(im) ((im)->base.channel_order)
/* get_image_dim: int2 for a 2D image, int4 (w, h, d, 0) for a 3D one */
__REPLAY_OVL int2 get_image_dim(image2d_t im) { return (int2) {im->base.width, im->base.height}; }
__REPLAY_OVL int4 get_image_dim(image3d_t im) { return (int4) {im->base.width, im->base.height, im->base.depth, 0}; }
