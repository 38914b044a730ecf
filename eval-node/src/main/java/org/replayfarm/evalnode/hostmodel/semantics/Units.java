package org.replayfarm.evalnode.hostmodel.semantics;

import org.replayfarm.evalnode.hostmodel.image.BvhUnit;
import org.replayfarm.evalnode.hostmodel.image.ImageSampler;
import org.replayfarm.evalnode.hostmodel.image.ImageUnit;
import org.replayfarm.evalnode.hostmodel.memory.BufferMemory;
import org.replayfarm.evalnode.hostmodel.memory.Lds;
import org.replayfarm.evalnode.hostmodel.memory.ScalarMemory;
import org.replayfarm.evalnode.hostmodel.memory.VectorMemory;
import org.replayfarm.evalnode.hostmodel.scalar.Branch;
import org.replayfarm.evalnode.hostmodel.scalar.ScalarAlu;
import org.replayfarm.evalnode.hostmodel.scalar.ScalarAluUnary;
import org.replayfarm.evalnode.hostmodel.scalar.WaveControl;
import org.replayfarm.evalnode.hostmodel.valu.ValuCompareUnit;
import org.replayfarm.evalnode.hostmodel.valu.ValuFloatArith;
import org.replayfarm.evalnode.hostmodel.valu.ValuFloatConvert;
import org.replayfarm.evalnode.hostmodel.valu.ValuFloatCube;
import org.replayfarm.evalnode.hostmodel.valu.ValuFloatDivide;
import org.replayfarm.evalnode.hostmodel.valu.ValuFloatPacked;
import org.replayfarm.evalnode.hostmodel.valu.ValuFloatTranscendental;
import org.replayfarm.evalnode.hostmodel.valu.ValuIntegerUnit;
import org.replayfarm.evalnode.hostmodel.valu.ValuLaneUnit;
import org.replayfarm.evalnode.hostmodel.valu.ValuPackedIntegerUnit;
import org.replayfarm.evalnode.hostmodel.valu.ValuSadUnit;
import org.replayfarm.model.isa.Encoding;

/**
 * Every execution unit, registered into one table: the one list of what the host model executes, grouped
 * as the hardware is (scalar unit, vector ALU, memory, image and BVH).
 */
final class Units {
    private Units() {
    }

    static void registerAll(SemanticsTable.Builder b) {
        b.exact(Encoding.SOPP, "s_endpgm", (wave, insn) -> wave.end());
        // scalar unit
        ScalarAlu.register(b);
        ScalarAluUnary.register(b);
        Branch.register(b);
        WaveControl.register(b);
        // vector ALU: integer, bitwise, move, cross-lane, compare
        ValuIntegerUnit.register(b);
        ValuPackedIntegerUnit.register(b);
        ValuLaneUnit.register(b);
        ValuCompareUnit.register(b);
        ValuSadUnit.register(b);
        // vector ALU: floating point
        ValuFloatArith.register(b);
        ValuFloatConvert.register(b);
        ValuFloatTranscendental.register(b);
        ValuFloatDivide.register(b);
        ValuFloatCube.register(b);
        ValuFloatPacked.register(b);
        // memory: scalar, LDS, vector (global/flat/scratch), buffer
        ScalarMemory.register(b);
        Lds.register(b);
        VectorMemory.register(b);
        BufferMemory.register(b);
        // image and BVH
        ImageUnit.register(b);
        ImageSampler.register(b);
        BvhUnit.register(b);
    }
}
