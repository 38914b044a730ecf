// The shadow pass (examples/shadow-pass): at half resolution, one shadow ray a pixel toward a point light
// through an RDNA 2 BVH, the mask stored as one 8-bit UNORM channel (255 lit, 0 shadowed or no surface).
// Depth (32 FLOAT, distance along the primary ray, 0 = sky) and normals (8_8_8_8 UNORM, n * 0.5 + 0.5,
// stored with a channel order the descriptor's dst_sel undoes) are read with image_load; the mask is
// written with image_store. Compiled by clang-19 for gfx1030, wave64, groups of 64 (8 x 8 pixels): one
// group is one wave.
//
// Traversal, wave-coherent: the wave walks the hierarchy together on ONE stack held in lanes, entry i in
// lane i of one VGPR (so STACK is at most 64). Every thread of the group stays in the loop, whose control
// is uniform (it depends only on readlane and ballot results), so the stack's lanes are all live and a
// push is a plain per-lane select (lane == top ? child : entry) and a pop a readlane at top - 1. Each step
// takes one node for the whole wave; every still-active lane tests its own ray against it with
// image_bvh_intersect_ray. A triangle hit with 0 < t < distance to the light ends that lane's ray (any hit
// shadows), and the lane goes inactive. At a box node the children that ANY active lane hit are taken in
// the order of the first active lane that hit them: the lowest such lane's nearest remaining child first
// (ballot, then readlane of that lane), removed from every lane's list, four times at most. So the first
// active lane sees its own nearest-first order and the others' extra children follow. The first of them is
// the next node directly; the rest are pushed farthest first. The walk ends when no lane is active or the
// stack is empty. This relies on the descriptor's box sorting (hits first, misses 0xFFFFFFFF after them),
// which the capture build sets. Overflow: a child pushed onto a full stack is dropped, and the wave adds
// the number it dropped to stats[0] once, from lane 0 (a drop can only turn a shadow into light). The
// example's scenes never overflow the 64 entries (the tests and README say how deep they go); a build with
// -DSTACK=N (N < 64) shortens the stack, which a test uses to see drops counted.

#ifndef STACK
#define STACK 64
#endif
#if STACK < 1 || STACK > 64
#error "STACK: the wave's stack is one VGPR, entry i in lane i, so 1 to 64 entries"
#endif

typedef struct {
    float eye_x, eye_y, eye_z;          // camera position
    float fwd_x, fwd_y, fwd_z;          // camera forward, right and up (unit), scaled for the field of view
    float right_x, right_y, right_z;
    float up_x, up_y, up_z;
    float light_x, light_y, light_z;    // point light
    float bias;                         // shadow ray origin offset along the normal
    uint frame_w, frame_h, mask_w, mask_h;
} camera_t;

static inline float image_load_depth(uint8 rsrc, int x, int y) {
    float v;
    __asm__ volatile("image_load %0, %1, %2 dmask:0x1 dim:SQ_RSRC_IMG_2D unorm\n s_waitcnt vmcnt(0)"
                     : "=v"(v) : "v"((int2)(x, y)), "s"(rsrc));
    return v;
}

static inline float4 image_load_normal(uint8 rsrc, int x, int y) {
    float4 v;
    __asm__ volatile("image_load %0, %1, %2 dmask:0xf dim:SQ_RSRC_IMG_2D unorm\n s_waitcnt vmcnt(0)"
                     : "=v"(v) : "v"((int2)(x, y)), "s"(rsrc));
    return v;
}

static inline void image_store_mask(uint8 rsrc, int x, int y, float value) {
    __asm__ volatile("image_store %0, %1, %2 dmask:0x1 dim:SQ_RSRC_IMG_2D unorm"
                     : : "v"(value), "v"((int2)(x, y)), "s"(rsrc) : "memory");
}

static inline uint first_hit_child(uint c0) {
    ulong any = __builtin_amdgcn_ballot_w64(c0 != 0xFFFFFFFFu);
    return any == 0 ? 0xFFFFFFFFu : (uint)__builtin_amdgcn_readlane((int)c0, (int)__builtin_ctzl(any));
}

// the lane's sorted hit list c0..c3 without child c (misses stay 0xFFFFFFFF at the end)
#define REMOVE(c)                                                                           \
    if (c0 == (c)) { c0 = c1; c1 = c2; c2 = c3; c3 = 0xFFFFFFFFu; }                         \
    else if (c1 == (c)) { c1 = c2; c2 = c3; c3 = 0xFFFFFFFFu; }                             \
    else if (c2 == (c)) { c2 = c3; c3 = 0xFFFFFFFFu; }                                      \
    else if (c3 == (c)) { c3 = 0xFFFFFFFFu; }

// one entry on the wave's stack: lane `top` takes it (no lane does at top >= 64; the caller clamps top)
#define PUSH(c)                                                                             \
    stack = lid == top ? (c) : stack;                                                       \
    top++;

