#pragma once
#include "rt_base.h"
#include "rt_atomic.h"

/*
 * rt_image.h — the image unit of the translated program, in software over device copies of the captured
 * texels and BVH nodes: texel formats (decode/encode), the T# / S# / V# / BVH descriptors as gfx10.3 lays
 * them out, the texel addressing of image_load/store/atomics/get_resinfo, image_sample (point, bilinear,
 * mip point/linear, every address mode, border colours), formatted buffers (MUBUF *_format_*, MTBUF) and
 * image_bvh*_intersect_ray.
 *
 * A second implementation written from the RDNA 2 ISA guide and the facts of the project's reference
 * (rdna2.md §5: the BVH descriptor, node layouts and GPURT's result definitions); the host model's
 * conventions (which captured image a T# names, which levels and layers a view holds, what faults) are
 * followed as its documentation states them. Everything here is a pure per-lane function over raw register
 * bits (uint32_t); the emitter (ImageEmitter) does the lane loop, EXEC and the memory accesses.
 *
 * Numbering: data formats and numeric formats use the capture protocol's enum numbers (DataFormat FMT_8 = 1
 * .. FMT_11_11_10 = 14; NumericFormat NUM_UNORM = 1 .. NUM_SRGB = 8), so the launch bundle can carry them
 * as they lie. Unified format numbers are those of the T# FORMAT field (word 1 [28:20]) and the buffer
 * FORMAT (MTBUF [25:19], V# word 3 [18:12]): 1..77, 128..130.
 */

/* ------------------------------------------------------------------ bits and small floats */

RT_FN float rt_img_f(uint32_t b) { float f; memcpy(&f, &b, 4); return f; }
RT_FN uint32_t rt_img_b(float f) { uint32_t b; memcpy(&b, &f, 4); return b; }
RT_FN int rt_img_isnan(double x) { return x != x; }

#define RT_IMG_ONE 0x3F800000u
#define RT_IMG_INF 0x7F800000u
#define RT_IMG_MISS 0xFFFFFFFFu

/* IEEE binary16 bits -> binary32 bits, exact; a NaN keeps sign and payload (not quieted). */
RT_FN uint32_t rt_img_h2f(uint32_t h) {
    uint32_t s = (h & 0x8000u) << 16, e = (h >> 10) & 0x1Fu, m = h & 0x3FFu;
    if (e == 0x1Fu) return s | 0x7F800000u | (m << 13);
    if (e == 0) {
        if (m == 0) return s;
        uint32_t sh = 0;
        while ((m & 0x400u) == 0) { m <<= 1; sh++; }
        return s | ((113u - sh) << 23) | ((m & 0x3FFu) << 13);
    }
    return s | ((e + 112u) << 23) | (m << 13);
}

/* Rounds (q, remainder r of `bits` dropped bits) to nearest even. */
RT_FN uint32_t rt_img_rne_bits(uint32_t q, uint32_t r, uint32_t bits) {
    uint32_t half = 1u << (bits - 1);
    return (r > half || (r == half && (q & 1u))) ? q + 1u : q;
}

/*
 * An unsigned or signed float of a 5-bit exponent (bias 15) and M mantissa bits from binary32 bits, round to
 * nearest even, overflow to infinity. Returns the magnitude bits (no sign).
 */
RT_FN uint32_t rt_img_narrow_mag(uint32_t f, uint32_t M) {
    uint32_t e = (f >> 23) & 0xFFu, m = f & 0x7FFFFFu;
    uint32_t inf = 0x1Fu << M;
    if (e == 0xFFu) return inf; /* infinities (NaNs handled by the callers) */
    int32_t he = (int32_t)e - 112;  /* biased 5-bit exponent */
    if (he >= 31) return inf;
    if (e == 0) return 0;            /* binary32 denormals are far below the smallest small-float denormal */
    uint32_t full = m | 0x800000u;
    if (he <= 0) {
        uint32_t shift = (uint32_t)(136 - (int32_t)M - (int32_t)e);
        if (shift >= 25) return 0;
        return rt_img_rne_bits(full >> shift, full & ((1u << shift) - 1u), shift);
    }
    uint32_t drop = 23u - M;
    uint32_t q = ((uint32_t)he << M) | (m >> drop);
    q = rt_img_rne_bits(q, m & ((1u << drop) - 1u), drop);
    return q >= inf ? inf : q;
}

/* binary32 -> binary16, nearest even; a NaN keeps its sign, gets the quiet bit and the payload's top bits. */
RT_FN uint32_t rt_img_f2h(uint32_t f) {
    uint32_t s = (f >> 16) & 0x8000u;
    if ((f & 0x7F800000u) == 0x7F800000u && (f & 0x7FFFFFu) != 0) return s | 0x7E00u | ((f >> 13) & 0x3FFu);
    return s | rt_img_narrow_mag(f & 0x7FFFFFFFu, 10);
}

/* The unsigned 11-bit (M = 6) or 10-bit (M = 5) float of a channel -> binary32 bits (NaN as 0x7FC00000). */
RT_FN uint32_t rt_img_small_to_f(uint32_t v, uint32_t M) {
    uint32_t e = (v >> M) & 0x1Fu, m = v & ((1u << M) - 1u);
    if (e == 0x1Fu) return m ? 0x7FC00000u : RT_IMG_INF;
    return rt_img_h2f((e << 10) | (m << (10 - M)));
}

/* binary32 -> the unsigned small float: NaN a NaN, negatives and -0 zero, overflow +infinity, nearest even. */
RT_FN uint32_t rt_img_f_to_small(uint32_t f, uint32_t M) {
    if ((f & 0x7F800000u) == 0x7F800000u && (f & 0x7FFFFFu) != 0) return (0x1Fu << M) | (1u << (M - 1));
    if ((f & 0x80000000u) || (f & 0x7FFFFFFFu) == 0) return 0;
    return rt_img_narrow_mag(f, M);
}

/* Round to nearest, ties to even, whatever the current rounding mode. */
RT_FN double rt_img_rne(double x) {
    if (!(x < 4503599627370496.0 && x > -4503599627370496.0)) return x; /* |x| >= 2^52, inf, NaN */
    double f = floor(x), d = x - f;
    if (d > 0.5) return f + 1.0;
    if (d < 0.5) return f;
    return fmod(f, 2.0) == 0.0 ? f : f + 1.0;
}

RT_FN double rt_img_clampd(double x, double lo, double hi) {
    if (rt_img_isnan(x)) return 0.0;
    return x < lo ? lo : (x > hi ? hi : x);
}

RT_FN double rt_img_srgb_decode(double c) {
    return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4);
}
RT_FN double rt_img_srgb_encode(double l) {
    return l <= 0.0031308 ? 12.92 * l : 1.055 * pow(l, 1.0 / 2.4) - 0.055;
}

/* ------------------------------------------------------------------ formats */

enum { RT_DF_8 = 1, RT_DF_8_8, RT_DF_8_8_8_8, RT_DF_16, RT_DF_16_16, RT_DF_16_16_16_16, RT_DF_32, RT_DF_32_32,
       RT_DF_32_32_32, RT_DF_32_32_32_32, RT_DF_10_10_10_2, RT_DF_2_10_10_10, RT_DF_10_11_11, RT_DF_11_11_10 };
enum { RT_NF_UNORM = 1, RT_NF_SNORM, RT_NF_USCALED, RT_NF_SSCALED, RT_NF_UINT, RT_NF_SINT, RT_NF_FLOAT, RT_NF_SRGB };

typedef struct {
    uint32_t number;   /* unified format number */
    uint32_t data;     /* RT_DF_* */
    uint32_t num;      /* RT_NF_* */
    uint32_t nch;      /* channels the format has */
    uint32_t bits[4];  /* channel x first */
    uint32_t shift[4]; /* bit offset of each channel in the little-endian texel */
    uint32_t bytes;    /* bytes per texel */
} rt_img_fmt_t;

RT_FN int rt_img_fmt_integer(const rt_img_fmt_t *f) { return f->num == RT_NF_UINT || f->num == RT_NF_SINT; }

/* Channel widths of a data format (x first); returns the channel count, 0 for an unknown format. */
RT_FN uint32_t rt_img_layout(uint32_t data, uint32_t bits[4]) {
    uint32_t n = 0, b0 = 0, b1 = 0, b2 = 0, b3 = 0;
    switch (data) {
    case RT_DF_8: n = 1; b0 = 8; break;
    case RT_DF_8_8: n = 2; b0 = b1 = 8; break;
    case RT_DF_8_8_8_8: n = 4; b0 = b1 = b2 = b3 = 8; break;
    case RT_DF_16: n = 1; b0 = 16; break;
    case RT_DF_16_16: n = 2; b0 = b1 = 16; break;
    case RT_DF_16_16_16_16: n = 4; b0 = b1 = b2 = b3 = 16; break;
    case RT_DF_32: n = 1; b0 = 32; break;
    case RT_DF_32_32: n = 2; b0 = b1 = 32; break;
    case RT_DF_32_32_32: n = 3; b0 = b1 = b2 = 32; break;
    case RT_DF_32_32_32_32: n = 4; b0 = b1 = b2 = b3 = 32; break;
    /* AMD names list channels from the most significant bits down: x lies in the lowest bits */
    case RT_DF_10_10_10_2: n = 4; b0 = 2; b1 = b2 = b3 = 10; break;
    case RT_DF_2_10_10_10: n = 4; b0 = b1 = b2 = 10; b3 = 2; break;
    case RT_DF_10_11_11: n = 3; b0 = b1 = 11; b2 = 10; break;
    case RT_DF_11_11_10: n = 3; b0 = 10; b1 = b2 = 11; break;
    default: n = 0; break;
    }
    bits[0] = b0; bits[1] = b1; bits[2] = b2; bits[3] = b3;
    return n;
}

/* Which numeric formats a data format's run of unified numbers holds (0 ends the run). */
RT_FN uint32_t rt_img_kind_at(uint32_t run, uint32_t i) {
    /* run 6: UNORM..SINT; run 7: UNORM..SINT, FLOAT; run 3: UINT, SINT, FLOAT */
    if (run == 3) return i < 3 ? RT_NF_UINT + i : 0;
    if (run == 6) return i < 6 ? RT_NF_UNORM + i : 0;
    if (run == 7) return i < 7 ? RT_NF_UNORM + i : 0;
    return 0;
}

