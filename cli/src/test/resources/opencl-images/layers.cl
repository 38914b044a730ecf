// Image arrays: sampled reads whose layer coordinate is rounded and clamped, sampler-less reads, the size queries.
kernel void layers(read_only image2d_array_t a, read_only image1d_array_t b, sampler_t smp, global float4 *out, global int *sizes) {
    int x = get_global_id(0);
    out[x] = read_imagef(a, smp, (float4)((x % 8 - 2.2f) * 0.25f, 0.3f, x / 8 - 0.6f, 0));
    out[x + 32] = read_imagef(a, (int4)(x % 4, x % 2, x % 3, 0));
    out[x + 64] = read_imagef(b, smp, (float2)((x - 3.3f) * 0.125f, x % 4 - 0.4f));
    out[x + 96] = read_imagef(b, (int2)(x % 8, x % 2));
    if (x == 0) {
        sizes[0] = get_image_array_size(a); sizes[1] = get_image_array_size(b);
        sizes[2] = get_image_width(a); sizes[3] = get_image_height(a); sizes[4] = get_image_width(b);
        int2 d = get_image_dim(a); sizes[5] = d.x; sizes[6] = d.y;
    }
}