kernel void shadow(constant uint8 *depth_desc, constant uint8 *normal_desc, constant uint8 *mask_desc,
                   constant uint4 *bvh_desc, constant camera_t *cam, global uint *stats) {
    uint lid = __builtin_amdgcn_workitem_id_x();
    uint mx = __builtin_amdgcn_workgroup_id_x() * 8 + (lid & 7);
    uint my = __builtin_amdgcn_workgroup_id_y() * 8 + (lid >> 3);
    // a thread outside the mask stores nothing but stays in the wave's walk (it holds a stack entry)
    bool inside = mx < cam->mask_w && my < cam->mask_h;
    uint px = mx * 2;
    uint py = my * 2;
    bool active = false;
    float3 o = (float3)(0.0f, 0.0f, 0.0f);
    float3 dir = (float3)(0.0f, 0.0f, 1.0f);
    float3 inv = (float3)(1.0f, 1.0f, 1.0f);
    float dist = 0.0f;
    if (inside) {
        float depth = image_load_depth(*depth_desc, px, py);
        if (depth > 0.0f) {
            // primary ray direction of the pixel's centre, as the generator cast it
            float sx = ((float)px + 0.5f) / (float)cam->frame_w * 2.0f - 1.0f;
            float sy = 1.0f - ((float)py + 0.5f) / (float)cam->frame_h * 2.0f;
            float3 d = (float3)(cam->fwd_x, cam->fwd_y, cam->fwd_z)
                     + sx * (float3)(cam->right_x, cam->right_y, cam->right_z)
                     + sy * (float3)(cam->up_x, cam->up_y, cam->up_z);
            d = d * (1.0f / sqrt(d.x * d.x + d.y * d.y + d.z * d.z));
            float3 p = (float3)(cam->eye_x, cam->eye_y, cam->eye_z) + d * depth;
            float4 nn = image_load_normal(*normal_desc, px, py);
            float3 n = (float3)(nn.x, nn.y, nn.z) * 2.0f - 1.0f;
            o = p + n * cam->bias;
            float3 l = (float3)(cam->light_x, cam->light_y, cam->light_z) - o;
            dist = sqrt(l.x * l.x + l.y * l.y + l.z * l.z);
            dir = l * (1.0f / dist);
            inv = (float3)(1.0f / dir.x, 1.0f / dir.y, 1.0f / dir.z);
            active = true;
        }
    }
    bool lit = active;
    uint4 desc = *bvh_desc;
    uint stack = 0;   // lane i: entry i of the wave's stack
    uint top = 0;     // uniform
    uint dropped = 0; // uniform: children dropped on a full stack
    uint node = 5;    // uniform; the root: a box32 node at offset 0
    if (__builtin_amdgcn_ballot_w64(active) != 0) {
        for (;;) {
            uint4 r = (uint4)(0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu);
            if (active) {
                r = __builtin_amdgcn_image_bvh_intersect_ray(node, dist, (float4)(o, 0.0f), (float4)(dir, 0.0f),
                                                             (float4)(inv, 0.0f), desc);
            }
            if ((node & 7) < 4) {
                float t = as_float(r.x) / as_float(r.y);
                if (active && t > 0.0f && t < dist) {
                    lit = false;
                    active = false;
                }
            } else {
                uint c0 = r.x, c1 = r.y, c2 = r.z, c3 = r.w;
                uint k0 = first_hit_child(c0);
                if (k0 != 0xFFFFFFFFu) {
                    REMOVE(k0)
                    uint k1 = first_hit_child(c0);
                    if (k1 != 0xFFFFFFFFu) {
                        REMOVE(k1)
                        uint k2 = first_hit_child(c0);
                        if (k2 != 0xFFFFFFFFu) {
                            REMOVE(k2)
                            uint k3 = first_hit_child(c0);
                            if (k3 != 0xFFFFFFFFu) {
                                PUSH(k3)
                            }
                            PUSH(k2)
                        }
                        PUSH(k1)
                        if (top > STACK) {
                            // the entries pushed past the end are lost: counted, the stack stays full
                            dropped += top - STACK;
                            top = STACK;
                        }
                    }
                    node = k0; // the first active lane's nearest hit child (or the nearest another lane hit): next, not pushed
                    continue;
                }
            }
            if (top == 0 || __builtin_amdgcn_ballot_w64(active) == 0) {
                break;
            }
            top--;
            node = (uint)__builtin_amdgcn_readlane((int)stack, (int)top);
        }
    }
    if (lid == 0 && dropped != 0) {
        __atomic_fetch_add(stats, dropped, __ATOMIC_RELAXED);
    }
    if (inside) {
        image_store_mask(*mask_desc, mx, my, lit ? 1.0f : 0.0f);
    }
}