/* The unified format `number` (T# FORMAT, buffer FORMAT); 0 when it is not a format the host model knows. */
RT_FN int rt_img_format(uint32_t number, rt_img_fmt_t *f) {
    /* first number, data format, run kind (3, 6, 7): the gfx10 unified format table */
    static const uint8_t RUNS[14][3] = {
        {1, RT_DF_8, 6}, {7, RT_DF_16, 7}, {14, RT_DF_8_8, 6}, {20, RT_DF_32, 3}, {23, RT_DF_16_16, 7},
        {30, RT_DF_10_11_11, 7}, {37, RT_DF_11_11_10, 7}, {44, RT_DF_10_10_10_2, 6}, {50, RT_DF_2_10_10_10, 6},
        {56, RT_DF_8_8_8_8, 6}, {62, RT_DF_32_32, 3}, {65, RT_DF_16_16_16_16, 7}, {72, RT_DF_32_32_32, 3},
        {75, RT_DF_32_32_32_32, 3}};
    uint32_t data = 0, num = 0;
    if (number == 128) { data = RT_DF_8; num = RT_NF_SRGB; }
    else if (number == 129) { data = RT_DF_8_8; num = RT_NF_SRGB; }
    else if (number == 130) { data = RT_DF_8_8_8_8; num = RT_NF_SRGB; }
    else {
        for (int r = 0; r < 14; r++) {
            uint32_t first = RUNS[r][0];
            uint32_t k = number >= first ? rt_img_kind_at(RUNS[r][2], number - first) : 0;
            if (k) { data = RUNS[r][1]; num = k; break; }
        }
    }
    if (!data) return 0;
    f->number = number;
    f->data = data;
    f->num = num;
    f->nch = rt_img_layout(data, f->bits);
    uint32_t at = 0;
    for (uint32_t c = 0; c < 4; c++) { f->shift[c] = at; at += f->bits[c]; }
    f->bytes = at / 8;
    return 1;
}

/* The unified number of (data, numeric), or 0. */
RT_FN uint32_t rt_img_format_number(uint32_t data, uint32_t num) {
    rt_img_fmt_t f;
    for (uint32_t n = 1; n <= 130; n++) {
        if (rt_img_format(n, &f) && f.data == data && f.num == num) return n;
    }
    return 0;
}

/* Bits [at, at + n) of a little-endian byte string (n <= 32). */
RT_FN uint32_t rt_img_getbits(const uint8_t *p, uint32_t at, uint32_t n) {
    uint64_t v = 0;
    uint32_t first = at / 8, last = (at + n - 1) / 8;
    for (uint32_t i = first; i <= last; i++) v |= (uint64_t)p[i] << (8 * (i - first));
    v >>= at % 8;
    return n == 32 ? (uint32_t)v : (uint32_t)(v & ((1ull << n) - 1ull));
}

RT_FN void rt_img_putbits(uint8_t *p, uint32_t at, uint32_t n, uint32_t value) {
    for (uint32_t k = 0; k < n; k++) {
        uint32_t bit = at + k;
        uint8_t mask = (uint8_t)(1u << (bit % 8));
        if ((value >> k) & 1u) p[bit / 8] |= mask; else p[bit / 8] &= (uint8_t)~mask;
    }
}

/* One channel's raw bits (n wide) as the 32-bit register value a read gives. */
RT_FN uint32_t rt_img_chan_read(uint32_t num, uint32_t n, uint32_t raw, uint32_t channel) {
    uint32_t max = n == 32 ? 0xFFFFFFFFu : (1u << n) - 1u;
    int32_t sgn = n == 32 ? (int32_t)raw : (int32_t)(raw << (32 - n)) >> (32 - n);
    switch (num) {
    case RT_NF_UNORM: return rt_img_b((float)raw / (float)max);
    case RT_NF_SNORM: {
        float q = (float)sgn / (float)((1u << (n - 1)) - 1u);
        return rt_img_b(q < -1.0f ? -1.0f : q);
    }
    case RT_NF_SRGB: {
        double c = (double)raw / (double)max;
        return rt_img_b((float)(channel == 3 ? c : rt_img_srgb_decode(c)));
    }
    case RT_NF_USCALED: return rt_img_b((float)raw);
    case RT_NF_SSCALED: return rt_img_b((float)sgn);
    case RT_NF_UINT: return raw;
    case RT_NF_SINT: return (uint32_t)sgn;
    case RT_NF_FLOAT:
        if (n == 32) return raw;
        if (n == 16) return rt_img_h2f(raw);
        return rt_img_small_to_f(raw, n - 5);
    default: return 0;
    }
}

/* One register value as the channel's raw bits (n wide) a write stores. */
RT_FN uint32_t rt_img_chan_write(uint32_t num, uint32_t n, uint32_t reg, uint32_t channel) {
    uint32_t max = n == 32 ? 0xFFFFFFFFu : (1u << n) - 1u;
    double x = (double)rt_img_f(reg);
    switch (num) {
    case RT_NF_UNORM: return (uint32_t)rt_img_rne(rt_img_clampd(x, 0.0, 1.0) * (double)max);
    case RT_NF_SNORM: {
        double s = rt_img_rne(rt_img_clampd(x, -1.0, 1.0) * (double)((1u << (n - 1)) - 1u));
        return (uint32_t)(int32_t)s & max;
    }
    case RT_NF_SRGB: {
        double c = rt_img_clampd(x, 0.0, 1.0);
        return (uint32_t)rt_img_rne((channel == 3 ? c : rt_img_srgb_encode(c)) * (double)max);
    }
    case RT_NF_USCALED: return (uint32_t)rt_img_clampd(rt_img_rne(x), 0.0, (double)max);
    case RT_NF_SSCALED: {
        double lim = (double)(1u << (n - 1));
        return (uint32_t)(int32_t)rt_img_clampd(rt_img_rne(x), -lim, lim - 1.0) & max;
    }
    case RT_NF_UINT: case RT_NF_SINT: return reg & max;
    case RT_NF_FLOAT:
        if (n == 32) return reg;
        if (n == 16) return rt_img_f2h(reg);
        return rt_img_f_to_small(reg, n - 5);
    default: return 0;
    }
}

/* A texel's bytes -> its four register values in storage order (missing channels 0, 0, 0, 1 / 1.0). */
RT_FN void rt_img_decode(const rt_img_fmt_t *f, const uint8_t *p, uint32_t out[4]) {
    for (uint32_t c = 0; c < 4; c++) {
        if (c < f->nch) out[c] = rt_img_chan_read(f->num, f->bits[c], rt_img_getbits(p, f->shift[c], f->bits[c]), c);
        else out[c] = c < 3 ? 0u : (rt_img_fmt_integer(f) ? 1u : RT_IMG_ONE);
    }
}

/* Four register values (storage order) -> the texel's bytes. */
RT_FN void rt_img_encode(const rt_img_fmt_t *f, const uint32_t in[4], uint8_t *p) {
    for (uint32_t c = 0; c < f->nch; c++) rt_img_putbits(p, f->shift[c], f->bits[c], rt_img_chan_write(f->num, f->bits[c], in[c], c));
}

/* D16: a register value narrowed to 16 bits (floats as halves, nearest even; integers their low half). */
RT_FN uint32_t rt_img_to_d16(const rt_img_fmt_t *f, uint32_t reg) {
    return rt_img_fmt_integer(f) ? (reg & 0xFFFFu) : rt_img_f2h(reg);
}
/* D16: a 16-bit value widened (halves exactly; SINT sign-extended, UINT zero-extended). */
RT_FN uint32_t rt_img_from_d16(const rt_img_fmt_t *f, uint32_t h) {
    h &= 0xFFFFu;
    if (!rt_img_fmt_integer(f)) return rt_img_h2f(h);
    return f->num == RT_NF_SINT ? (uint32_t)(int32_t)(int16_t)h : h;
}

/* ------------------------------------------------------------------ captured images (the bundle's image section) */

/* T# TYPE codes */
enum { RT_TT_1D = 8, RT_TT_2D = 9, RT_TT_3D = 10, RT_TT_CUBE = 11, RT_TT_1D_ARRAY = 12, RT_TT_2D_ARRAY = 13,
       RT_TT_2D_MSAA = 14, RT_TT_2D_MSAA_ARRAY = 15 };

/*
 * The launch bundle's image section (written by translate/image/ImageBundle.java; the device reads and
 * writes it in place, so after the run it holds the final texels):
 *   0: u32 magic 0x474D4952 ("RIMG"), u32 version 1, u32 image count, u32 16 (header bytes)
 *  16: one 64-byte record per image (rt_image_t), then the texels of each at its 16-aligned texel_offset
 *      from the section's start, in the capture's layout (mip-major; in a level layer-major, then slice,
 *      then row by row).
 * BVH nodes travel as what they are to the guest, a captured memory range: image_bvh*_intersect_ray reads
 * them through the range table as the host model reads them through guest memory.
 */
#define RT_IMG_MAGIC 0x474D4952u
typedef struct {
    uint64_t guest_addr;
    uint32_t index;      /* the capture's image index */
    uint32_t type;       /* T# TYPE code of the captured image type (RT_TT_*) */
    uint32_t data, num;  /* capture protocol DataFormat / NumericFormat numbers */
    uint32_t width, height, depth, layers; /* height, depth, layers at least 1 */
    uint16_t levels;     /* mip levels the capture holds */
    uint16_t samples;    /* samples a texel (0 or 1: single-sampled); a texel's samples lie one after another */
    uint32_t bpt;        /* bytes per texel of the data format */
    uint64_t texel_offset;
    uint64_t nbytes;
} rt_image_t;

typedef struct {
    uint32_t count;
    const rt_image_t *img;
    uint8_t *base; /* the section: texels at base + img[i].texel_offset */
} rt_images_t;

/* The images of a section (count 0 when there is none or it is not one). */
RT_FN rt_images_t rt_img_section(uint8_t *section, uint64_t bytes) {
    rt_images_t s;
    s.count = 0;
    s.img = 0;
    s.base = section;
    uint32_t h[4];
    if (section && bytes >= 16) {
        memcpy(h, section, 16);
        if (h[0] == RT_IMG_MAGIC && h[1] == 1u && 16ull + 64ull * h[2] <= bytes) {
            s.count = h[2];
            s.img = (const rt_image_t *)(section + 16);
        }
    }
    return s;
}

RT_FN uint32_t rt_img_extent(uint32_t base, uint32_t level) {
    uint32_t v = level >= 32 ? 0 : base >> level;
    return v ? v : 1u;
}
RT_FN uint32_t rt_img_level_depth(const rt_image_t *im, uint32_t level) {
    return im->type == RT_TT_3D ? rt_img_extent(im->depth, level) : 1u;
}

RT_FN uint32_t rt_img_samples(const rt_image_t *im) {
    return im->samples > 1u ? im->samples : 1u;
}

/* Texel index of (level, layer, x, y, z) in the captured layout (coordinates inside the image); for a
 * multisampled image, of the texel's sample 0. */
RT_FN uint64_t rt_img_texel_index(const rt_image_t *im, uint32_t level, uint32_t layer, uint32_t x, uint32_t y,
                                  uint32_t z) {
    uint64_t start = 0;
    for (uint32_t l = 0; l < level; l++) {
        start += (uint64_t)rt_img_extent(im->width, l) * rt_img_extent(im->height, l) * rt_img_level_depth(im, l)
                 * im->layers * rt_img_samples(im);
    }
    uint64_t w = rt_img_extent(im->width, level), h = rt_img_extent(im->height, level);
    uint64_t d = rt_img_level_depth(im, level);
    return start + ((((uint64_t)layer * d + z) * h + y) * w + x) * rt_img_samples(im);
}

