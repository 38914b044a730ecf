/**
 * The vector ALU: operand access shared by every encoding (VOP1, VOP2, VOPC, VOP3, VOP3P, with DPP16, DPP8
 * and SDWA; {@code Valu}), the per-lane loop that reads every source before any destination lane is written
 * ({@code ValuLanes}), and the units: integer, bitwise and move ({@code ValuIntegerUnit}), packed integer
 * ({@code ValuPackedIntegerUnit}), cross-lane ({@code ValuLaneUnit}), compares ({@code ValuCompareUnit}),
 * SAD and media ({@code ValuSadUnit}) and float arithmetic, conversions, division, transcendentals, cube
 * map and packed float ({@code ValuFloat*}). RDNA 2 ISA, "Vector ALU Operations".
 */
package org.replayfarm.evalnode.hostmodel.valu;
