// The shadow pass (examples/shadow-pass): at half resolution, one shadow ray a pixel toward a point light
// through an RDNA 2 BVH, the mask stored as one 8-bit UNORM channel (255 lit, 0 shadowed or no surface).
// Depth (32 FLOAT, distance along the primary ray, 0 = sky) and normals (8_8_8_8 UNORM, n * 0.5 + 0.5,
// stored with a channel order the descriptor's dst_sel undoes) are read with image_load; the mask is
// written with image_store. Compiled by clang-19 for gfx1030, wave64, groups of 64 (8 x 8 pixels).
//
// Traversal: a short stack per lane in LDS (STACK entries); box nodes push their hit children, farthest
// first, so the nearest is visited next; any triangle hit with 0 < t < distance to the light ends the ray.
// The wave runs the loop until its last lane is done. A child that does not fit on a full stack is dropped
// and counted in stats[0] (which can only turn a shadow into light); the example's scenes never overflow.

#define STACK 48

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

kernel void shadow(constant uint8 *depth_desc, constant uint8 *normal_desc, constant uint8 *mask_desc,
                   constant uint4 *bvh_desc, constant camera_t *cam, global uint *stats) {
    local uint stack[64 * STACK];
    uint lid = __builtin_amdgcn_workitem_id_x();
    uint mx = __builtin_amdgcn_workgroup_id_x() * 8 + (lid & 7);
    uint my = __builtin_amdgcn_workgroup_id_y() * 8 + (lid >> 3);
    if (mx >= cam->mask_w || my >= cam->mask_h) {
        return;
    }
    uint px = mx * 2;
    uint py = my * 2;
    float depth = image_load_depth(*depth_desc, px, py);
    float lit = 1.0f;
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
        float3 o = p + n * cam->bias;
        float3 l = (float3)(cam->light_x, cam->light_y, cam->light_z) - o;
        float dist = sqrt(l.x * l.x + l.y * l.y + l.z * l.z);
        float3 dir = l * (1.0f / dist);
        float3 inv = (float3)(1.0f / dir.x, 1.0f / dir.y, 1.0f / dir.z);
        uint4 desc = *bvh_desc;
        uint base = lid * STACK;
        uint top = 0;
        uint node = 5; // the root: a box32 node at offset 0
        bool hit = false;
        for (;;) {
            uint4 r = __builtin_amdgcn_image_bvh_intersect_ray(node, dist, (float4)(o, 0.0f), (float4)(dir, 0.0f),
                                                               (float4)(inv, 0.0f), desc);
            if ((node & 7) < 4) {
                float t = as_float(r.x) / as_float(r.y);
                if (t > 0.0f && t < dist) {
                    hit = true;
                    break;
                }
            } else {
                // push hits farthest first; r.x is the nearest
                if (r.w != 0xFFFFFFFFu) { if (top < STACK) stack[base + top++] = r.w; else __atomic_fetch_add(stats, 1u, __ATOMIC_RELAXED); }
                if (r.z != 0xFFFFFFFFu) { if (top < STACK) stack[base + top++] = r.z; else __atomic_fetch_add(stats, 1u, __ATOMIC_RELAXED); }
                if (r.y != 0xFFFFFFFFu) { if (top < STACK) stack[base + top++] = r.y; else __atomic_fetch_add(stats, 1u, __ATOMIC_RELAXED); }
                if (r.x != 0xFFFFFFFFu) { if (top < STACK) stack[base + top++] = r.x; else __atomic_fetch_add(stats, 1u, __ATOMIC_RELAXED); }
            }
            if (top == 0) {
                break;
            }
            node = stack[base + --top];
        }
        lit = hit ? 0.0f : 1.0f;
    } else {
        lit = 0.0f;
    }
    image_store_mask(*mask_desc, mx, my, lit);
}
