; the vector and memory units: v_add, a compare into VCC, a global store (lane loops, EXEC predication)
v_lshlrev_b32 v1, 2, v0
v_add_nc_u32 v2, v0, 5
v_cmp_gt_u32 vcc_lo, 40, v0
v_cndmask_b32 v2, 0, v2, vcc_lo
global_store_dword v1, v2, s[0:1]
s_endpgm