/* ------------------------------------------------------------------ T# (image resource) and views */

typedef struct {
    uint64_t base;
    uint32_t min_lod, format, width, height, resource_level;
    uint32_t dst_sel[4];
    uint32_t base_level, last_level, sw_mode, bc_swizzle, type;
    uint32_t depth_field, base_array, array_pitch, max_mip;
    uint32_t wide; /* 256-bit descriptor (else r128: words 0..3 only) */
} rt_tsharp_t;

RT_FN void rt_img_tsharp(const uint32_t *w, int r128, rt_tsharp_t *t) {
    t->base = (((uint64_t)(w[1] & 0xFFu) << 32) | w[0]) << 8;
    t->min_lod = (w[1] >> 8) & 0xFFFu;
    t->format = (w[1] >> 20) & 0x1FFu;
    t->width = ((w[1] >> 30) | ((w[2] & 0xFFFu) << 2)) + 1u;
    t->height = ((w[2] >> 14) & 0x3FFFu) + 1u;
    t->resource_level = w[2] >> 31;
    for (int c = 0; c < 4; c++) t->dst_sel[c] = (w[3] >> (3 * c)) & 7u;
    t->base_level = (w[3] >> 12) & 0xFu;
    t->last_level = (w[3] >> 16) & 0xFu;
    t->sw_mode = (w[3] >> 20) & 0x1Fu;
    t->bc_swizzle = (w[3] >> 25) & 7u;
    t->type = w[3] >> 28;
    t->wide = r128 ? 0u : 1u;
    t->depth_field = r128 ? 0u : (w[4] & 0x3FFFu);
    t->base_array = r128 ? 0u : ((w[4] >> 16) & 0x1FFFu);
    t->array_pitch = r128 ? 0u : (w[5] & 0xFu);
    t->max_mip = r128 ? 0u : ((w[5] >> 4) & 0xFu);
}

RT_FN int rt_img_arrayed(uint32_t type) {
    return type == RT_TT_CUBE || type == RT_TT_1D_ARRAY || type == RT_TT_2D_ARRAY || type == RT_TT_2D_MSAA_ARRAY;
}

RT_FN int rt_img_msaa(uint32_t type) {
    return type == RT_TT_2D_MSAA || type == RT_TT_2D_MSAA_ARRAY;
}

/* Errors (fault codes local to the image unit; the emitter maps each to a fault record). */
enum {
    RT_IMG_OK = 0,
    RT_IMG_E_TYPE = 1,       /* T# TYPE not 8..13 (BVH: not 8) */
    RT_IMG_E_NOIMAGE = 2,    /* no captured image at the base, none (or several) by extent and format */
    RT_IMG_E_FORMAT = 3,     /* T# FORMAT not a known unified format */
    RT_IMG_E_BPT = 4,        /* texel size of the T#'s format differs from the captured image's */
    RT_IMG_E_LEVEL = 5,      /* a level inside the view that the capture does not hold */
    RT_IMG_E_LAYER = 6,      /* a layer inside the view that the capture does not hold */
    RT_IMG_E_DIM = 7,        /* MSAA dims */
    RT_IMG_E_NOLEVEL = 8,    /* sampling a view with BASE_LEVEL past LAST_LEVEL */
    RT_IMG_E_MINLOD = 9,     /* sampling with a T# MIN_LOD clamp (not modelled) */
    RT_IMG_E_BORDER = 10,    /* border colour from the table, used by an address mode */
    RT_IMG_E_ATOMIC = 11,    /* atomic's DMASK / format */
    RT_IMG_E_BVH_SIZE = 12,  /* node past the BVH SIZE */
    RT_IMG_E_BVH_FORM = 13,  /* BVH encoding outside the ISA's restrictions */
    RT_IMG_E_BUFFMT = 14,    /* buffer format 0 or unknown */
    RT_IMG_E_PARTIAL = 15,   /* partial store of a packed buffer element */
    RT_IMG_E_MEMORY = 16,    /* a node or element outside every range */
    RT_IMG_E_SAMPLES = 18,   /* an MSAA T#'s sample count (2^LAST_LEVEL) differs from the captured image's */
    RT_IMG_E_CUBE = 17       /* cube sampling not modelled: a derived LOD on several levels or choosing the filter */
};

/* One captured image as one T# views it. */
typedef struct {
    const rt_image_t *im;
    uint8_t *texels;
    rt_tsharp_t t;
    rt_img_fmt_t fmt;
    uint32_t first_layer;
    int32_t layers; /* may be 0 or less: a view past its last slice */
    int32_t levels; /* LAST_LEVEL - BASE_LEVEL + 1 (1 for MSAA, whose LAST_LEVEL is log2 samples) */
    uint32_t samples; /* 1 unless MSAA */
    int null_desc;  /* FORMAT 0: a null descriptor (RADV's zeroed FMASK): reads 0, drops writes */
} rt_img_view_t;

/* Which captured image a T# names: the one at its base address, else the single one of its extent, layers
 * and format. Returns the position in imgs, or -1 (none or several). */
RT_FN int rt_img_resolve(const rt_images_t *imgs, const rt_tsharp_t *t, const rt_img_fmt_t *f, int fmt_ok) {
    for (uint32_t i = 0; i < imgs->count; i++) {
        if (imgs->img[i].guest_addr == t->base) return (int)i;
    }
    if (!fmt_ok) return -1;
    uint32_t depth = t->type == RT_TT_3D ? (t->depth_field & 0x1FFFu) + 1u : 1u;
    uint32_t layers = rt_img_arrayed(t->type) ? (t->depth_field & 0x1FFFu) + 1u : 1u;
    int found = -1, n = 0;
    for (uint32_t i = 0; i < imgs->count; i++) {
        const rt_image_t *im = &imgs->img[i];
        if (im->width == t->width && im->height == t->height && im->depth == depth && im->layers == layers
            && im->data == f->data && im->num == f->num) {
            found = (int)i;
            n++;
        }
    }
    return n == 1 ? found : -1;
}

/* The view a T# (8 words, or 4 with r128) gives; RT_IMG_OK or why not. */
RT_FN int rt_img_view(const rt_images_t *imgs, const uint32_t *words, int r128, rt_img_view_t *v) {
    rt_img_tsharp(words, r128, &v->t);
    v->null_desc = v->t.format == 0u;
    if (v->null_desc) {
        memset(&v->fmt, 0, sizeof v->fmt);
        v->im = 0; v->texels = 0; v->first_layer = 0; v->layers = 0; v->levels = 0; v->samples = 1;
        return RT_IMG_OK;
    }
    if (v->t.type < RT_TT_1D) return RT_IMG_E_TYPE;
    int fmt_ok = rt_img_format(v->t.format, &v->fmt);
    int at = rt_img_resolve(imgs, &v->t, &v->fmt, fmt_ok);
    if (at < 0) return RT_IMG_E_NOIMAGE;
    if (!fmt_ok) return RT_IMG_E_FORMAT;
    v->im = &imgs->img[at];
    v->texels = imgs->base + v->im->texel_offset;
    if (v->fmt.bytes != v->im->bpt) return RT_IMG_E_BPT;
    v->samples = rt_img_msaa(v->t.type) ? 1u << v->t.last_level : 1u;
    if (v->samples != rt_img_samples(v->im)) return RT_IMG_E_SAMPLES;
    v->levels = rt_img_msaa(v->t.type) ? 1 : (int32_t)v->t.last_level - (int32_t)v->t.base_level + 1;
    v->first_layer = v->t.wide && v->t.type != RT_TT_3D ? v->t.base_array : 0u;
    if (!rt_img_arrayed(v->t.type)) v->layers = 1;
    else if (v->t.wide) v->layers = (int32_t)(v->t.depth_field & 0x1FFFu) + 1 - (int32_t)v->t.base_array;
    else v->layers = (int32_t)v->im->layers;
    return RT_IMG_OK;
}

/* The image level of a view level, or -1 outside the view. */
RT_FN int32_t rt_img_image_level(const rt_img_view_t *v, int32_t view_level) {
    int32_t level = (int32_t)v->t.base_level + view_level;
    return (view_level < 0 || level > (int32_t)v->t.last_level) ? -1 : level;
}

/* As rt_img_image_level, and *err = RT_IMG_E_LEVEL when the capture lacks a level inside the view. */
RT_FN int32_t rt_img_level(const rt_img_view_t *v, int32_t view_level, int *err) {
    int32_t level = rt_img_image_level(v, view_level);
    if (level >= (int32_t)v->im->levels) *err = RT_IMG_E_LEVEL;
    return level;
}

RT_FN uint32_t rt_img_vw(const rt_img_view_t *v, int32_t l) { return rt_img_extent(v->im->width, (uint32_t)l); }
RT_FN uint32_t rt_img_vh(const rt_img_view_t *v, int32_t l) { return rt_img_extent(v->im->height, (uint32_t)l); }
RT_FN uint32_t rt_img_vd(const rt_img_view_t *v, int32_t l) { return rt_img_level_depth(v->im, (uint32_t)l); }

/* The texel index at an image level and view layer, -1 outside the view (*err set when the layer is inside
 * the view but not captured). Coordinates are signed: negative is outside. */
RT_FN int64_t rt_img_texel(const rt_img_view_t *v, int32_t level, int64_t layer, int64_t x, int64_t y, int64_t z,
                           int *err) {
    if (level < 0 || x < 0 || y < 0 || z < 0 || layer < 0) return -1;
    if (x >= rt_img_vw(v, level) || y >= rt_img_vh(v, level) || z >= rt_img_vd(v, level) || layer >= v->layers)
        return -1;
    uint64_t physical = v->first_layer + (uint64_t)layer;
    if (physical >= v->im->layers) { *err = RT_IMG_E_LAYER; return -1; }
    if (*err) return -1;
    return (int64_t)rt_img_texel_index(v->im, (uint32_t)level, (uint32_t)physical, (uint32_t)x, (uint32_t)y,
                                       (uint32_t)z);
}

RT_FN uint8_t *rt_img_texel_ptr(const rt_img_view_t *v, int64_t texel) {
    return v->texels + (uint64_t)texel * v->im->bpt;
}

/* Storage-order channel values of a texel. */
RT_FN void rt_img_channels(const rt_img_view_t *v, int64_t texel, uint32_t out[4]) {
    rt_img_decode(&v->fmt, rt_img_texel_ptr(v, texel), out);
}

/* DST_SEL applied (codes 0 zero, 1 one, 4..7 channels x..w; 2, 3 read as zero). */
RT_FN void rt_img_select(const rt_img_view_t *v, const uint32_t ch[4], uint32_t out[4]) {
    uint32_t one = rt_img_fmt_integer(&v->fmt) ? 1u : RT_IMG_ONE;
    for (int c = 0; c < 4; c++) {
        uint32_t s = v->t.dst_sel[c];
        out[c] = s >= 4 ? ch[s - 4] : (s == 1 ? one : 0u);
    }
}

