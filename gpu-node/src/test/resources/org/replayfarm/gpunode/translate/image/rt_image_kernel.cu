// Instantiates every rt_image.h entry point in device code, so nvcc checks the whole header for sm_90.
#include "rt_image.h"

__global__ void rt_image_all(uint32_t *o, rt_images_t imgs) {
    uint32_t t = threadIdx.x;
    rt_img_fmt_t f;
    rt_img_format(o[t] & 0x7F, &f);
    uint32_t r[5];
    rt_img_decode(&f, (const uint8_t *)(o + 32), r);
    rt_img_encode(&f, r, (uint8_t *)(o + 64));
    o[t] += rt_img_to_d16(&f, r[0]) + rt_img_from_d16(&f, r[1]) + rt_img_format_number(o[1], o[2]);
    rt_img_view_t v;
    int err = rt_img_view(&imgs, o + 8, (int)(o[3] & 1), &v);
    if (err) return;
    uint32_t out[5];
    o[t] += rt_img_load(&v, o[4] & 7, o[5] & 15, 0, 1, 1, 1, o + 16, out, &err);
    rt_img_store(&v, o[4] & 7, o[5] & 15, 1, 0, 0, o + 16, o + 20, &err);
    o[t] += rt_img_resinfo(&v, o[4] & 7, 15, 0, 0, 0, o + 16, out);
    uint32_t bytes = rt_img_atomic_bytes(&v, o[6] & 15, o[5] & 15);
    o[t] += (uint32_t)rt_img_atomic(&v, o[6] & 15, bytes, rt_img_lane_texel(&v, 1, 0, 0, o + 16, &err), o[7], o[8]);
    rt_ssharp_t s;
    rt_img_ssharp(o + 24, &s);
    float border[4];
    err |= rt_img_border(&s, border) | rt_img_sample_check(&v, o[4] & 7);
    rt_img_at_t a, h, vt;
    rt_img_sample_at(o[4] & 7, 0, o + 16, &a);
    rt_img_sample_at(o[4] & 7, 1, o + 17, &h);
    rt_img_sample_at(o[4] & 7, 0, o + 18, &vt);
    double lod = rt_img_derived_lod(&v, 0, &a, &h, &vt, &err) + s.lod_bias / 256.0;
    o[t] += rt_img_sample(&v, &s, 0, &a, lod, border, 15, 0, 1, out, &err) + out[0];
    rt_img_vsharp_t vs;
    rt_img_vsharp(o + 28, &vs);
    rt_img_bufl_t l = {o[1], o[2], o[3]};
    uint8_t el[16];
    o[t] += (uint32_t)rt_img_buf_addr(&vs, &l, 1) + rt_img_buf_in_range(&vs, &l, 4)
            + rt_img_buf_load_result(&f, vs.dst_sel, 1, (const uint8_t *)(o + 40), 3, 1, 0, o[2], o[3], out)
            + rt_img_buf_store_bytes(&f, 2, 1, 1, o + 44, el, &err) + el[1];
    rt_bvh_desc_t d;
    rt_bvh_desc(o + 48, &d);
    float ray[10];
    rt_bvh_ray(o + 52, (int)(o[0] & 1), ray);
    uint64_t node = o[62];
    o[t] += rt_bvh_holds(&d, node) + (uint32_t)rt_bvh_node_addr(&d, node) + rt_bvh_fetch_mask(node);
    rt_bvh_intersect(&d, node, ray, o + 64, out);
    o[t] += out[0] + out[3] + (uint32_t)err;
}
