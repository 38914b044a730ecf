// Reads of one 2D image through the sampler given, at coordinates that leave the image on every side (texel
// coordinates -4.7 .. 11.3 over a 16x16 grid; scale makes them normalized), a sampler-less read at clamped integer
// coordinates, and a write of that texel into an image of the same format.
kernel void reads(read_only image2d_t src, sampler_t smp, global float4 *sampled, global float4 *fetched,
                  write_only image2d_t dst, float scale) {
    int x = get_global_id(0);
    int y = get_global_id(1);
    int w = get_image_width(src);
    int h = get_image_height(src);
    float2 at = (float2)((x - 4.7f) * scale, (y - 4.7f) * scale);
    sampled[y * 16 + x] = read_imagef(src, smp, at);
    int2 texel = (int2)(clamp(x - 4, 0, w - 1), clamp(y - 4, 0, h - 1));
    float4 v = read_imagef(src, texel);
    fetched[y * 16 + x] = v;
    write_imagef(dst, (int2)(x, y), v);
}

// The same for an unsigned integer image: read_imageui with a (nearest) sampler and without, write_imageui.
kernel void reads_uint(read_only image2d_t src, sampler_t smp, global uint4 *sampled, global uint4 *fetched,
                       write_only image2d_t dst, float scale) {
    int x = get_global_id(0);
    int y = get_global_id(1);
    int w = get_image_width(src);
    int h = get_image_height(src);
    float2 at = (float2)((x - 4.7f) * scale, (y - 4.7f) * scale);
    sampled[y * 16 + x] = read_imageui(src, smp, at);
    uint4 v = read_imageui(src, (int2)(clamp(x - 4, 0, w - 1), clamp(y - 4, 0, h - 1)));
    fetched[y * 16 + x] = v;
    write_imageui(dst, (int2)(x, y), v + (uint4)(1, 2, 3, 4));
}

// read_imagei with a sampler on a signed integer image.
kernel void reads_int(read_only image2d_t src, sampler_t smp, global int4 *sampled, float scale) {
    int x = get_global_id(0);
    int y = get_global_id(1);
    sampled[y * 16 + x] = read_imagei(src, smp, (float2)((x - 4.7f) * scale, (y - 4.7f) * scale));
}