/* ------------------------------------------------------------------ MIMG operand forms */

/* Address values per DIM: 1D x; 2D x y; 3D x y z; cube x y face; 1D array x slice; 2D array x y slice;
 * 2D MSAA x y sample; 2D MSAA array x y slice sample. */
RT_FN uint32_t rt_img_coords(uint32_t dim) {
    static const uint8_t N[8] = {1, 2, 3, 3, 2, 3, 3, 4};
    return N[dim & 7];
}

/* Address value k's raw bits from the address dwords (A16: two 16-bit values a dword, low half first). */
RT_FN uint32_t rt_img_addr_bits(const uint32_t *dw, int a16, uint32_t k) {
    if (!a16) return dw[k];
    return (k & 1u) ? (dw[k / 2] >> 16) : (dw[k / 2] & 0xFFFFu);
}
RT_FN float rt_img_addr_float(const uint32_t *dw, int a16, uint32_t k) {
    uint32_t b = rt_img_addr_bits(dw, a16, k);
    return rt_img_f(a16 ? rt_img_h2f(b) : b);
}

/* Texel position {x, y, z, layer, sample} of integer coordinates as the DIM orders them (signed 32-bit). */
RT_FN void rt_img_position(uint32_t dim, const int64_t c[4], int64_t p[5]) {
    p[0] = c[0]; p[1] = 0; p[2] = 0; p[3] = 0; p[4] = 0;
    switch (dim) {
    case 1: p[1] = c[1]; break;
    case 2: p[1] = c[1]; p[2] = c[2]; break;
    case 3: case 5: p[1] = c[1]; p[3] = c[2]; break;
    case 4: p[3] = c[1]; break;
    case 6: p[1] = c[1]; p[4] = c[2]; break;
    case 7: p[1] = c[1]; p[3] = c[2]; p[4] = c[3]; break;
    default: break;
    }
}

/* The VGPR values a read result writes: DMASK-selected channels packed from VDATA up (D16: two a VGPR),
 * then TFE's zero. Returns how many VGPRs are written (the D16 odd last one's high half is 0). */
RT_FN uint32_t rt_img_pack_result(const rt_img_fmt_t *f, uint32_t dmask, int d16, int tfe, const uint32_t v[4],
                                  uint32_t out[5]) {
    uint32_t m = dmask ? dmask : 1u, n = 0, sel[4];
    for (uint32_t c = 0; c < 4; c++) if ((m >> c) & 1u) sel[n++] = v[c];
    uint32_t regs;
    if (d16) {
        regs = (n + 1) / 2;
        for (uint32_t r = 0; r < regs; r++) {
            uint32_t lo = rt_img_to_d16(f, sel[2 * r]);
            uint32_t hi = 2 * r + 1 < n ? rt_img_to_d16(f, sel[2 * r + 1]) : 0u;
            out[r] = lo | (hi << 16);
        }
    } else {
        regs = n;
        for (uint32_t r = 0; r < n; r++) out[r] = sel[r];
    }
    if (tfe) out[regs++] = 0u;
    return regs;
}

/* VGPRs a read writes (for the emitter's static register count). */
RT_FN uint32_t rt_img_result_regs(uint32_t dmask, int d16, int tfe) {
    uint32_t m = dmask ? dmask : 1u, n = 0;
    for (uint32_t c = 0; c < 4; c++) n += (m >> c) & 1u;
    return (d16 ? (n + 1) / 2 : n) + (tfe ? 1u : 0u);
}

/* Store data: DMASK channels from the VDATA values (D16 halves widened), the others 0, storage order. */
RT_FN void rt_img_store_data(const rt_img_fmt_t *f, uint32_t dmask, int d16, const uint32_t *vd, uint32_t ch[4]) {
    uint32_t m = dmask ? dmask : 1u, n = 0;
    for (uint32_t c = 0; c < 4; c++) {
        ch[c] = 0;
        if (!((m >> c) & 1u)) continue;
        ch[c] = d16 ? rt_img_from_d16(f, (vd[n / 2] >> (16 * (n % 2))) & 0xFFFFu) : vd[n];
        n++;
    }
}

/* ------------------------------------------------------------------ image_load / store / resinfo (per lane) */

/* The texel a lane addresses (coordinates then, for the _mip forms, the view level); -1 outside. */
RT_FN int64_t rt_img_lane_texel(const rt_img_view_t *v, uint32_t dim, int a16, int mip, const uint32_t *addr,
                                int *err) {
    if (v->null_desc) return -1;
    uint32_t n = rt_img_coords(dim);
    int64_t c[4] = {0, 0, 0, 0}, p[5];
    for (uint32_t k = 0; k < n; k++) c[k] = (int32_t)rt_img_addr_bits(addr, a16, k);
    rt_img_position(dim, c, p);
    int32_t vl = mip ? (int32_t)rt_img_addr_bits(addr, a16, n) : 0;
    int32_t level = rt_img_level(v, vl, err);
    if (*err) return -1;
    if (p[4] < 0 || p[4] >= (int64_t)v->samples) return -1;
    int64_t t = rt_img_texel(v, level, p[3], p[0], p[1], p[2], err);
    return t < 0 ? t : t + p[4];
}

/* image_load[_mip]: the VGPR values (returns their count); *err a fault. */
RT_FN uint32_t rt_img_load(const rt_img_view_t *v, uint32_t dim, uint32_t dmask, int a16, int d16, int tfe, int mip,
                           const uint32_t *addr, uint32_t out[5], int *err) {
    int64_t texel = rt_img_lane_texel(v, dim, a16, mip, addr, err);
    uint32_t ch[4] = {0, 0, 0, 0}, sel[4] = {0, 0, 0, 0};
    if (texel >= 0) {
        rt_img_channels(v, texel, ch);
        rt_img_select(v, ch, sel);
    }
    return rt_img_pack_result(&v->fmt, dmask, d16, tfe, sel, out);
}

/* image_store[_mip]: writes the texel (dropped outside the view). */
RT_FN void rt_img_store(const rt_img_view_t *v, uint32_t dim, uint32_t dmask, int a16, int d16, int mip,
                        const uint32_t *addr, const uint32_t *vdata, int *err) {
    int64_t texel = rt_img_lane_texel(v, dim, a16, mip, addr, err);
    if (texel < 0) return;
    uint32_t ch[4];
    rt_img_store_data(&v->fmt, dmask, d16, vdata, ch);
    uint8_t bytes[16];
    memset(bytes, 0, sizeof bytes);
    rt_img_encode(&v->fmt, ch, bytes);
    memcpy(rt_img_texel_ptr(v, texel), bytes, v->fmt.bytes);
}

/* image_get_resinfo: width, height, depth / layers of the view level in address 0, then the view's level count. */
RT_FN uint32_t rt_img_resinfo(const rt_img_view_t *v, uint32_t dim, uint32_t dmask, int a16, int d16, int tfe,
                              const uint32_t *addr, uint32_t out[5]) {
    int32_t level = v->null_desc ? -1 : rt_img_image_level(v, (int32_t)rt_img_addr_bits(addr, a16, 0));
    uint32_t info[4] = {0, 0, 0, 0};
    if (level >= 0) {
        info[0] = rt_img_vw(v, level);
        info[1] = (dim == 0 || dim == 4) ? 1u : rt_img_vh(v, level);
        info[2] = dim == 2 ? rt_img_vd(v, level) : dim == 3 ? (uint32_t)(v->layers / 6)
                : (dim == 4 || dim == 5 || dim == 7) ? (uint32_t)v->layers : 1u;
    }
    info[3] = v->levels > 0 ? (uint32_t)v->levels : 0u;
    rt_img_fmt_t u32;
    rt_img_format(20, &u32); /* 32_UINT: D16 keeps the low halves */
    return rt_img_pack_result(&u32, dmask, d16, tfe, info, out);
}

/* ------------------------------------------------------------------ image atomics */

/* The operations are rt_atomic.h's RT_AOP_*, their arithmetic rt_atomic_op. */

/* Bytes of the atomic's datum (4 or 8) or 0 when DMASK / the view's format do not allow the op. */
RT_FN uint32_t rt_img_atomic_bytes(const rt_img_view_t *v, uint32_t op, uint32_t dmask) {
    int cmp = op == RT_AOP_CMPSWAP || op == RT_AOP_FCMPSWAP;
    uint32_t regs = 0;
    for (int c = 0; c < 4; c++) regs += (dmask >> c) & 1u;
    uint32_t bytes = (cmp ? regs / 2 : regs) * 4u;
    if (bytes != 4 && bytes != 8) return 0;
    if (v->null_desc) return bytes;
    if (v->fmt.data != (bytes == 8 ? (uint32_t)RT_DF_32_32 : (uint32_t)RT_DF_32)) return 0;
    int fl = op == RT_AOP_FCMPSWAP || op == RT_AOP_FMIN || op == RT_AOP_FMAX;
    uint32_t n = v->fmt.num;
    int ok = fl ? n == RT_NF_FLOAT
                : (n == RT_NF_UINT || n == RT_NF_SINT || (n == RT_NF_FLOAT && (op == RT_AOP_SWAP || op == RT_AOP_CMPSWAP)));
    return ok ? bytes : 0u;
}

/* One lane's atomic on its texel: returns the value before (0 when the texel lies outside the view). On the
 * GPU the read-modify-write is a compare-and-swap loop, so groups and lanes racing on a texel stay atomic. */
RT_FN uint64_t rt_img_atomic(const rt_img_view_t *v, uint32_t op, uint32_t bytes, int64_t texel, uint64_t data,
                             uint64_t cmp) {
    if (texel < 0) return 0;
    uint8_t *p = rt_img_texel_ptr(v, texel);
#if RT_GPU
    if (bytes == 8) {
        unsigned long long *a = (unsigned long long *)p, seen = *a, was;
        do {
            was = seen;
            seen = atomicCAS(a, was, (unsigned long long)rt_atomic_op((int)op, was, data, cmp, 8));
        } while (seen != was);
        return was;
    } else {
        unsigned int *a = (unsigned int *)p, seen = *a, was;
        do {
            was = seen;
            seen = atomicCAS(a, was, (unsigned int)rt_atomic_op((int)op, was, data, cmp, 4));
        } while (seen != was);
        return was;
    }
#else
    uint64_t old = 0;
    memcpy(&old, p, bytes);
    uint64_t next = rt_atomic_op((int)op, old, data, cmp, (int)bytes);
    memcpy(p, &next, bytes);
    return old;
#endif
}

/* ------------------------------------------------------------------ S# and sampling */

enum { RT_AM_WRAP, RT_AM_MIRROR, RT_AM_CLAMP_LAST, RT_AM_MIRROR_ONCE_LAST, RT_AM_CLAMP_HALF_BORDER,
       RT_AM_MIRROR_ONCE_HALF_BORDER, RT_AM_CLAMP_BORDER, RT_AM_MIRROR_ONCE_BORDER };

