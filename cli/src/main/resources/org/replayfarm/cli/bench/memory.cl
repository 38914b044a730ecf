// Memory-heavy: strided gathers from a table and stores, little arithmetic.
__kernel void memory(__global const uint *table, __global uint *out, uint rounds) {
    uint i = __builtin_amdgcn_workgroup_id_x() * 64 + __builtin_amdgcn_workitem_id_x();
    uint at = i;
    uint sum = 0;
    for (uint k = 0; k < rounds; k++) {
        at = table[(at * 7 + k) & 4095];
        sum += at;
        out[(i * 16 + (k & 15)) & 16383] = sum;
    }
}
