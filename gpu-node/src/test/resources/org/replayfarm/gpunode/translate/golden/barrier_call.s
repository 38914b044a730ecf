; wave64: a barrier (a resume point on the CPU), a call through s_getpc/s_swappc and the return switch
s_mov_b32 s10, 3
s_barrier
s_getpc_b64 s[20:21]
s_add_u32 s20, s20, func - .
s_addc_u32 s21, s21, 0
s_swappc_b64 s[30:31], s[20:21]
s_and_saveexec_b64 s[14:15], s[10:11]
s_endpgm
func:
s_mul_i32 s10, s10, 7
s_setpc_b64 s[30:31]
