#version 450
// A game's post-processing pass in miniature: a 3x3 tent filter over the frame through a sampler (clamped at
// the edges), a bright-pass that keeps what is brighter than a threshold, and a per-tile count of bright pixels
// with atomics (what a bloom or auto-exposure pass classifies tiles by). One 8x8 group per tile.
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0) uniform sampler2D frame;
layout(set = 0, binding = 1, rgba8) uniform writeonly image2D bright;
layout(set = 0, binding = 2) buffer Tiles { uint count[]; };
layout(push_constant) uniform Pass { float threshold; uint tilesX; } pass;

const float tent[3] = float[3](1.0, 2.0, 1.0);

void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    vec2 size = vec2(textureSize(frame, 0));
    precise vec3 sum = vec3(0.0);
    for (int j = -1; j <= 1; ++j) {
        for (int i = -1; i <= 1; ++i) {
            vec2 uv = (vec2(p + ivec2(i, j)) + 0.5) / size;
            sum += tent[i + 1] * tent[j + 1] * textureLod(frame, uv, 0.0).rgb;
        }
    }
    // weighed by 1/17, not 1/16: no pixel then lands exactly half-way between two 8-bit values, where the
    // conversion to unorm may round either way (Vulkan allows both)
    precise vec3 c = sum * (1.0 / 17.0);
    // luminance in 1/256 steps, so the threshold compares whole numbers on every compiler
    uint lum = (54u * uint(c.r * 255.0 + 0.5) + 183u * uint(c.g * 255.0 + 0.5) + 19u * uint(c.b * 255.0 + 0.5)) >> 8;
    bool isBright = lum > uint(pass.threshold);
    imageStore(bright, p, isBright ? vec4(c, 1.0) : vec4(0.0, 0.0, 0.0, 1.0));
    if (isBright) {
        atomicAdd(count[gl_WorkGroupID.y * pass.tilesX + gl_WorkGroupID.x], 1u);
    }
}