typedef struct {
    uint32_t clamp[3];
    uint32_t force_unnorm;
    uint32_t min_lod, max_lod; /* unsigned 4.8 */
    int32_t lod_bias;          /* signed 6.8 */
    uint32_t mag, min, zf, mip;
    uint32_t border_ptr, border_type;
} rt_ssharp_t;

RT_FN void rt_img_ssharp(const uint32_t w[4], rt_ssharp_t *s) {
    s->clamp[0] = w[0] & 7u;
    s->clamp[1] = (w[0] >> 3) & 7u;
    s->clamp[2] = (w[0] >> 6) & 7u;
    s->force_unnorm = (w[0] >> 15) & 1u;
    s->min_lod = w[1] & 0xFFFu;
    s->max_lod = (w[1] >> 12) & 0xFFFu;
    s->lod_bias = (int32_t)(w[2] << 18) >> 18;
    s->mag = (w[2] >> 20) & 3u;
    s->min = (w[2] >> 22) & 3u;
    s->zf = (w[2] >> 24) & 3u;
    s->mip = (w[2] >> 26) & 3u;
    s->border_ptr = w[3] & 0xFFFu;
    s->border_type = w[3] >> 30;
}

/* The border colour (transparent black, opaque black, opaque white); type 3 (the border colour table, which a
 * replay lacks) faults only when an address mode can reach the border, else reads as zeros. */
RT_FN int rt_img_border(const rt_ssharp_t *s, float out[4]) {
    for (int c = 0; c < 4; c++) out[c] = 0.0f;
    if (s->border_type == 1) out[3] = 1.0f;
    if (s->border_type == 2) for (int c = 0; c < 4; c++) out[c] = 1.0f;
    if (s->border_type == 3) {
        for (int a = 0; a < 3; a++) if (s->clamp[a] >= RT_AM_CLAMP_HALF_BORDER) return RT_IMG_E_BORDER;
    }
    return RT_IMG_OK;
}

/* Doubles to 64-bit integers as Java's cast does (NaN 0, saturating), so huge coordinates wrap alike. */
RT_FN int64_t rt_img_tol(double x) {
    if (rt_img_isnan(x)) return 0;
    if (x >= 9223372036854775807.0) return INT64_MAX;
    if (x <= -9223372036854775808.0) return INT64_MIN;
    return (int64_t)x;
}
RT_FN int32_t rt_img_toi(double x) {
    if (rt_img_isnan(x)) return 0;
    if (x >= 2147483647.0) return INT32_MAX;
    if (x <= -2147483648.0) return INT32_MIN;
    return (int32_t)x;
}
/* min / max that propagate a NaN */
RT_FN double rt_img_pmin(double a, double b) { return (rt_img_isnan(a) || rt_img_isnan(b)) ? a + b : (a < b ? a : b); }
RT_FN double rt_img_pmax(double a, double b) { return (rt_img_isnan(a) || rt_img_isnan(b)) ? a + b : (a > b ? a : b); }

RT_FN int64_t rt_img_floor_mod(int64_t i, int64_t n) {
    int64_t r = i % n;
    return r < 0 ? r + n : r;
}

/* The half-border modes first clamp the (mirrored once) texel coordinate to [-0.5, n + 0.5]. */
RT_FN double rt_img_half_border(uint32_t mode, double x, uint32_t n) {
    if (mode == RT_AM_CLAMP_HALF_BORDER) return rt_img_pmax(-0.5, rt_img_pmin((double)n + 0.5, x));
    if (mode == RT_AM_MIRROR_ONCE_HALF_BORDER) return rt_img_pmin((double)n + 0.5, fabs(x));
    return x;
}

/* A tap's texel index on one axis brought into [0, n) by the address mode; -1: the border colour. */
RT_FN int64_t rt_img_address(uint32_t mode, int64_t i, uint32_t n) {
    int64_t N = (int64_t)n;
    switch (mode) {
    case RT_AM_WRAP: return rt_img_floor_mod(i, N);
    case RT_AM_MIRROR: {
        int64_t k = rt_img_floor_mod(i, 2 * N);
        return k < N ? k : 2 * N - 1 - k;
    }
    case RT_AM_CLAMP_LAST: return i < 0 ? 0 : (i > N - 1 ? N - 1 : i);
    case RT_AM_MIRROR_ONCE_LAST: {
        int64_t k = i < 0 ? -1 - i : i;
        return k > N - 1 ? N - 1 : k;
    }
    case RT_AM_CLAMP_HALF_BORDER: case RT_AM_CLAMP_BORDER: return (i >= 0 && i < N) ? i : -1;
    default: { /* the mirror-once border forms */
        int64_t k = i < 0 ? -1 - i : i;
        return k < N ? k : -1;
    }
    }
}

/* Where one lane samples. */
typedef struct {
    float u, v, r, slice;
    int two_d, three_d, cube;
} rt_img_at_t;

/* The array slice: floor(slice + 0.5) clamped to the view's layers. */
RT_FN int64_t rt_img_slice(const rt_img_view_t *v, float slice) {
    double s = floor((double)slice + 0.5);
    if (rt_img_isnan(s)) return 0;
    double hi = (double)v->layers - 1.0;
    s = s > hi ? hi : s;
    return s < 0.0 ? 0 : (int64_t)s;
}

/* One tap (texel indices per axis before the address modes) as floats; integer formats as their integers. */
RT_FN void rt_img_tap(const rt_img_view_t *v, const rt_ssharp_t *s, int32_t level, int64_t layer, const int64_t i[3],
                      const uint32_t n[3], const float border[4], float out[4], int *err) {
    int64_t x = rt_img_address(s->clamp[0], i[0], n[0]);
    int64_t y = rt_img_address(s->clamp[1], i[1], n[1]);
    int64_t z = rt_img_address(s->clamp[2], i[2], n[2]);
    if (x < 0 || y < 0 || z < 0) { for (int c = 0; c < 4; c++) out[c] = border[c]; return; }
    int64_t t = rt_img_texel(v, level, layer, x, y, z, err);
    for (int c = 0; c < 4; c++) out[c] = 0.0f;
    if (t < 0) return;
    uint32_t ch[4];
    rt_img_channels(v, t, ch);
    for (int c = 0; c < 4; c++) out[c] = rt_img_fmt_integer(&v->fmt) ? (float)(int32_t)ch[c] : rt_img_f(ch[c]);
}

/* The 8-bit sub-texel fraction, in 1/256 units (0..256), of f in [0, 1): rounded to nearest even. */
RT_FN double rt_img_frac8(double f) { return rt_img_rne(f * 256.0); }

/* The face and texel a position just past one edge of a cube face lies on: its centre as a direction (Vulkan's
 * face table: +X sc -z tc -y; -X +z -y; +Y +x +z; -Y +x -z; +Z +x -y; -Z -x -y), then its major axis's face. */
RT_FN void rt_img_cube_across(uint32_t face, int64_t x, int64_t y, uint32_t size, uint32_t out[3]) {
    double sc = 2.0 * ((double)x + 0.5) / size - 1.0, tc = 2.0 * ((double)y + 0.5) / size - 1.0, d[3];
    switch (face) {
    case 0: d[0] = 1; d[1] = -tc; d[2] = -sc; break;
    case 1: d[0] = -1; d[1] = -tc; d[2] = sc; break;
    case 2: d[0] = sc; d[1] = 1; d[2] = tc; break;
    case 3: d[0] = sc; d[1] = -1; d[2] = -tc; break;
    case 4: d[0] = sc; d[1] = -tc; d[2] = 1; break;
    default: d[0] = -sc; d[1] = -tc; d[2] = -1; break;
    }
    double ax = fabs(d[0]), ay = fabs(d[1]), az = fabs(d[2]), s, t, ma;
    if (az >= ax && az >= ay) { out[0] = d[2] >= 0 ? 4u : 5u; ma = az; s = d[2] >= 0 ? d[0] : -d[0]; t = -d[1]; }
    else if (ay >= ax) { out[0] = d[1] >= 0 ? 2u : 3u; ma = ay; s = d[0]; t = d[1] >= 0 ? d[2] : -d[2]; }
    else { out[0] = d[0] >= 0 ? 0u : 1u; ma = ax; s = d[0] >= 0 ? -d[2] : d[2]; t = -d[1]; }
    double nx = floor((s / ma + 1.0) / 2.0 * size), ny = floor((t / ma + 1.0) / 2.0 * size);
    double hi = (double)size - 1.0;
    out[1] = (uint32_t)(nx < 0.0 ? 0.0 : nx > hi ? hi : nx);
    out[2] = (uint32_t)(ny < 0.0 ? 0.0 : ny > hi ? hi : ny);
}

/* Seamless cube filtering (Vulkan's cube map edge handling): a tap past one edge of its face reads the
 * neighbouring face's texel there; a tap past a corner is the average of the footprint's other three. The
 * cube is the six layers from the view layer's face 0; w8 are the eight-bit fractions (1/256 units). */
RT_FN void rt_img_cube_bilinear(const rt_img_view_t *v, int32_t level, int64_t layer, const int64_t lo[3],
                                const double w8[3], uint32_t size, float out[4], int *err) {
    uint32_t face = (uint32_t)(layer % 6);
    int64_t first = layer - face;
    float taps[4][4];
    int missing = -1;
    for (int corner = 0; corner < 4; corner++) {
        int64_t x = lo[0] + (corner & 1), y = lo[1] + (corner >> 1);
        int out_x = x < 0 || x >= (int64_t)size, out_y = y < 0 || y >= (int64_t)size;
        for (int c = 0; c < 4; c++) taps[corner][c] = 0.0f;
        if (out_x && out_y) { missing = corner; continue; }
        uint32_t at[3] = {face, (uint32_t)x, (uint32_t)y};
        if (out_x || out_y) rt_img_cube_across(face, x, y, size, at);
        int64_t t = rt_img_texel(v, level, first + at[0], at[1], at[2], 0, err);
        if (*err) return;
        if (t < 0) continue;
        uint32_t ch[4];
        rt_img_channels(v, t, ch);
        for (int c = 0; c < 4; c++) taps[corner][c] = rt_img_f(ch[c]);
    }
    if (missing >= 0) {
        for (int c = 0; c < 4; c++) {
            double sum = 0.0;
            for (int k = 0; k < 4; k++) sum += k == missing ? 0.0 : (double)taps[k][c];
            taps[missing][c] = (float)(sum / 3.0);
        }
    }
    double acc[4] = {0, 0, 0, 0};
    for (int corner = 0; corner < 4; corner++) {
        double wt = ((corner & 1) ? w8[0] : 256.0 - w8[0]) / 256.0 * (((corner >> 1) & 1) ? w8[1] : 256.0 - w8[1]) / 256.0;
        for (int c = 0; c < 4; c++) acc[c] += wt * (double)taps[corner][c];
    }
    for (int c = 0; c < 4; c++) out[c] = (float)acc[c];
}

