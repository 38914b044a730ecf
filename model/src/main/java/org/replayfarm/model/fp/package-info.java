/**
 * Floating-point helpers shared by the host model and the GPU translator: the three formats (f16, f32,
 * f64) as bit patterns, rounding of exact values to a format under each RDNA 2 round mode, denormal
 * flushing per the MODE register, NaN quieting, IEEE-mode min/max, and the VOP3 output modifiers (omod,
 * clamp with DX10_CLAMP). Everything works on raw bit patterns held in a {@code long} (f16 in the low 16
 * bits, f32 in the low 32) so that NaN payloads and signed zeros survive.
 *
 * <p>MODE register (RDNA 2 ISA, "MODE"): FP_ROUND [3:0] (f32 in [1:0], f16/f64 in [3:2]; 0 nearest even,
 * 1 toward +inf, 2 toward -inf, 3 toward zero), FP_DENORM [7:4] (f32 in [5:4], f16/f64 in [7:6]; 0 flush
 * inputs and outputs, 1 flush outputs only, 2 flush inputs only, 3 no flushing), DX10_CLAMP [8], IEEE [9],
 * FP16_OVFL [23].
 */
package org.replayfarm.model.fp;
