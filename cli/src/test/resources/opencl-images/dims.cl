// 1D and 3D images: sampled reads at float and integer coordinates that leave the image, and sampler-less reads.
kernel void dims(read_only image1d_t a, read_only image3d_t b, sampler_t smp, global float4 *out, float scale) {
    int x = get_global_id(0);
    out[x] = read_imagef(a, smp, (x - 3.3f) * scale);
    out[x + 32] = read_imagef(b, smp, (float4)((x - 3.3f) * scale, 1.6f * scale, (x % 5) * 0.7f * scale, 0));
    out[x + 64] = read_imagef(b, (int4)(x % 4, x % 3, x % 2, 0));
    out[x + 96] = read_imagef(a, x % 16);
    out[x + 128] = read_imagef(b, smp, (int4)(x % 4 - 1, 1, x % 3, 0));
}
