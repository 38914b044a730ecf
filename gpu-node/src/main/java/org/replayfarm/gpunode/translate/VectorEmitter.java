package org.replayfarm.gpunode.translate;

/**
 * STUB (the vector unit's owner replaces this file wholesale): the vector unit translates VOP1, VOP2, VOP3, VOP3P, VOPC (DPP, SDWA) and VINTRP. Until it
 * lands, every such instruction is refused with a reason, so a program that uses one is refused up front.
 */
public final class VectorEmitter implements UnitEmitter {
    @Override
    public String unit() {
        return "vector";
    }

    @Override
    public void emit(InsnContext cx) throws Refusal {
        throw cx.refuse("the vector unit is not translated yet");
    }
}
