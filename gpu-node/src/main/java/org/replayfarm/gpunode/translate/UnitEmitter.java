package org.replayfarm.gpunode.translate;

/**
 * A unit of the translator: turns one decoded instruction of its encodings into C against the runtime
 * headers (replay_rt.h's wave layout), or refuses it. {@link Routing} decides which unit gets which
 * instruction. Implementations are stateless: one instance serves any number of translations.
 */
public interface UnitEmitter {
    /** The unit's name as coverage prints it: scalar, branch, smem, vector, memory, image. */
    String unit();

    /**
     * Emits the instruction's C through {@link InsnContext#line}: the body of one brace block (the
     * translator writes the braces, the {@code #line} directive and the instruction count around it).
     *
     * @throws Refusal (made by {@link InsnContext#refuse}) when the instruction cannot be translated
     */
    void emit(InsnContext cx) throws Refusal;
}
