#version 450
// The farm's helper for a multisampled image's reference run: uploads its texels (texel-major, each texel's
// samples in order) through an unsigned view of the texel's size; vkcompute's msaa line.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer B { uint w[]; };
layout(set = 0, binding = 1) uniform writeonly uimage2DMSArray img;
layout(push_constant) uniform P { uint width, height, layers, samples, bpt; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i >= width * height * layers * samples) return;
  uint t = i / samples;
  uvec4 v = uvec4(0);
  if (bpt >= 4u) {
    for (uint k = 0u; k < bpt / 4u; k++) v[k] = w[i * (bpt / 4u) + k];
  } else {
    uint at = i * bpt;
    v.x = (w[at / 4u] >> (8u * (at % 4u))) & (bpt == 1u ? 0xFFu : 0xFFFFu);
  }
  imageStore(img, ivec3(t % width, t / width % height, t / (width * height)), int(i % samples), v);
}
