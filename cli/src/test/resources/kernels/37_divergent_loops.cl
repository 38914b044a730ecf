//! kernel divergent_loops
//! groups 2 size 64
//! arg buffer u32 128 rand 57
//! arg buffer i32 8 small 58
//! arg zeros 2048
// Loops inside divergent branches, loops whose exits diverge (break out of nested loops, goto, continue),
// an early return for some lanes, and branches on loaded data that are uniform (one value per group,
// scalar branches) beside divergent ones.
__kernel void divergent_loops(__global const uint *a, __global const int *params, __global uint *out) {
    uint l = __builtin_amdgcn_workitem_id_x();
    uint g = __builtin_amdgcn_workgroup_id_x();
    uint i = g * 64 + l;
    uint x = a[i];
    int p = params[g];            // uniform within the group
    __global uint *o = out + i * 4;
    o[3] = 0xabcdef00u | l;
    if ((x & 7) == 3) {
        o[0] = x;                 // early return: these lanes write one word only
        return;
    }
    uint acc = 0;
    if (p > 0) {                  // uniform branch
        for (int k = 0; k < p; k++) acc += x >> k;
    } else {
        acc = (uint) (-p) * 77u;
    }
    if (x & 1) {
        for (uint k = 0; k < (x & 15); k++) {
            if (((x >> k) & 3) == 2) continue;
            acc = acc * 31u + k;
            if (acc % 13 == 0) break;
        }
    } else {
        uint k = x & 31;
        while (k != 0) {
            acc ^= k << (k & 7);
            k = (k & 1) ? k - 1 : k >> 1;
        }
    }
    for (uint r = 0; r < 6; r++) {
        for (uint c = 0; c < 6; c++) {
            if ((x >> (r * 5 + c)) % 7 == 6) goto done;
            acc += r * c;
        }
    }
    acc |= 0x80000000u;
done:
    o[0] = acc;
    uint n = 0;
    do {
        n++;
        x = x * 1103515245u + 12345u;
    } while ((x >> 28) != (l & 15) && n < 40);
    o[1] = n;
    o[2] = (l < 16 && p > 1) ? n * 2 : (l >= 48 ? x : acc >> 3);
}
