// ALU-heavy: integer and float arithmetic in registers, a long loop per work-item, one store.
__kernel void alu(__global uint *out, uint rounds) {
    uint i = __builtin_amdgcn_workgroup_id_x() * 64 + __builtin_amdgcn_workitem_id_x();
    uint h = i * 0x9e3779b9u;
    float f = (float) i * 0.001f;
    for (uint k = 0; k < rounds; k++) {
        h ^= h << 13; h ^= h >> 17; h ^= h << 5;
        h += k * 0x85ebca6bu;
        f = f * 0.999f + (float) (h & 255) * 0.0001f;
    }
    out[i] = h ^ __builtin_bit_cast(uint, f);
}
