package org.replayfarm.gpunode.translate;

/**
 * STUB (the memory unit's owner replaces this file wholesale): the memory unit translates DS, FLAT, GLOBAL, SCRATCH and MUBUF without a format. Until it
 * lands, every such instruction is refused with a reason, so a program that uses one is refused up front.
 */
public final class MemoryEmitter implements UnitEmitter {
    @Override
    public String unit() {
        return "memory";
    }

    @Override
    public void emit(InsnContext cx) throws Refusal {
        throw cx.refuse("the memory unit is not translated yet");
    }
}
