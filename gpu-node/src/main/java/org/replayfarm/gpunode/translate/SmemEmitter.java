package org.replayfarm.gpunode.translate;

/** The smem unit (lead): in progress; refuses every instruction until it lands. */
public final class SmemEmitter implements UnitEmitter {
    @Override
    public String unit() {
        return "smem";
    }

    @Override
    public void emit(InsnContext cx) throws Refusal {
        throw cx.refuse("the smem unit is not translated yet");
    }
}
