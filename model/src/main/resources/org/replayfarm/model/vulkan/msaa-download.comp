#version 450
// The farm's helper for a multisampled image's reference run: reads its texels back in the order
// msaa-upload.comp wrote them (texels of 1 or 2 bytes OR-ed into a zeroed buffer); vkcompute's msaa line.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer B { uint w[]; };
layout(set = 0, binding = 1) uniform usampler2DMSArray img;
layout(push_constant) uniform P { uint width, height, layers, samples, bpt; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i >= width * height * layers * samples) return;
  uint t = i / samples;
  uvec4 v = texelFetch(img, ivec3(t % width, t / width % height, t / (width * height)), int(i % samples));
  if (bpt >= 4u) {
    for (uint k = 0u; k < bpt / 4u; k++) w[i * (bpt / 4u) + k] = v[k];
  } else {
    uint at = i * bpt;
    atomicOr(w[at / 4u], (v.x & (bpt == 1u ? 0xFFu : 0xFFFFu)) << (8u * (at % 4u)));
  }
}
