package org.replayfarm.gpunode.translate;

/** The scalar unit (lead): in progress; refuses every instruction until it lands. */
public final class ScalarEmitter implements UnitEmitter {
    @Override
    public String unit() {
        return "scalar";
    }

    @Override
    public void emit(InsnContext cx) throws Refusal {
        throw cx.refuse("the scalar unit is not translated yet");
    }
}
