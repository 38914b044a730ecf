; a counted loop: block labels, a back-edge with the budget check, SCC from compares, SMEM
s_load_dwordx2 s[4:5], s[0:1], 0x0
s_mov_b32 s10, 0
s_mov_b32 s11, 1
loop:
s_add_u32 s10, s10, s11
s_lshl_b32 s11, s11, 1
s_cmp_lt_u32 s11, 0x100
s_cbranch_scc1 loop
s_cselect_b32 s12, s10, s11
s_endpgm
