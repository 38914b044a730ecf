package org.replayfarm.gpunode.translate;

/**
 * STUB (the image unit's owner replaces this file wholesale): the image unit translates MIMG, MTBUF and MUBUF *_format_*. Until it
 * lands, every such instruction is refused with a reason, so a program that uses one is refused up front.
 */
public final class ImageEmitter implements UnitEmitter {
    @Override
    public String unit() {
        return "image";
    }

    @Override
    public void emit(InsnContext cx) throws Refusal {
        throw cx.refuse("the image unit is not translated yet");
    }
}