/* One level's filtered texel. */
RT_FN void rt_img_filter_level(const rt_img_view_t *v, const rt_ssharp_t *s, int unnorm, const rt_img_at_t *at,
                               int bilinear, int64_t layer, int32_t view_level, const float border[4], float out[4],
                               int *err) {
    int32_t level = rt_img_level(v, view_level, err);
    for (int c = 0; c < 4; c++) out[c] = 0.0f;
    if (*err) return;
    uint32_t n[3];
    n[0] = level >= 0 ? rt_img_vw(v, level) : 1u;
    n[1] = at->two_d && level >= 0 ? rt_img_vh(v, level) : 1u;
    n[2] = at->three_d && level >= 0 ? rt_img_vd(v, level) : 1u;
    double p[3];
    p[0] = rt_img_half_border(s->clamp[0], unnorm ? (double)at->u : (double)at->u * n[0], n[0]);
    p[1] = at->two_d ? rt_img_half_border(s->clamp[1], unnorm ? (double)at->v : (double)at->v * n[1], n[1]) : 0.5;
    p[2] = at->three_d ? rt_img_half_border(s->clamp[2], unnorm ? (double)at->r : (double)at->r * n[2], n[2]) : 0.5;
    if (!bilinear) {
        int64_t i[3] = {rt_img_tol(floor(p[0])), rt_img_tol(floor(p[1])), rt_img_tol(floor(p[2]))};
        rt_img_tap(v, s, level, layer, i, n, border, out, err);
        return;
    }
    /* texel centres at k + 0.5: the lower tap and a fraction toward the next, eight bits */
    int axes = at->three_d ? 3 : at->two_d ? 2 : 1;
    int64_t lo[3] = {0, 0, 0};
    double w8[3] = {0, 0, 0};
    for (int a = 0; a < axes; a++) {
        double c = p[a] - 0.5;
        lo[a] = rt_img_tol(floor(c));
        w8[a] = rt_img_frac8(c - (double)lo[a]);
    }
    if (at->cube) {
        rt_img_cube_bilinear(v, level, layer, lo, w8, n[0], out, err);
        return;
    }
    double acc[4] = {0, 0, 0, 0};
    for (int corner = 0; corner < (1 << axes); corner++) {
        double wt = 1.0;
        int64_t i[3] = {lo[0], lo[1], lo[2]};
        for (int a = 0; a < axes; a++) {
            int up = (corner >> a) & 1;
            wt *= (up ? w8[a] : 256.0 - w8[a]) / 256.0;
            i[a] += up;
        }
        float t[4];
        rt_img_tap(v, s, level, layer, i, n, border, t, err);
        if (*err) return;
        for (int c = 0; c < 4; c++) acc[c] += wt * (double)t[c];
    }
    for (int c = 0; c < 4; c++) out[c] = (float)acc[c];
}

/* The S#'s LOD clamp of a LOD (NaN as 0). */
RT_FN double rt_img_lod_clamp(const rt_ssharp_t *s, double lod) {
    double l = rt_img_isnan(lod) ? 0.0 : lod;
    double lo = s->min_lod / 256.0, hi = s->max_lod / 256.0;
    l = l < hi ? l : hi;
    return l > lo ? l : lo;
}

/*
 * One lane's sample of a non-integer format: filtered storage-order channel values (as f32 bits). The
 * magnification filter applies at LOD <= 0, minification above; mip filter none takes view level 0, point
 * the nearest level, linear blends the two nearest with an eight-bit fraction.
 */
RT_FN void rt_img_sample_float(const rt_img_view_t *v, const rt_ssharp_t *s, int unnorm, const rt_img_at_t *at,
                               double lod, const float border[4], uint32_t ch[4], int *err) {
    double c = rt_img_lod_clamp(s, lod);
    double top = (double)(v->levels - 1);
    c = c < top ? c : top;
    c = c > 0.0 ? c : 0.0;
    uint32_t f = lod <= 0.0 ? s->mag : s->min;
    int bilinear = f == 1 || f == 3;
    int64_t layer = rt_img_slice(v, at->slice);
    float out[4];
    if (s->mip == 0) {
        rt_img_filter_level(v, s, unnorm, at, bilinear, layer, 0, border, out, err);
    } else if (s->mip == 1) {
        rt_img_filter_level(v, s, unnorm, at, bilinear, layer, (int32_t)floor(c + 0.5), border, out, err);
    } else {
        int32_t lo = (int32_t)floor(c);
        double fr = rt_img_frac8(c - lo) / 256.0;
        rt_img_filter_level(v, s, unnorm, at, bilinear, layer, lo, border, out, err);
        if (!*err && fr != 0.0 && lo + 1 < v->levels) {
            float b[4];
            rt_img_filter_level(v, s, unnorm, at, bilinear, layer, lo + 1, border, b, err);
            for (int k = 0; k < 4; k++) out[k] = (float)((double)out[k] * (1.0 - fr) + (double)b[k] * fr);
        }
    }
    for (int k = 0; k < 4; k++) ch[k] = rt_img_b(out[k]);
}

/* One lane's sample of an integer format: always point, at the nearest level, the texel's integers as they lie
 * (a border tap gives the border colour's 0 or 1 per channel). */
RT_FN void rt_img_sample_int(const rt_img_view_t *v, const rt_ssharp_t *s, int unnorm, const rt_img_at_t *at,
                             double lod, const float border[4], uint32_t ch[4], int *err) {
    double c = rt_img_lod_clamp(s, lod);
    double top = (double)(v->levels - 1);
    c = c < top ? c : top;
    c = c > 0.0 ? c : 0.0;
    int32_t vl = s->mip == 0 ? 0 : (int32_t)floor(c + 0.5);
    int32_t level = rt_img_level(v, vl, err);
    for (int k = 0; k < 4; k++) ch[k] = 0;
    if (*err) return;
    uint32_t w = rt_img_vw(v, level), h = at->two_d ? rt_img_vh(v, level) : 1u, d = at->three_d ? rt_img_vd(v, level) : 1u;
    double x = rt_img_half_border(s->clamp[0], unnorm ? (double)at->u : (double)at->u * w, w);
    double y = at->two_d ? rt_img_half_border(s->clamp[1], unnorm ? (double)at->v : (double)at->v * h, h) : 0.5;
    double z = at->three_d ? rt_img_half_border(s->clamp[2], unnorm ? (double)at->r : (double)at->r * d, d) : 0.5;
    int64_t xi = rt_img_address(s->clamp[0], rt_img_tol(floor(x)), w);
    int64_t yi = rt_img_address(s->clamp[1], rt_img_tol(floor(y)), h);
    int64_t zi = rt_img_address(s->clamp[2], rt_img_tol(floor(z)), d);
    if (xi < 0 || yi < 0 || zi < 0) {
        for (int k = 0; k < 4; k++) ch[k] = (uint32_t)(int32_t)border[k];
        return;
    }
    int64_t t = rt_img_texel(v, level, rt_img_slice(v, at->slice), xi, yi, zi, err);
    if (t >= 0) rt_img_channels(v, t, ch);
}

/* image_sample's LOD from the quad: log2 of the larger of the horizontal (lane ^ 1) and vertical (lane ^ 2)
 * coordinate differences, in texels of the view's first level; -128 when both are 0. */
RT_FN double rt_img_derived_lod(const rt_img_view_t *v, int unnorm, const rt_img_at_t *self, const rt_img_at_t *hz,
                                const rt_img_at_t *vt, int *err) {
    int32_t level = rt_img_level(v, 0, err);
    int32_t l = level > 0 ? level : 0;
    double sw = unnorm ? 1.0 : (double)rt_img_vw(v, l);
    double sh = unnorm ? 1.0 : (double)rt_img_vh(v, l);
    double sd = unnorm ? 1.0 : (double)rt_img_vd(v, l);
    double dxu = (double)(float)(hz->u - self->u) * sw, dyu = (double)(float)(vt->u - self->u) * sw;
    double dxv = self->two_d ? (double)(float)(hz->v - self->v) * sh : 0.0;
    double dyv = self->two_d ? (double)(float)(vt->v - self->v) * sh : 0.0;
    double dxr = self->three_d ? (double)(float)(hz->r - self->r) * sd : 0.0;
    double dyr = self->three_d ? (double)(float)(vt->r - self->r) * sd : 0.0;
    double lx = sqrt(dxu * dxu + dxv * dxv + dxr * dxr), ly = sqrt(dyu * dyu + dyv * dyv + dyr * dyr);
    double rho = lx > ly ? lx : ly;
    return rho > 0.0 ? log2(rho) : -128.0;
}

/* The per-instruction checks of image_sample*: RT_IMG_OK or the fault. */
RT_FN int rt_img_sample_check(const rt_img_view_t *v, uint32_t dim) {
    if (v->null_desc || rt_img_msaa(v->t.type)) return RT_IMG_E_TYPE;
    if (dim >= 6) return RT_IMG_E_DIM;
    if (v->levels <= 0) return RT_IMG_E_NOLEVEL;
    if (v->t.min_lod != 0) return RT_IMG_E_MINLOD;
    return RT_IMG_OK;
}

/* Where a lane samples, from its address dwords: u, v, r (0.5 on axes the image lacks), slice. */
RT_FN void rt_img_sample_at(uint32_t dim, int a16, const uint32_t *addr, rt_img_at_t *at) {
    uint32_t n = rt_img_coords(dim);
    at->three_d = dim == 2;
    at->two_d = dim == 1 || dim == 5 || dim == 2 || dim == 3;
    at->cube = dim == 3;
    at->u = rt_img_addr_float(addr, a16, 0);
    at->v = at->two_d ? rt_img_addr_float(addr, a16, 1) : 0.5f;
    at->r = at->three_d ? rt_img_addr_float(addr, a16, 2) : 0.5f;
    at->slice = dim >= 3 ? rt_img_addr_float(addr, a16, n - 1) : 0.0f;
    if (dim == 3) {
        /* a cube's s and t arrive as v_cubesc / v_cubetc scaled by 1 / |v_cubema| plus 1.5: [1, 2] across the
           face, whose number is the third value; the face is read as a layer at (s - 1, t - 1) */
        at->u -= 1.0f;
        at->v -= 1.0f;
        /* the slice is face + 8 * cube (v_cubeid plus 8 times a cube array's index): the cube's faces are
           layers 6 * cube .. 6 * cube + 5 */
        double id = floor((double)at->slice + 0.5);
        if (id >= 0.0 && id < 8.0 * 8192.0) {
            uint32_t k = (uint32_t)id;
            at->slice = (float)((k >> 3) * 6u + (k & 7u));
        }
    }
}

/* A cube has no address modes (Vulkan's CLAMP_TO_EDGE): its S# is read with both axes clamped to the last texel. */
RT_FN void rt_img_cube_sampler(rt_ssharp_t *s) {
    s->clamp[0] = RT_AM_CLAMP_LAST;
    s->clamp[1] = RT_AM_CLAMP_LAST;
}


/* image_sample, _lz, _l for one lane (lod already formed: 0, the address's LOD, or derived + bias); returns the
 * VGPR count written to out. */
