// A bilinear resampler as an image-processing user writes it: each work-item samples the source at the centre of
// its output pixel in normalized coordinates (the sampler decides filtering and addressing).
kernel void resample(read_only image2d_t src, sampler_t smp, global float4 *dst, uint dst_width, uint dst_height) {
    uint x = get_global_id(0);
    uint y = get_global_id(1);
    float2 uv = (float2)((x + 0.5f) / dst_width, (y + 0.5f) / dst_height);
    dst[y * dst_width + x] = read_imagef(src, smp, uv);
}
