// One ray a lane through an RDNA 2 BVH, per-lane traversal on a private stack (BvhTraceKernelTest).
// Ray i: origin xyz, direction xyz, extent, form (0 image_bvh_intersect_ray, 1 its a16 form with a half
// direction and inverse, 2 image_bvh64_intersect_ray with a 64-bit pointer over a base-0 descriptor), any-hit
// (nonzero: stop at the first hit). out[i] = the nearest accepted t (0 <= t < extent), or +inf; stats[i] =
// node tests; a stack overflow stores -1 there.
#pragma OPENCL EXTENSION cl_khr_fp16 : enable

#define STACK 64

kernel void trace(global const float *rays, constant uint4 *bvh_desc, global float *out, global int *stats,
                  uint count) {
    uint i = __builtin_amdgcn_workgroup_id_x() * 64 + __builtin_amdgcn_workitem_id_x();
    if (i >= count) {
        return;
    }
    global const float *q = rays + 9 * i;
    float4 o = (float4)(q[0], q[1], q[2], 0.0f);
    float4 d = (float4)(q[3], q[4], q[5], 0.0f);
    float extent = q[6];
    uint form = as_uint(q[7]);
    bool any = as_uint(q[8]) != 0;
    float4 inv = (float4)(1.0f / d.x, 1.0f / d.y, 1.0f / d.z, 0.0f);
    // the a16 form's direction and inverse, rounded to half (nearest even: clang's fptrunc)
    half4 dh = (half4)((half)d.x, (half)d.y, (half)d.z, (half)0.0f);
    half4 ih = (half4)((half)inv.x, (half)inv.y, (half)inv.z, (half)0.0f);
    uint4 desc = *bvh_desc;
    // the 64-bit form: node pointers are address / 8, the descriptor's base 0 and SIZE all of memory
    ulong base = (((ulong)(desc.y & 0xFFu) << 32) | desc.x) << 8;
    uint4 flat = (uint4)(0u, desc.y & 0xFFFFFF00u, 0xFFFFFFFFu, desc.w | 0x3FFu);
    uint stack[STACK];
    uint top = 0;
    uint node = 5; // the root: a box32 node at offset 0
    float best = extent;
    int tests = 0;
    for (;;) {
        uint4 r;
        if (form == 1) {
            r = __builtin_amdgcn_image_bvh_intersect_ray_h(node, best, o, dh, ih, desc);
        } else if (form == 2) {
            r = __builtin_amdgcn_image_bvh_intersect_ray_l((base >> 3) + node, best, o, d, inv, flat);
        } else {
            r = __builtin_amdgcn_image_bvh_intersect_ray(node, best, o, d, inv, desc);
        }
        tests++;
        uint next = 0xFFFFFFFFu;
        if ((node & 7u) < 4u) {
            float t = as_float(r.x) / as_float(r.y);
            if (t >= 0.0f && t < best) {
                best = t;
                if (any) {
                    break;
                }
            }
        } else {
            // sorted: hits first, nearest first; the nearest is next, the others pushed farthest first
            next = r.x;
            uint rest[3] = {r.w, r.z, r.y};
            for (int k = 0; k < 3; k++) {
                if (rest[k] != 0xFFFFFFFFu) {
                    if (top == STACK) {
                        tests = -1;
                        break;
                    }
                    stack[top++] = rest[k];
                }
            }
            if (tests < 0) {
                break;
            }
        }
        if (next == 0xFFFFFFFFu) {
            if (top == 0) {
                break;
            }
            next = stack[--top];
        }
        node = next;
    }
    out[i] = best < extent ? best : INFINITY;
    stats[i] = tests;
}