RT_FN uint32_t rt_img_sample(const rt_img_view_t *v, const rt_ssharp_t *s, int unnorm, const rt_img_at_t *at,
                             double lod, const float border[4], uint32_t dmask, int d16, int tfe, uint32_t out[5],
                             int *err) {
    uint32_t ch[4], sel[4];
    if (rt_img_fmt_integer(&v->fmt)) rt_img_sample_int(v, s, unnorm, at, lod, border, ch, err);
    else rt_img_sample_float(v, s, unnorm, at, lod, border, ch, err);
    rt_img_select(v, ch, sel);
    return rt_img_pack_result(&v->fmt, dmask, d16, tfe, sel, out);
}

/* ------------------------------------------------------------------ formatted buffers (MUBUF *_format_*, MTBUF) */

/* The V#: base [47:0], STRIDE, SWIZZLE_ENABLE, NUM_RECORDS, DST_SEL, FORMAT, INDEX_STRIDE, ADD_TID, OOB_SELECT. */
typedef struct {
    uint64_t base;
    uint32_t stride, swizzle, num_records, dst_sel, format, index_stride, add_tid, oob;
} rt_img_vsharp_t;

RT_FN void rt_img_vsharp(const uint32_t w[4], rt_img_vsharp_t *r) {
    r->base = ((uint64_t)(w[1] & 0xFFFFu) << 32) | w[0];
    r->stride = (w[1] >> 16) & 0x3FFFu;
    r->swizzle = w[1] >> 31;
    r->num_records = w[2];
    r->dst_sel = w[3] & 0xFFFu;
    r->format = (w[3] >> 12) & 0x7Fu;
    r->index_stride = 8u << ((w[3] >> 21) & 3u);
    r->add_tid = (w[3] >> 23) & 1u;
    r->oob = (w[3] >> 28) & 3u;
}

/* One lane's buffer addressing. */
typedef struct {
    uint64_t index, offset, soffset;
} rt_img_bufl_t;

/* Byte k of the element: its guest address (swizzled buffers interleave 4-byte elements of INDEX_STRIDE records). */
RT_FN uint64_t rt_img_buf_addr(const rt_img_vsharp_t *r, const rt_img_bufl_t *l, uint64_t k) {
    uint64_t off = l->offset + k, bo;
    if (r->swizzle) {
        uint64_t is = r->index_stride;
        bo = ((l->index / is) * r->stride + (off >> 2) * 4u) * is + (l->index % is) * 4u + (off & 3u);
    } else {
        bo = l->index * r->stride + off;
    }
    return r->base + l->soffset + bo;
}

/* Whether the whole element of `size` bytes passes the V#'s range check (OOB_SELECT). */
RT_FN int rt_img_buf_in_range(const rt_img_vsharp_t *r, const rt_img_bufl_t *l, uint32_t size) {
    switch (r->oob) {
    case 0: return l->index < r->num_records && l->offset + size <= r->stride;
    case 1: return l->index < r->num_records;
    case 2: return r->num_records != 0;
    default: return l->offset + size <= r->num_records;
    }
}

/* A format load's VGPR values from the element (in range) and the V#'s DST_SEL: count components (1..4),
 * D16 packs two a VGPR (hi: the one component to the high half of old_lo). Returns the VGPR count. */
RT_FN uint32_t rt_img_buf_load_result(const rt_img_fmt_t *f, uint32_t dst_sel, int in, const uint8_t *elem,
                                      uint32_t count, int d16, int hi, uint32_t old0, uint32_t old_last,
                                      uint32_t out[4]) {
    uint32_t e[4] = {0, 0, 0, 0}, res[4];
    if (in) rt_img_decode(f, elem, e);
    uint32_t one = rt_img_fmt_integer(f) ? 1u : RT_IMG_ONE;
    for (uint32_t c = 0; c < count; c++) {
        uint32_t s = (dst_sel >> (3 * c)) & 7u;
        uint32_t val = s >= 4 ? e[s - 4] : (s == 1 ? one : 0u);
        res[c] = in ? val : 0u;
    }
    if (!d16) { for (uint32_t c = 0; c < count; c++) out[c] = res[c]; return count; }
    if (hi) { out[0] = (old0 & 0xFFFFu) | (rt_img_to_d16(f, res[0]) << 16); return 1; }
    uint32_t regs = (count + 1) / 2;
    for (uint32_t c = 0; c < count; c += 2) {
        uint32_t lo = rt_img_to_d16(f, res[c]);
        out[c / 2] = c + 1 < count ? lo | (rt_img_to_d16(f, res[c + 1]) << 16) : (old_last & 0xFFFF0000u) | lo;
    }
    return regs;
}

/* A format store's element bytes from the VGPR values; returns the byte count to write (the components both
 * the instruction and the format have), 0 with *err for a partial packed element. */
RT_FN uint32_t rt_img_buf_store_bytes(const rt_img_fmt_t *f, uint32_t count, int d16, int hi, const uint32_t *vd,
                                      uint8_t out[16], int *err) {
    uint32_t regs[4] = {0, 0, 0, 0};
    uint32_t n = count < f->nch ? count : f->nch;
    for (uint32_t c = 0; c < n; c++) {
        if (d16) {
            uint32_t reg = vd[c / 2];
            regs[c] = rt_img_from_d16(f, hi ? reg >> 16 : reg >> (16 * (c % 2)));
        } else {
            regs[c] = vd[c];
        }
    }
    memset(out, 0, 16);
    rt_img_encode(f, regs, out);
    if (n == f->nch) return f->bytes;
    if (f->bits[0] != 8 && f->bits[0] != 16 && f->bits[0] != 32) { *err = RT_IMG_E_PARTIAL; return 0; }
    return n * (f->bits[0] / 8);
}

/* ------------------------------------------------------------------ BVH (image_bvh*_intersect_ray) */

typedef struct {
    uint64_t base;
    uint32_t grow_ulp, sort;
    uint64_t size_units; /* 64-byte units - 1 */
    uint32_t return_ij, type;
} rt_bvh_desc_t;

RT_FN void rt_bvh_desc(const uint32_t w[4], rt_bvh_desc_t *d) {
    uint64_t lo = ((uint64_t)w[1] << 32) | w[0], hi = ((uint64_t)w[3] << 32) | w[2];
    d->base = (lo & ((1ull << 40) - 1ull)) << 8;
    d->grow_ulp = (uint32_t)((lo >> 55) & 0xFFu);
    d->sort = (uint32_t)(lo >> 63);
    d->size_units = hi & ((1ull << 42) - 1ull);
    d->return_ij = (uint32_t)((hi >> 56) & 1u);
    d->type = (uint32_t)(hi >> 60);
}

/* Whether the node lies inside the BVH (box32 spans two units; instance and procedural nodes are not read). */
RT_FN int rt_bvh_holds(const rt_bvh_desc_t *d, uint64_t node) {
    uint32_t t = (uint32_t)(node & 7u);
    uint64_t units = t == 5 ? 2u : (t >= 6 ? 0u : 1u);
    return units == 0 || (node >> 3) + units - 1 <= d->size_units;
}

RT_FN uint64_t rt_bvh_node_addr(const rt_bvh_desc_t *d, uint64_t node) { return d->base + ((node >> 3) << 6); }

/* The vertices (0..4) each triangle node type tests (GPURT's compressed pairs). */
RT_FN uint32_t rt_bvh_vertex(uint32_t type, uint32_t k) {
    static const uint8_t V[4][3] = {{0, 1, 2}, {1, 3, 2}, {2, 3, 4}, {2, 4, 0}};
    return V[type & 3][k];
}

/* The node dwords the test reads (bit i: dword i of the node). */
RT_FN uint32_t rt_bvh_fetch_mask(uint64_t node) {
    uint32_t t = (uint32_t)(node & 7u);
    if (t == 5) return 0x0FFFFFFFu;  /* box32: children 0..3, bounds 16..111 */
    if (t == 4) return 0x0000FFFFu;  /* box16: children, 3 packed dwords per child */
    if (t >= 6) return 0;
    uint32_t m = 1u << 15;           /* triangle id word at byte 60 */
    for (uint32_t k = 0; k < 3; k++) m |= 7u << (3 * rt_bvh_vertex(t, k));
    return m;
}

RT_FN float rt_bvh_maxnum(float a, float b) {
    if (a != a) return b;
    if (b != b) return a;
    if (a == b) return (rt_img_b(a) & 0x80000000u) ? b : a; /* +0 above -0 */
    return a > b ? a : b;
}
RT_FN float rt_bvh_minnum(float a, float b) {
    if (a != a) return b;
    if (b != b) return a;
    if (a == b) return (rt_img_b(a) & 0x80000000u) ? a : b;
    return a < b ? a : b;
}

/* ray: extent, origin xyz, dir xyz, inverse dir xyz (f32). */
RT_FN void rt_bvh_box(const rt_bvh_desc_t *d, int half, const float ray[10], const uint32_t *nd, uint32_t out[4]) {
    float key[4];
    uint32_t child[4];
    float grow = 1.0f + (float)d->grow_ulp * 5.9604644775390625e-8f; /* 2^-24 */
    for (int i = 0; i < 4; i++) {
        float b[6];
        if (half) {
            for (int k = 0; k < 3; k++) {
                uint32_t w = nd[4 + 3 * i + k];
                b[2 * k] = rt_img_f(rt_img_h2f(w & 0xFFFFu));
                b[2 * k + 1] = rt_img_f(rt_img_h2f(w >> 16));
            }
        } else {
            for (int k = 0; k < 6; k++) b[k] = rt_img_f(nd[4 + 6 * i + k]);
        }
        float nearv[3], farv[3];
        for (int a = 0; a < 3; a++) {
            float t0 = (b[a] - ray[1 + a]) * ray[7 + a];
            float t1 = (b[a + 3] - ray[1 + a]) * ray[7 + a];
            int pos = ray[7 + a] >= 0.0f;
            nearv[a] = pos ? t0 : t1;
            farv[a] = pos ? t1 : t0;
        }
        float entry = rt_bvh_maxnum(rt_bvh_maxnum(nearv[0], nearv[1]), nearv[2]);
        float exitv = rt_bvh_minnum(rt_bvh_minnum(farv[0], farv[1]), farv[2]);
        if (entry != entry || exitv != exitv) {
            entry = rt_img_f(RT_IMG_INF);
            exitv = -rt_img_f(RT_IMG_INF);
        } else {
            entry = rt_bvh_maxnum(entry, 0.0f);
            exitv = rt_bvh_minnum(exitv, ray[0]);
        }
        key[i] = entry;
        child[i] = entry <= exitv * grow ? nd[i] : RT_IMG_MISS;
    }
    if (d->sort) {
        static const uint8_t NET[5][2] = {{0, 2}, {1, 3}, {0, 1}, {2, 3}, {1, 2}};
        for (int p = 0; p < 5; p++) {
            int a = NET[p][0], b = NET[p][1];
            if ((child[b] != RT_IMG_MISS && key[b] < key[a]) || child[a] == RT_IMG_MISS) {
                float k = key[a]; key[a] = key[b]; key[b] = k;
                uint32_t c = child[a]; child[a] = child[b]; child[b] = c;
            }
        }
    }
    for (int i = 0; i < 4; i++) out[i] = child[i];
}

RT_FN void rt_bvh_cross(const float a[3], const float b[3], float o[3]) {
    o[0] = a[1] * b[2] - a[2] * b[1];
    o[1] = a[2] * b[0] - a[0] * b[2];
    o[2] = a[0] * b[1] - a[1] * b[0];
}
RT_FN float rt_bvh_dot(const float a[3], const float b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

RT_FN void rt_bvh_triangle(const rt_bvh_desc_t *d, uint32_t type, const float ray[10], const uint32_t *nd,
                           uint32_t out[4]) {
    float v[3][3];
    for (int k = 0; k < 3; k++) {
        uint32_t at = 3 * rt_bvh_vertex(type, (uint32_t)k);
        for (int c = 0; c < 3; c++) v[k][c] = rt_img_f(nd[at + c]);
    }
    uint32_t id = nd[15];
    float e1[3], e2[3], e3[3], s1[3], s2[3];
    for (int c = 0; c < 3; c++) {
        e1[c] = v[1][c] - v[0][c];
        e2[c] = v[2][c] - v[0][c];
        e3[c] = ray[1 + c] - v[0][c];
    }
    rt_bvh_cross(ray + 4, e2, s1);
    rt_bvh_cross(e3, e1, s2);
    float den = rt_bvh_dot(s1, e1), tn = rt_bvh_dot(e2, s2), iu = rt_bvh_dot(e3, s1), jv = rt_bvh_dot(ray + 4, s2);
    float t = tn / den, b1 = iu / den, b2 = jv / den;
    int hit = !(b1 < 0.0f || b1 > 1.0f || b2 < 0.0f || b1 + b2 > 1.0f || t < 0.0f);
    if (!d->return_ij) {
        out[0] = hit ? rt_img_b(tn) : RT_IMG_INF;
        out[1] = hit ? rt_img_b(den) : RT_IMG_ONE;
        out[2] = id;
        out[3] = hit ? 1u : 0u;
        return;
    }
    if (!hit) { out[0] = RT_IMG_INF; out[1] = RT_IMG_ONE; out[2] = 0; out[3] = 0; return; }
    float num[4] = {den - iu - jv, iu, jv, 0.0f};
    uint32_t order = (id >> (8 * type)) & 0xFFu;
    out[0] = rt_img_b(tn);
    out[1] = rt_img_b(den);
    out[2] = rt_img_b(num[order & 3u]);
    out[3] = rt_img_b(num[(order >> 2) & 3u]);
}

/* The four result dwords for a node; nd holds the node's dwords (those rt_bvh_fetch_mask names). */
RT_FN void rt_bvh_intersect(const rt_bvh_desc_t *d, uint64_t node, const float ray[10], const uint32_t *nd,
                            uint32_t out[4]) {
    uint32_t t = (uint32_t)(node & 7u);
    if (t == 4 || t == 5) { rt_bvh_box(d, t == 4, ray, nd, out); return; }
    if (t >= 6) { for (int i = 0; i < 4; i++) out[i] = RT_IMG_MISS; return; }
    rt_bvh_triangle(d, t, ray, nd, out);
}

/* The ray operands from the address dwords after the node pointer: extent, origin, then dir and inverse dir
 * as f32 or (A16) three dwords of f16 pairs {dx|dy}, {dz|ix}, {iy|iz}. */
RT_FN void rt_bvh_ray(const uint32_t *a, int a16, float ray[10]) {
    for (int k = 0; k < 4; k++) ray[k] = rt_img_f(a[k]);
    if (a16) {
        for (int k = 0; k < 3; k++) {
            ray[4 + 2 * k] = rt_img_f(rt_img_h2f(a[4 + k] & 0xFFFFu));
            ray[5 + 2 * k] = rt_img_f(rt_img_h2f(a[4 + k] >> 16));
        }
    } else {
        for (int k = 4; k < 10; k++) ray[k] = rt_img_f(a[k]);
    }
}

/* ------------------------------------------------------------------ glue to replay_rt.h (generated code) */
#ifdef RT_SLOT

/* The launch's images. */
RT_FN rt_images_t rt_img_images_of(const rt_ctx_t *c) { return rt_img_section(c->l->images, c->l->images_bytes); }

/* Records an image-unit fault: lane -1 unless the fault is one lane's; addr carries the RT_IMG_E_* code
 * (memory faults carry the guest address as RT_FAULT_MEMORY does). */
RT_FN void rt_img_fault(rt_ctx_t *c, uint64_t pc, int lane, int err) {
    rt_fault(c, RT_FAULT_OTHER, pc, lane, (uint64_t)(uint32_t)err);
}

/* Device bytes of guest [a, a + n): the group's scratch backing store (from FLAT_SCRATCH, waves_per_group *
 * RT_WAVE * scratch_per_lane bytes) when the address lies in it, else the one captured range holding all of
 * it (a store into a range flagged read-only refuses). 0 when none. */
RT_FN uint8_t *rt_img_mem(const rt_ctx_t *c, uint64_t a, uint32_t n, int write, int scratch_ok) {
    const rt_launch_t *L = c->l;
    uint64_t sbytes = c->g->scratch ? (uint64_t)L->waves_per_group * RT_WAVE * L->scratch_per_lane : 0;
    if (scratch_ok && a >= L->flat_scratch && a - L->flat_scratch < sbytes) {
        uint64_t at = a - L->flat_scratch;
        return at + n <= sbytes ? c->g->scratch + at : (uint8_t *)0;
    }
    for (uint32_t i = 0; i < L->nranges; i++) {
        const rt_range_t *r = &L->ranges[i];
        if (a >= r->lo && a - r->lo < r->size && (uint64_t)n <= r->size - (a - r->lo)) {
            if (write && (r->flags & RT_RANGE_READ) && !(r->flags & RT_RANGE_WRITE)) return 0;
            return r->base + (a - r->lo);
        }
    }
    return 0;
}

/* Copies between device memory and a local buffer byte by byte (any alignment is safe on the device). */
RT_FN void rt_img_copy(volatile uint8_t *dst, const volatile uint8_t *src, uint32_t n) {
    for (uint32_t i = 0; i < n; i++) dst[i] = src[i];
}

/* One lane of image_bvh*_intersect_ray: the node test over the node's dwords read through the ranges.
 * Returns 1 when it faulted (recorded: a node past SIZE, a dword outside every range). */
RT_FN int rt_img_bvh_lane(rt_ctx_t *c, const rt_bvh_desc_t *d, uint64_t pc, int lane, int a16, int wide,
                          const uint32_t *addr, uint32_t out[4]) {
    uint64_t node = wide ? rt_pair(addr[0], addr[1]) : (uint64_t)addr[0];
    float ray[10];
    rt_bvh_ray(addr + (wide ? 2 : 1), a16, ray);
    if (!rt_bvh_holds(d, node)) { rt_img_fault(c, pc, lane, RT_IMG_E_BVH_SIZE); return 1; }
    uint32_t mask = rt_bvh_fetch_mask(node), nd[32];
    uint64_t at = rt_bvh_node_addr(d, node);
    for (int i = 0; i < 32; i++) {
        nd[i] = 0;
        if (!((mask >> i) & 1u)) continue;
        const uint8_t *p = rt_img_mem(c, at + 4u * (uint64_t)i, 4, 0, 0);
        if (!p) { rt_fault(c, RT_FAULT_MEMORY, pc, lane, at + 4u * (uint64_t)i); return 1; }
        uint8_t b[4];
        rt_img_copy(b, p, 4);
        memcpy(&nd[i], b, 4);
    }
    rt_bvh_intersect(d, node, ray, nd, out);
    return 0;
}

/* Bytes [0, n) of a formatted buffer element: linear elements at one address (all of them inside one range
 * or the scratch store), swizzled ones byte by byte; 1 when it faulted (recorded with the lane and address). */
RT_FN int rt_img_buf_bytes(rt_ctx_t *c, const rt_img_vsharp_t *r, const rt_img_bufl_t *l, uint32_t n, int write,
                           uint8_t *buf, uint64_t pc, int lane) {
    uint32_t pieces = r->swizzle ? n : 1u, size = r->swizzle ? 1u : n;
    for (uint32_t k = 0; k < pieces; k++) { /* check every piece before touching any */
        uint64_t a = rt_img_buf_addr(r, l, k);
        if (!rt_img_mem(c, a, size, write, 1)) { rt_fault(c, RT_FAULT_MEMORY, pc, lane, a); return 1; }
    }
    for (uint32_t k = 0; k < pieces; k++) {
        uint8_t *p = rt_img_mem(c, rt_img_buf_addr(r, l, k), size, write, 1);
        if (write) rt_img_copy(p, buf + k * size, size); else rt_img_copy(buf + k * size, p, size);
    }
    return 0;
}

/* A lane's buffer addressing: index = (IDXEN ? VADDR : 0) + (ADD_TID ? lane : 0), offset = (OFFEN ? the
 * offset VGPR : 0) + OFFSET in 32 bits, soffset the SGPR operand. */
RT_FN rt_img_bufl_t rt_img_buf_lane(const rt_img_vsharp_t *r, int idxen, int offen, uint32_t v0, uint32_t v1,
                                    uint32_t inst_offset, uint32_t soffset, uint32_t lane) {
    rt_img_bufl_t l;
    l.index = (idxen ? (uint64_t)v0 : 0u) + (r->add_tid ? (uint64_t)lane : 0u);
    l.offset = (uint64_t)(uint32_t)((offen ? (idxen ? v1 : v0) : 0u) + inst_offset);
    l.soffset = soffset;
    return l;
}

/* The buffer format of a V# / MTBUF FORMAT: 1..77 (0 is INVALID). */
RT_FN int rt_img_buf_format(uint32_t number, rt_img_fmt_t *f) {
    return number >= 1 && number <= 77 && rt_img_format(number, f);
}

/* VGPR r of lane src from inside an RT_FOR_LANES loop every thread runs alike (shuffles on the GPU). */
#if RT_GPU
RT_FN uint32_t rt_img_gather(const uint32_t *slots, uint32_t src) {
    uint32_t v0 = __shfl_sync(0xffffffffu, slots[0], (int)(src & 31u));
#if RT_WAVE == 64
    uint32_t v1 = __shfl_sync(0xffffffffu, slots[1], (int)(src & 31u));
    return (src >> 5) ? v1 : v0;
#else
    return v0;
#endif
}
#define RT_IMG_GATHER(r, src) rt_img_gather(W->v[(r)], (uint32_t)(src))
#else
#define RT_IMG_GATHER(r, src) (W->v[(r)][(src)])
#endif

#endif /* RT_SLOT */
